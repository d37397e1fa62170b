// How a pool call splits into row bands: which calls split (enough work per byte copied), the input every worker of a call shares, each band's own arguments, and the output they are placed into.
import { isView } from '../core/messages.mjs';
import { tapsOf } from '../core/modes.mjs';
import { snapshot } from './transfer.mjs';

// When a call is split among the workers (smaller ones run whole on one): from POOL_SPLIT_COST
// output values times taps per value (the cost unit of src/kernels/threads/parallel.h), and only where
// that is at least POOL_TAPS_PER_BYTE per byte the split copies (the shared input, maps or
// grid, the output). Measured on 2 workers (bench/README.md, "Worker pool"): RGBA uint8 bicubic
// paid off from 1024x1024 (67M, 8 per byte) but not at 512x512 (17M); bilinear (2 per byte,
// its kernel about as fast as the copies) never, up to 2048x2048.
export const POOL_SPLIT_COST = 1 << 25;
export const POOL_TAPS_PER_BYTE = 4;
// A band is at least this much work, and each worker gets about BANDS_PER_WORKER of them (so
// that early finishers take more, and progress moves in steps).
const POOL_BAND_COST = 1 << 20;
const BANDS_PER_WORKER = 4;

const isSide = (v) => Number.isInteger(v) && v >= 0;

// An interleaved image in JS memory, as the pool can split it: {data, width, height,
// channels}, or null (then the call runs whole on one worker).
function plainImage(image) {
  if (image === null || typeof image !== 'object' || !isView(image.data) || image.data instanceof DataView) return null;
  const { data, width, height } = image;
  if (!isSide(width) || !isSide(height) || width * height === 0) return null;
  const channels = image.channels ?? data.length / (width * height);
  if (!Number.isInteger(channels) || channels < 1 || channels > 4 || data.length !== width * height * channels) return null;
  return { data, width, height, channels };
}

// A tensor in JS memory: {data, dims}, or null.
function plainTensor(t) {
  if (t === null || typeof t !== 'object' || !isView(t.data) || t.data instanceof DataView) return null;
  const dims = t.shape ?? t.dims;
  if (!Array.isArray(dims) || !dims.every(isSide)) return null;
  if (dims.reduce((a, b) => a * b, 1) !== t.data.length) return null;
  return { data: t.data, dims, dtype: t.type ?? t.dtype };
}

// Rows [a, b) of `planes` planes of `rows` rows of `rowValues` values each, as a new array.
function sliceRows(data, planes, rows, rowValues, a, b) {
  const out = new data.constructor(planes * (b - a) * rowValues);
  for (let p = 0; p < planes; p++) {
    out.set(data.subarray((p * rows + a) * rowValues, (p * rows + b) * rowValues), p * (b - a) * rowValues);
  }
  return out;
}

// How a call splits, or null (it runs whole on one worker): the output is `planes` planes of
// `rows` rows of `rowValues` values of `like`'s class; `shared` goes once to each worker of the
// call, band(a, b) gives the rest of the arguments for rows [a, b) (`bandBytes` in all);
// `result(data, first)` wraps the assembled output, `first` being one band's result.
const SPLITTERS = {
  warpAffine: splitWarp,
  warpPerspective: splitWarp,
  remap([image, mapX, mapY, options]) {
    const I = plainImage(image);
    const MX = plainImage(mapX);
    const MY = mapY === undefined || mapY === null ? null : plainImage(mapY);
    const mode = options?.mode ?? 'linear';
    if (!I || !MX || (mapY != null && !MY) || !tapsOf(2, mode)) return null;
    // Maps as the instance takes them (checked before; what it would refuse is not split).
    const planes = MY !== null;
    if (MX.channels !== (planes ? 1 : 2) || (planes && (MY.channels !== 1 || MY.width !== MX.width || MY.height !== MX.height))) return null;
    if (!(MX.data instanceof Float32Array) || (planes && !(MY.data instanceof Float32Array))) return null;
    const { width, height } = MX;
    const slice = (M, a, b) => ({ data: sliceRows(M.data, 1, height, width * M.channels, a, b), width, height: b - a });
    return {
      planes: 1, rows: height, rowValues: width * I.channels, taps: tapsOf(2, mode), like: I.data,
      shared: { image: I }, bandBytes: MX.data.byteLength + (MY ? MY.data.byteLength : 0),
      band: (a, b) => [slice(MX, a, b), MY && slice(MY, a, b), options],
      result: (data) => ({ data, width, height, channels: I.channels }),
    };
  },
  gridSample([x, grid, options]) {
    const X = plainTensor(x);
    const G = plainTensor(grid);
    const mode = options?.mode ?? 'linear';
    if (!X || !G || (X.dims.length !== 4 && X.dims.length !== 5) || G.dims.length !== X.dims.length) return null;
    const r = X.dims.length;
    if (G.dims[0] !== X.dims[0] || G.dims[r - 1] !== r - 2 || !tapsOf(r - 2, mode)) return null;
    const [n, c] = X.dims;
    const rows = G.dims[1];
    const inner = G.dims.slice(2, r - 1).reduce((a, b) => a * b, 1);
    return {
      planes: n * c, rows, rowValues: inner, taps: tapsOf(r - 2, mode), like: X.data,
      shared: { x: { data: X.data, shape: X.dims, ...(X.dtype ? { dtype: X.dtype } : {}) } }, bandBytes: G.data.byteLength,
      band: (a, b) => [{ data: sliceRows(G.data, n, rows, inner * (r - 2), a, b), shape: [n, b - a, ...G.dims.slice(2)] }, options],
      result: (data, first) => ({ data, shape: [n, c, ...G.dims.slice(1, r - 1)], dtype: first.dtype }),
    };
  },
  // Bands of queries: each worker keeps the value and gets its queries' locations and weights;
  // an output value costs 4 taps per level and point.
  multiScaleDeformableAttention([value, spatialShapes, levelStartIndex, locations, weights, options]) {
    const V = plainTensor(value);
    const S = plainTensor(locations);
    const W = plainTensor(weights);
    if (!V || !S || !W || V.dims.length !== 4 || S.dims.length !== 6 || W.dims.length !== 5) return null;
    const [n, , m, d] = V.dims;
    const [, rows, , l, p] = S.dims;
    // The levels read now and sent with each band, tensors as their bare arrays (not transferred).
    const levels = [spatialShapes, levelStartIndex].map((t) => (isView(t?.data) ? t.data.slice() : snapshot(t, [])));
    const typed = (T) => (T.dtype ? { dtype: T.dtype } : {});
    const queries = (T, inner, a, b) => ({ data: sliceRows(T.data, n, rows, inner, a, b), shape: [n, b - a, ...T.dims.slice(2)], ...typed(T) });
    return {
      planes: n, rows, rowValues: m * d, taps: 4 * l * p, like: V.data,
      shared: { x: { data: V.data, shape: V.dims, ...typed(V) } }, bandBytes: S.data.byteLength + W.data.byteLength,
      band: (a, b) => [...levels, queries(S, m * l * p * 2, a, b), queries(W, m * l * p, a, b), options],
      result: (data, first) => ({ data, shape: [n, rows, m * d], dtype: first.dtype }),
    };
  },
};

