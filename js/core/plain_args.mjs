// Reading plain arguments (dimensions, options objects, booleans, integers, AffineGrid's size and a 2x3 theta) into checked values, with messages that name the argument, the expectation and what was given.
import { elementSize } from './dtypes.mjs';
import { bytesString, describe, detachedError, isDetached, isView, posesAsView, shapeString } from './messages.mjs';

/** Most dimensions any tensor argument may list (a guard against huge shape arrays). */
export const MAX_DIMS = 32;
/** -sMAXIMUM_MEMORY=2GB: the whole wasm memory, static data included. */
export const HEAP_LIMIT = 2 ** 31;

/** Dims as numbers: each a non-negative safe integer (bigint accepted, as in int64 tensors). */
export function readDims(fn, what, shape) {
  if (!Array.isArray(shape) && !isView(shape)) {
    throw new TypeError(`${fn}: ${what}: expected an array of non-negative integers, got ${describe(shape)}`);
  }
  const length = shape.length;
  if (!(length <= MAX_DIMS)) {
    throw new RangeError(`${fn}: ${what}: expected at most ${MAX_DIMS} dimensions, got ${describe(length)}`);
  }
  const dims = new Array(length);
  for (let i = 0; i < length; ++i) {
    const v = shape[i];
    let n;
    if (typeof v === 'bigint') {
      n = v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : -1;
    } else if (typeof v === 'number') {
      n = Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER ? v : -1;
    } else {
      throw new TypeError(`${fn}: ${what}[${i}]: expected a non-negative integer, got ${describe(v)}`);
    }
    if (n < 0) {
      throw new RangeError(`${fn}: ${what}[${i}]: expected a non-negative integer, got ${describe(v)} in ${shapeString(Array.from(shape, (d) => describe(d)))}`);
    }
    dims[i] = n === 0 ? 0 : n; // -0 too
  }
  return dims;
}

/**
 * Element count of `dims` of `dtype`, computed exactly (bigint). Like the C++ library, zeros
 * are skipped in the size check, so that an empty tensor's partial products (strides) are
 * representable too. Everything that is allocated must fit in the wasm memory (2 GiB).
 */
export function countElements(fn, what, dims, dtype) {
  let nonzero = 1n;
  let zero = false;
  for (const d of dims) {
    if (d === 0) zero = true;
    else nonzero *= BigInt(d);
  }
  const bytes = nonzero * BigInt(elementSize(dtype));
  if (bytes >= BigInt(HEAP_LIMIT)) {
    const count = zero
      ? `empty, but its nonzero dimensions alone make ${nonzero} ${dtype} elements`
      : `${nonzero} ${dtype} elements`;
    throw new RangeError(`${fn}: ${what} would need ${bytesString(bytes)}: shape ${shapeString(dims)} is ${count}; the wasm heap is limited to 2 GiB`);
  }
  return zero ? 0 : Number(nonzero);
}

/** Whether calls take `options` as an options object (not an array, a typed array or a look-alike). */
export function isOptionsObject(options) {
  return options !== null && typeof options === 'object' && !Array.isArray(options) && !isView(options) && !posesAsView(options);
}

/**
 * The options object as a snapshot of the known keys: each option (getters included) is read
 * exactly once, before any tensor argument.
 */
export function readOptions(fn, options, known) {
  if (options === undefined || options === null) return {};
  if (!isOptionsObject(options)) {
    throw new TypeError(`${fn}: options: expected an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`${fn}: options.${key}: unknown option; expected ${known.join(', ')}`);
    }
  }
  const snapshot = {};
  for (const key of known) snapshot[key] = options[key];
  return snapshot;
}

/** [name, value] of an option given as its camelCase name or its ONNX attribute spelling (padding_mode); never both. */
export function option(fn, options, name, alias) {
  const a = options[name];
  const b = alias ? options[alias] : undefined;
  if (a !== undefined && b !== undefined) {
    throw new TypeError(`${fn}: options: give ${name} or ${alias}, not both`);
  }
  return a !== undefined ? [name, a] : [alias, b];
}

/** alignCorners / align_corners: a boolean or the attribute's 0 / 1 (default false). */
export function readAlign(fn, opts) {
  const [what, value] = option(fn, opts, 'alignCorners', 'align_corners');
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (value === 0 || value === 1) return value === 1;
    throw new RangeError(`${fn}: options.${what}: expected true, false, 0 or 1, got ${describe(value)}`);
  }
  throw new TypeError(`${fn}: options.${what}: expected true, false, 0 or 1, got ${describe(value)}`);
}

function readInteger(fn, what, value, min, max, expected) {
  if (typeof value !== 'number') {
    throw new TypeError(`${fn}: ${what}: expected ${expected}, got ${describe(value)}`);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${fn}: ${what}: expected ${expected}, got ${describe(value)}`);
  }
  return value;
}

/** A width or height. */
export const readSide = (fn, what, v) => readInteger(fn, what, v, 0, Number.MAX_SAFE_INTEGER, 'a non-negative integer');
/** Channels of an interleaved image. */
export const readChannels = (fn, what, v) => readInteger(fn, what, v, 1, 4, 'an integer from 1 to 4');

/** AffineGrid's size: an array, or an int64 tensor as ONNX gives it (onnxruntime-web: BigInt64Array). */
export function readSize(fn, size) {
  let values = size;
  if (size !== null && typeof size === 'object' && !Array.isArray(size) && !isView(size)) {
    values = size.data;
    if (!Array.isArray(values) && !isView(values)) {
      throw new TypeError(`${fn}: size: expected an array [N, C, H, W] / [N, C, D, H, W] or a 1-D tensor of them, got ${describe(size)}`);
    }
  }
  if (!Array.isArray(values) && !isView(values)) {
    throw new TypeError(`${fn}: size: expected an array [N, C, H, W] or [N, C, D, H, W], got ${describe(size)}`);
  }
  if (isView(values) && isDetached(values.buffer)) throw detachedError(fn, 'size');
  return readDims(fn, 'size', values);
}

/**
 * The matrix of a warp (`name`): `count` numbers, 6 (the 2x3 matrix row-major) or 9 (3x3). A
 * Float32Array computes as float32, an Array or a Float64Array as float64 (what JavaScript
 * numbers are).
 */
export function readMatrix(fn, name, value, count) {
  const entries = count === 6 ? '[a, b, c, d, e, f]' : '[h0, h1, ..., h8]';
  const expected = `expected ${count} numbers ${entries} (the ${count === 6 ? '2x3' : '3x3'} matrix, row-major)`;
  let data;
  if (isView(value) && (value instanceof Float32Array || value instanceof Float64Array)) {
    if (isDetached(value.buffer)) throw detachedError(fn, name);
    data = value;
  } else if (Array.isArray(value)) {
    if (value.length !== count) throw new RangeError(`${fn}: ${name}: ${expected}, got ${value.length}`);
    data = new Float64Array(count);
    for (let i = 0; i < count; ++i) {
      const v = value[i]; // read once: holes and getters included
      if (typeof v !== 'number') {
        throw new TypeError(`${fn}: ${name}[${i}]: expected a number, got ${describe(v)}`);
      }
      data[i] = v;
    }
  } else {
    throw new TypeError(`${fn}: ${name}: expected ${count} numbers ${entries} as an Array, Float32Array or Float64Array, got ${describe(value)}`);
  }
  if (data.length !== count) throw new RangeError(`${fn}: ${name}: ${expected}, got ${data.length}`);
  const dtype = data instanceof Float32Array ? 'float32' : 'float64';
  return { dtype, data, bytes: data.byteLength };
}
