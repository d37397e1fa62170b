// The element types as JavaScript holds them: which typed arrays carry each dtype name, and reading a dtype argument (the C++ library gives the codes, see core/wasm_heap.mjs).
import { describe } from './messages.mjs';

// `arrays` are the typed-array classes accepted for the type; the first is the one we create.
// The names are gridsample::DTypeName's; the element size is the first class's.
const DTYPES = {
  float32: { arrays: [Float32Array] },
  float64: { arrays: [Float64Array] },
  float16: { arrays: [Uint16Array] },
  bfloat16: { arrays: [Uint16Array] },
  int8: { arrays: [Int8Array] },
  uint8: { arrays: [Uint8Array, Uint8ClampedArray] },
  int16: { arrays: [Int16Array] },
  uint16: { arrays: [Uint16Array] },
  int32: { arrays: [Int32Array] },
  uint32: { arrays: [Uint32Array] },
};
// Runtimes with a native Float16Array (recent browsers, onnxruntime-web there) may hand us one.
if (typeof globalThis.Float16Array === 'function') DTYPES.float16.arrays.push(globalThis.Float16Array);

/** Every element type name the library computes on. */
export const DTYPE_NAMES = Object.freeze(Object.keys(DTYPES));

/** The dtypes a GridSample grid or an AffineGrid theta may have (a wrong one is a TypeError before any copy). */
export const FLOAT_DTYPES = Object.freeze(['float32', 'float64', 'float16', 'bfloat16']);

// Dtype of a typed array given without an explicit dtype. Uint16Array means uint16: half floats
// must say so (`dtype: 'float16'`), their bits are indistinguishable from integers.
const DTYPE_OF_CLASS = new Map([
  [Float32Array, 'float32'], [Float64Array, 'float64'], [Int8Array, 'int8'],
  [Uint8Array, 'uint8'], [Uint8ClampedArray, 'uint8'], [Int16Array, 'int16'],
  [Uint16Array, 'uint16'], [Int32Array, 'int32'], [Uint32Array, 'uint32'],
]);
if (typeof globalThis.Float16Array === 'function') DTYPE_OF_CLASS.set(globalThis.Float16Array, 'float16');

/** Bytes per element of `dtype`. */
export function elementSize(dtype) {
  return DTYPES[dtype].arrays[0].BYTES_PER_ELEMENT;
}

/** The class a new array of `dtype` gets: `like`'s own when it is one of the dtype's (a Uint8ClampedArray stays one). */
export function arrayClass(dtype, like) {
  const arrays = DTYPES[dtype].arrays;
  return like && arrays.includes(like) ? like : arrays[0];
}

/** The dtype an array class stands for when no dtype is given. */
export function dtypeOfArray(fn, what, data) {
  const dtype = DTYPE_OF_CLASS.get(data.constructor);
  if (dtype === undefined) {
    throw new TypeError(`${fn}: ${what}: expected one of ${[...new Set(DTYPE_OF_CLASS.keys())].map((A) => A.name).join(', ')}, got ${describe(data)}`);
  }
  return dtype;
}

export function readDtypeName(fn, what, name) {
  if (typeof name !== 'string') {
    throw new TypeError(`${fn}: ${what}: expected a dtype name (${DTYPE_NAMES.join(', ')}), got ${describe(name)}`);
  }
  if (!Object.prototype.hasOwnProperty.call(DTYPES, name)) {
    throw new RangeError(`${fn}: ${what}: expected one of ${DTYPE_NAMES.join(', ')}, got ${describe(name)}`);
  }
  return name;
}

export function checkArrayClass(fn, what, dtype, data) {
  const arrays = DTYPES[dtype].arrays;
  if (!arrays.some((A) => data instanceof A)) {
    throw new TypeError(`${fn}: ${what}: expected ${arrays.map((A) => A.name).join(' or ')} for dtype ${dtype}, got ${describe(data)}`);
  }
}

/** A TypeError unless `dtype` is one of FLOAT_DTYPES. */
export function checkFloatDtype(fn, what, dtype) {
  if (!FLOAT_DTYPES.includes(dtype)) {
    throw new TypeError(`${fn}: ${what}: expected dtype ${FLOAT_DTYPES.slice(0, -1).join(', ')} or ${FLOAT_DTYPES.at(-1)}, got ${dtype}`);
  }
}
