// Reading multiScaleDeformableAttention's levels (spatialShapes [L, 2], levelStartIndex [L]: int64 tensors as onnxruntime holds them, int32 ones, typed arrays or plain arrays; options.pointsPerLevel) into the int64s the binding takes, and options.sampling's name into its code; their values are the library's to check.
import { describe, detachedError, isDetached, isView, shapeString } from './messages.mjs';
import { readDims } from './plain_args.mjs';

// The typed arrays levels may come in, and the tensor type each stands for.
const LEVEL_ARRAYS = new Map([[BigInt64Array, 'int64'], [Int32Array, 'int32']]);
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// One value as an int64: a bigint in range, or an integral number that one holds exactly.
function int64(fn, what, v) {
  if (typeof v === 'bigint') {
    if (v >= INT64_MIN && v <= INT64_MAX) return v;
  } else if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63) return BigInt(v);
  } else {
    throw new TypeError(`${fn}: ${what}: expected an integer (a number or a bigint), got ${describe(v)}`);
  }
  throw new RangeError(`${fn}: ${what}: expected an int64 integer, got ${describe(v)}`);
}

// A typed array of levels: BigInt64Array or Int32Array, not detached.
function levelArray(fn, what, data, expected) {
  if (!LEVEL_ARRAYS.has(data.constructor)) {
    throw new TypeError(`${fn}: ${what}: expected ${expected}, got ${describe(data)}`);
  }
  if (isDetached(data.buffer)) throw detachedError(fn, what);
  return data;
}

/**
 * One levels argument `what` (`columns` values a level: 2 for spatialShapes, 1 for
 * levelStartIndex) as {values, dims}: values an Array or typed array of its values in order,
 * dims its shape ([L, 2] or [L]), read once.
 */
function readLevelArgument(fn, what, arg, columns) {
  const layout = columns === 2 ? '[L, 2]' : '[L]';
  const expected = `an int64 or int32 tensor ${layout} (BigInt64Array or Int32Array data, as onnxruntime's), a BigInt64Array, an Int32Array or an Array${columns === 2 ? ' of [H, W] pairs' : ' of integers'}`;
  if (isView(arg)) {
    const data = levelArray(fn, what, arg, expected);
    return { values: data, dims: columns === 2 ? [data.length / 2, 2] : [data.length] };
  }
  if (Array.isArray(arg)) {
    if (columns === 2 && arg.length > 0 && Array.isArray(arg[0])) {
      const values = [];
      for (let l = 0; l < arg.length; ++l) {
        const pair = arg[l];
        if (!Array.isArray(pair) || pair.length !== 2) {
          throw new TypeError(`${fn}: ${what}[${l}]: expected an [H, W] pair, got ${describe(pair)}`);
        }
        values.push(int64(fn, `${what}[${l}][0]`, pair[0]), int64(fn, `${what}[${l}][1]`, pair[1]));
      }
      return { values, dims: [arg.length, 2] };
    }
    return { values: Array.from(arg, (v, i) => int64(fn, `${what}[${i}]`, v)), dims: columns === 2 ? [arg.length / 2, 2] : [arg.length] };
  }
  if (arg === null || typeof arg !== 'object') {
    throw new TypeError(`${fn}: ${what}: expected ${expected}, got ${describe(arg)}`);
  }
  // A tensor object: {data, shape} or onnxruntime's {data, dims, type}.
  if (typeof arg.location === 'string' && arg.location !== 'cpu' && arg.location !== 'cpu-pinned') {
    throw new TypeError(`${fn}: ${what}: expected a CPU tensor, got one on '${arg.location}'; download it first (await tensor.getData())`);
  }
  const data = arg.data;
  if (!isView(data)) throw new TypeError(`${fn}: ${what}.data: expected a BigInt64Array or an Int32Array, got ${describe(data)}`);
  levelArray(fn, `${what}.data`, data, 'a BigInt64Array or an Int32Array');
  const declared = arg.dtype !== undefined ? arg.dtype : arg.type;
  if (declared !== undefined && declared !== LEVEL_ARRAYS.get(data.constructor)) {
    throw new TypeError(`${fn}: ${what}.${arg.dtype !== undefined ? 'dtype' : 'type'}: expected '${LEVEL_ARRAYS.get(data.constructor)}' for ${data.constructor.name} data, got ${describe(declared)}`);
  }
  const shape = arg.shape !== undefined ? arg.shape : arg.dims;
  if (shape === undefined) throw new TypeError(`${fn}: ${what}: expected a shape (or dims) array, got undefined`);
  const dims = readDims(fn, `${what}.${arg.shape !== undefined ? 'shape' : 'dims'}`, shape);
  if (dims.length !== (columns === 2 ? 2 : 1) || (columns === 2 && dims[1] !== 2)) {
    throw new RangeError(`${fn}: ${what}: expected shape ${layout}, got ${shapeString(dims)}`);
  }
  if (data.length !== dims[0] * columns) {
    throw new RangeError(`${fn}: ${what}: data has ${data.length} elements but shape ${shapeString(dims)} needs ${dims[0] * columns}`);
  }
  return { values: data, dims };
}

