// Fixtures of the API tests: both wasm variants loaded, each element type's storage of a float and its read-back with the error the storage allows, and a closeness assertion.
import assert from 'node:assert/strict';

import * as entry from '../../../js/node.mjs';
import { bf16ToNumber, f16ToNumber, numberToBf16, numberToF16 } from './halfs.mjs';
import { PRINTED_ATOL } from './onnx_examples.mjs';

const { load, simdSupported } = entry;

export function assertClose(actual, expected, atol, what = 'values') {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; ++i) {
    const a = Number(actual[i]);
    assert.ok(Math.abs(a - expected[i]) <= atol, `${what}[${i}]: got ${a}, expected ${expected[i]} (atol ${atol})`);
  }
}

// Element types, how to store a float in them and to read it back, and the error the
// storage allows on the ONNX example's values (0..15).
export const INTEGER_RANGE = {
  int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535],
  int32: [-(2 ** 31), 2 ** 31 - 1], uint32: [0, 2 ** 32 - 1],
};
export const STORAGE = {
  float32: { Array: Float32Array, put: (v) => v, get: (v) => v, atol: PRINTED_ATOL },
  float64: { Array: Float64Array, put: (v) => v, get: (v) => v, atol: PRINTED_ATOL },
  // Half types hold the 0..15 inputs exactly; results are rounded once to the type.
  float16: { Array: Uint16Array, put: numberToF16, get: f16ToNumber, atol: 2 ** -7 * 16 },
  bfloat16: { Array: Uint16Array, put: numberToBf16, get: bf16ToNumber, atol: 2 ** -8 * 16 },
  int8: { Array: Int8Array }, uint8: { Array: Uint8Array }, int16: { Array: Int16Array },
  uint16: { Array: Uint16Array }, int32: { Array: Int32Array }, uint32: { Array: Uint32Array },
};

export function encode(dtype, values) {
  const s = STORAGE[dtype];
  return s.Array.from(values, s.put || ((v) => v));
}

export function decodeAll(dtype, data) {
  const s = STORAGE[dtype];
  return Array.from(data, s.get || ((v) => v));
}

export const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());
export const modules = Object.fromEntries(await Promise.all(variants.map(async (v) => [v, await load({ variant: v })])));
