// Helpers of the hostile-input tests: detached arrays, error assertions and a known-answer check of every operator.
import assert from 'node:assert/strict';

import { BASIC, PADDING, PRINTED_ATOL } from './onnx_examples.mjs';

/** `typed` with its ArrayBuffer transferred away (byteLength 0). */
export function detached(typed) {
  structuredClone(typed.buffer, { transfer: [typed.buffer] });
  assert.equal(typed.byteLength, 0);
  return typed;
}

/** `s` as a literal inside a RegExp. */
export const esc = (s) => String(s).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Asserts that `call()` throws an instance of `type` (the class itself, checked with
 * instanceof and by name) whose message matches `pattern`; returns the error.
 */
export function expectError(call, type, pattern) {
  let error;
  assert.throws(call, (e) => {
    assert.ok(e instanceof type, `expected ${type.name}, got ${e && e.name}: ${e && e.message}`);
    assert.equal(e.name, type.name);
    assert.match(e.message, pattern);
    assert.ok(!e.message.includes('\n'), `one-line message: ${e.message}`);
    error = e;
    return true;
  });
  return error;
}

/** Elementwise |a - b| <= atol (NaN equals NaN), with the first difference in the message. */
export function assertClose(got, want, atol, what = 'values') {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; ++i) {
    const g = Number(got[i]);
    const w = Number(want[i]);
    const same = Number.isNaN(w) ? Number.isNaN(g) : (g === w || Math.abs(g - w) <= atol);
    if (!same) assert.fail(`${what}[${i}]: got ${g}, want ${w} (atol ${atol})`);
  }
}

// ONNX's GridSample example as channels-last x (1, 4, 4, 1): the same numbers.
const X_CL = () => ({ data: BASIC.x.data.slice(), shape: [1, 4, 4, 1] });
// PyTorch's affine_grid of the identity for a 2x2 image, align_corners=0 (pixel centres).
export const IDENTITY_GRID_2x2 = [-0.5, -0.5, 0.5, -0.5, -0.5, 0.5, 0.5, 0.5];
// A 2x2 RGBA image flipped left-right by warpAffine, align_corners=1 (whole pixels).
const FLIP_IN = () => ({ data: Uint8ClampedArray.from({ length: 16 }, (_, i) => 16 * i), width: 2, height: 2 });
const FLIP_OUT = [64, 80, 96, 112, 0, 16, 32, 48, 192, 208, 224, 240, 128, 144, 160, 176];

/**
 * Every operator of `gs` on inputs with known answers (ONNX's documentation examples,
 * PyTorch's affine_grid, a hand-computed flip), copying and zero-copy: the module works.
 */
export function assertModuleWorks(gs) {
  assertClose(gs.gridSample(BASIC.x, BASIC.grid, { mode: 'bilinear' }).data, BASIC.y, PRINTED_ATOL, 'gridSample');
  assertClose(gs.gridSample(PADDING.x, PADDING.grid, { paddingMode: 'reflection' }).data, PADDING.y.reflection,
    PRINTED_ATOL, 'gridSample reflection');
  assertClose(gs.gridSampleChannelsLast(X_CL(), BASIC.grid).data, BASIC.y, PRINTED_ATOL, 'gridSampleChannelsLast');
  const theta = { data: Float32Array.from([1, 0, 0, 0, 1, 0]), shape: [1, 2, 3] };
  assert.deepEqual(Array.from(gs.affineGrid(theta, [1, 1, 2, 2]).data), IDENTITY_GRID_2x2, 'affineGrid');
  assert.deepEqual(Array.from(gs.warpAffine(FLIP_IN(), [-1, 0, 0, 0, 1, 0], { alignCorners: true }).data), FLIP_OUT,
    'warpAffine');
  const x = gs.tensorFrom(BASIC.x);
  const y = gs.tensor('float32', BASIC.yShape);
  try {
    assert.equal(gs.gridSample(x, BASIC.grid, { out: y }), y);
    assertClose(y.data, BASIC.y, PRINTED_ATOL, 'gridSample into a heap tensor');
  } finally {
    x.dispose();
    y.dispose();
  }
}