// options.sampling's names and the codes of the library's DeformableSampling.
const SAMPLING_CODES = new Map([['bilinear', 0], ['discrete', 1]]);

/** options.sampling ('bilinear' when undefined) as the binding's DeformableSampling code. */
export function readDeformableSampling(fn, sampling) {
  if (sampling === undefined) return 0;
  if (typeof sampling === 'string' && SAMPLING_CODES.has(sampling)) return SAMPLING_CODES.get(sampling);
  const ErrorClass = typeof sampling === 'string' ? RangeError : TypeError;
  throw new ErrorClass(`${fn}: options.sampling: expected 'bilinear' or 'discrete', got ${describe(sampling)}`);
}

/**
 * options.pointsPerLevel (P_l per level: an Array of integers, a BigInt64Array or an Int32Array
 * of `count` values) as an Array of bigints, or null when undefined. Only its form is checked
 * here: P_l >= 1 and their sum matching the locations are the library's rules.
 */
function readPointsPerLevel(fn, points, count) {
  if (points === undefined) return null;
  const what = 'options.pointsPerLevel';
  const expected = `an Array of ${count} integers (P_l per level), a BigInt64Array or an Int32Array`;
  if (isView(points)) {
    levelArray(fn, what, points, expected);
  } else if (!Array.isArray(points)) {
    throw new TypeError(`${fn}: ${what}: expected ${expected}, got ${describe(points)}`);
  }
  if (points.length !== count) {
    throw new RangeError(`${fn}: ${what}: expected ${count} values (one per level of spatialShapes), got ${points.length}`);
  }
  return Array.from(points, (v, i) => int64(fn, `${what}[${i}]`, v));
}

/**
 * The levels as the binding takes them: {count: L, values: BigInt64Array of L (H, W) pairs, L
 * starts, then (listed) L points per level, listed: 1 when pointsPerLevel is given, else 0}.
 * Only their form is checked here: H, W >= 1 and starts that are the running sum of H * W are
 * the library's rules (its errors name spatial_shapes and level_start_index), as are P_l's.
 */
export function readLevels(fn, spatialShapes, levelStartIndex, pointsPerLevel) {
  const shapes = readLevelArgument(fn, 'spatialShapes', spatialShapes, 2);
  if (!Number.isInteger(shapes.dims[0])) {
    throw new RangeError(`${fn}: spatialShapes: expected an even number of values (H, W per level), got ${shapes.values.length}`);
  }
  const count = shapes.dims[0];
  const starts = readLevelArgument(fn, 'levelStartIndex', levelStartIndex, 1);
  if (starts.dims[0] !== count) {
    throw new RangeError(`${fn}: levelStartIndex: expected ${count} values (one per level of spatialShapes ${shapeString(shapes.dims)}), got ${starts.dims[0]}`);
  }
  const points = readPointsPerLevel(fn, pointsPerLevel, count);
  const values = new BigInt64Array((points ? 4 : 3) * count);
  const put = (from, at) => {
    for (let i = 0; i < from.length; ++i) values[at + i] = typeof from[i] === 'bigint' ? from[i] : BigInt(from[i]);
  };
  put(shapes.values, 0);
  put(starts.values, 2 * count);
  if (points) put(points, 3 * count);
  return { count, values, listed: points ? 1 : 0 };
}