function splitWarp([image, theta, options]) {
  const I = plainImage(image);
  const matrix = snapshot(theta, []);  // read now, sent with each band
  const mode = options?.mode ?? 'linear';
  if (!I || options?.rows !== undefined || !tapsOf(2, mode)) return null;
  const width = options?.width ?? I.width;
  const height = options?.height ?? I.height;
  if (!isSide(width) || !isSide(height)) return null;
  return {
    planes: 1, rows: height, rowValues: width * I.channels, taps: tapsOf(2, mode), like: I.data,
    shared: { image: I }, bandBytes: 0,
    band: (a, b) => [matrix, { ...options, rows: [a, b] }],
    result: (data) => ({ data, width, height, channels: I.channels }),
  };
}

/**
 * The split of a call (`fn` and its arguments, the options last) among `live` workers, with its
 * bands of rows, where splitting pays off (see POOL_SPLIT_COST; `splitCost` 0 splits every
 * call that can be); else null. `{...split, bands: [[a, b], ...]}`, split as SPLITTERS says.
 */
export function splitCall(fn, args, live, splitCost) {
  let split;
  try {
    split = SPLITTERS[fn](args);
  } catch {
    return null;  // a getter that throws only now: the worker reports what it then reads
  }
  if (!split || live < 2) return null;
  const values = split.planes * split.rows * split.rowValues;
  const cost = values * split.taps;
  const bytes = Object.values(split.shared)[0].data.byteLength + values * split.like.BYTES_PER_ELEMENT + split.bandBytes;
  const worth = splitCost === 0 || (cost >= splitCost && cost >= POOL_TAPS_PER_BYTE * bytes);
  const count = Math.min(split.rows, live * BANDS_PER_WORKER, Math.max(live, Math.floor(cost / POOL_BAND_COST)));
  if (!worth || count < 2) return null;
  const bands = Array.from({ length: count }, (_, i) => [Math.floor((i * split.rows) / count), Math.floor(((i + 1) * split.rows) / count)]);
  return { ...split, bands };
}

/**
 * Band `[a, b)`'s rows of `result` (a worker's answer) into `out`, the call's whole output
 * (made on the first band), in order; returns `out`.
 */
export function placeBand(split, out, [a, b], result) {
  out ??= new split.like.constructor(split.planes * split.rows * split.rowValues);
  // Bytes, not values: a float16 band may come back as raw bits in another array class.
  const to = new Uint8Array(out.buffer);
  const from = new Uint8Array(result.data.buffer, result.data.byteOffset, result.data.byteLength);
  const row = split.rowValues * out.BYTES_PER_ELEMENT;
  for (let p = 0; p < split.planes; p++) {
    to.set(from.subarray(p * (b - a) * row, (p + 1) * (b - a) * row), (p * split.rows + a) * row);
  }
  return out;
}
