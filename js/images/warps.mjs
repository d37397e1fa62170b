// Interleaved images (ImageData-like {data, width, height}, or [H, W, C] heap tensors): reading them, and the fused warps over them (warpAffine: AffineGrid + GridSample; warpPerspective; remap; warpFlow).
import { checkArrayClass, elementSize } from '../core/dtypes.mjs';
import { HeapTensor, disposedError } from '../core/heap_tensor.mjs';
import { describe, detachedError, isDetached, isView, posesAsView, shapeString } from '../core/messages.mjs';
import { readSampling } from '../core/library_rules.mjs';
import { INVERSE_OPTION, spaceCode, SPACES } from './matrices.mjs';
import { libraryError } from '../core/wasm_heap.mjs';
import { runImageCall } from '../core/prepared.mjs';
import { countElements, readChannels, readMatrix, readOptions, readSide } from '../core/plain_args.mjs';
import { overlaps, readTensor } from '../core/tensor_args.mjs';

/**
 * An interleaved image: a HeapTensor of shape [H, W, C] (zero copy), or {data, width, height,
 * channels?} with data a Uint8ClampedArray / Uint8Array (uint8) or Float32Array (float32).
 * `what` names the argument; for an output, `want.channels` is the default channel count
 * (`want.example` says what else the argument may be).
 */
export function readImage(heap, fn, what, image, want) {
  const address = HeapTensor.addressIn(image, heap, fn, what);
  if (address === 0) throw disposedError(fn, what, image);
  if (address > 0 || address === -2) {
    const dims = image.shape;
    if (image.dtype !== 'uint8' && image.dtype !== 'float32') {
      throw new TypeError(`${fn}: ${what}: expected a uint8 or float32 heap tensor, got ${image.dtype}`);
    }
    if (dims.length !== 3 || dims[2] < 1 || dims[2] > 4) {
      throw new RangeError(`${fn}: ${what}: expected a heap tensor of shape [height, width, channels] with 1 to 4 channels, got ${shapeString(dims)}`);
    }
    // A heap tensor of another loaded module is read (or written) by copy, as in gridSample.
    // (One object literal: a spread here made every image call's records slow to read.)
    const own = address > 0;
    return {
      dtype: image.dtype, height: dims[0], width: dims[1], channels: dims[2], size: image.size, bytes: image.byteLength,
      ptr: own ? address : 0, heap: own ? image : null, data: own ? undefined : image.data,
    };
  }
  const example = want?.example ?? (want ? 'a typed array or an image {data, width, height}' : 'an image {data, width, height} (e.g. ImageData) or a heap tensor');
  if (image === null || typeof image !== 'object' || isView(image) || Array.isArray(image) || posesAsView(image)) {
    throw new TypeError(`${fn}: ${what}: expected ${example}, got ${describe(image)}`);
  }
  const data = image.data;
  let dtype;
  if (!isView(data)) dtype = undefined;
  else if (data instanceof Uint8ClampedArray || data instanceof Uint8Array) dtype = 'uint8';
  else if (data instanceof Float32Array) dtype = 'float32';
  if (dtype === undefined) {
    throw new TypeError(`${fn}: ${what}.data: expected a Uint8ClampedArray, Uint8Array or Float32Array, got ${describe(data)}`);
  }
  if (isDetached(data.buffer)) throw detachedError(fn, `${what}.data`);
  const width = readSide(fn, `${what}.width`, image.width);
  const height = readSide(fn, `${what}.height`, image.height);
  const pixels = width * height;
  let channels;
  if (image.channels !== undefined) {
    channels = readChannels(fn, `${what}.channels`, image.channels);
  } else if (want && want.channels) {
    channels = want.channels;
  } else if (pixels === 0) {
    channels = 4;
  } else {
    channels = data.length / pixels;
    if (!Number.isInteger(channels) || channels < 1 || channels > 4) {
      throw new RangeError(`${fn}: ${what}: data has ${data.length} elements, which is not 1 to 4 values for each pixel of a ${width}x${height} image`);
    }
  }
  const size = countElements(fn, what, [height, width, channels], dtype);
  if (data.length !== size) {
    throw new RangeError(`${fn}: ${what}: data has ${data.length} elements but a ${width}x${height} image of ${channels} channels needs ${size}`);
  }
  return { dtype, width, height, channels, size, bytes: size * elementSize(dtype), data, image };
}

// options.out of a warp: a typed array ({target}) or an image read as above, which must
// match the input's dtype and channels and fixes the output size.
function readImageOut(heap, fn, out, I, size) {
  if (isView(out)) {
    checkArrayClass(fn, 'options.out', I.dtype, out);
    if (isDetached(out.buffer)) throw detachedError(fn, 'options.out');
    return { target: out };
  }
  const O = readImage(heap, fn, 'options.out', out, { channels: I.channels });
  if (O.dtype !== I.dtype) {
    throw new TypeError(`${fn}: options.out: expected ${I.dtype} data (the image's), got ${O.dtype}`);
  }
  if (O.channels !== I.channels) {
    throw new RangeError(`${fn}: options.out: expected ${I.channels} channels (the image's), got ${O.channels}`);
  }
  for (const [name, value, own] of [['width', size.width, O.width], ['height', size.height, O.height]]) {
    if (value !== undefined && value !== own) {
      throw new RangeError(`${fn}: options.${name} is ${value} but options.out has ${name} ${own}`);
    }
  }
  if (overlaps(O, I)) {
    throw new RangeError(`${fn}: options.out: shares memory with image; give the output its own tensor`);
  }
  return O;
}

// options.fill, the colour zeros padding reads outside the image (BORDER_CONSTANT): a number for
// every channel, or one number per channel. As the bindings take it: [count, f0, f1, f2, f3],
// count 0 without fill. The library checks that the values are finite and the padding zeros.
export function readFill(fn, fill, channels) {
  if (fill === undefined) return [0, 0, 0, 0, 0];
  const expected = `a number or ${channels} number${channels > 1 ? 's' : ''} (one per channel of the image)`;
  const values = typeof fill === 'number' ? new Array(channels).fill(fill)
    : Array.isArray(fill) || (ArrayBuffer.isView(fill) && !(fill instanceof DataView)) ? Array.from(fill) : null;
  if (values === null || values.some((v) => typeof v !== 'number')) {
    throw new TypeError(`${fn}: options.fill: expected ${expected}, got ${describe(fill)}`);
  }
  if (values.length !== channels) {
    throw new RangeError(`${fn}: options.fill: expected ${expected}, got ${values.length} numbers`);
  }
  return [channels, ...values, ...new Array(4 - channels).fill(0)];
}

// The two fused warps: the name of their matrix argument in each space, its entries and rows.
export const WARPS = {
  warpAffine: { count: 6, name: { normalized: 'theta', pixel: 'matrix' }, rows: 2 },
  warpPerspective: { count: 9, name: { normalized: 'h', pixel: 'h' }, rows: 3 },
};

/**
 * Gives the module (`Module`, with the image warps) the words of WARPS and INVERSE_OPTION, which
 * the library's messages about a warp's matrix then use.
 */
export function nameWarpMatrices(Module) {
  const { warpAffine: a, warpPerspective: p } = WARPS;
  Module.setMatrixWords(a.name.normalized, a.name.pixel, p.name.normalized, p.name.pixel, INVERSE_OPTION);
}

// options.space and options.inverse: the space ('normalized' unless given) and whether a
// pixel-space matrix already maps output to input. alignCorners belongs to normalised space.
export function readSpace(fn, opts) {
  const space = opts.space ?? 'normalized';
  if (!SPACES.includes(space)) {
    throw new RangeError(`${fn}: options.space: expected ${SPACES.map((s) => `'${s}'`).join(' or ')}, got ${describe(space)}`);
  }
  if (opts.inverse !== undefined && typeof opts.inverse !== 'boolean') {
    throw new TypeError(`${fn}: options.inverse: expected a boolean, got ${describe(opts.inverse)}`);
  }
  if (space === 'normalized' && opts.inverse !== undefined) {
    throw new RangeError(`${fn}: options.inverse applies to space 'pixel' only (a normalized matrix always maps output to input)`);
  }
  if (space === 'pixel') {
    for (const name of ['alignCorners', 'align_corners']) {
      if (opts[name] !== undefined) {
        throw new RangeError(`${fn}: options.${name} does not apply to space 'pixel' (pixel centres sit at integer coordinates)`);
      }
    }
  }
  return { space, inverse: opts.inverse === true };
}

/**
 * gs.warpAffine(image, theta, options) and gs.warpPerspective(image, h, options) over `heap`
 * (load_api.d.cts documents them): `fn` names the warp.
 */
export function warpImage(heap, fn, image, matrix, options) {
  const warp = WARPS[fn];
  const opts = readOptions(fn, options,
    ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners', 'width', 'height', 'out', 'space', 'inverse', 'fill', 'rows']);
  const { space, inverse } = readSpace(fn, opts);
  const I = readImage(heap, fn, 'image', image, null);
  const M = readMatrix(fn, warp.name[space], matrix, warp.count);
  const { mode, padding, align } = readSampling(heap, fn, opts);
  const fill = readFill(fn, opts.fill, I.channels);
  const size = {
    width: opts.width === undefined ? undefined : readSide(fn, 'options.width', opts.width),
    height: opts.height === undefined ? undefined : readSide(fn, 'options.height', opts.height),
  };
  // options.rows: a band of an output options.height (or the image's height) rows high.
  const wholeHeight = size.height ?? I.height;
  const band = opts.rows === undefined ? null : readRows(fn, opts.rows, wholeHeight);
  const { O, width, height, yDims, yBytes } = readOutput(heap, fn, opts, I, band ? { ...size, height: band[1] - band[0] } : size);
  // The library takes the matrix in its space (gridsample/matrices.h): it inverts a pixel-space
  // matrix and conjugates a normalised homography into pixels. Pixel space fixes the points;
  // align_corners then only picks reflection's lines: the pixel edges, as OpenCV's BORDER_REFLECT.
  const kernelAlign = space === 'pixel' ? false : align;
  const specs = [{ dtype: I.dtype, dims: [1, I.height, I.width, I.channels] }, { dtype: M.dtype, dims: [1, warp.rows, 3] }];
  const extras = { space: spaceCode(space, inverse), fill, rows: band ? [wholeHeight, band[0]] : null };
  return heap.withHeap(fn, [['image', I]], yBytes, O, ([ip], yp) => {
    const mp = heap.stage(0, M.data); // (at most nine numbers: no allocation of their own)
    const code = runImageCall(heap, fn, specs, { mode, padding, align: kernelAlign }, yDims, extras, [ip, mp, 0], yp);
    if (code !== 0) throw libraryError(fn, heap.Module.takeLastError());
    return imageResult(heap, fn, I, O, yp, yBytes, width, height);
  });
}

// options.rows of a warp: [begin, end], integers with 0 <= begin <= end <= `height`.
function readRows(fn, rows, height) {
  const expected = `[begin, end]: integers with 0 <= begin <= end <= ${height} (the output's height)`;
  if (!Array.isArray(rows) || rows.length !== 2 || !rows.every((r) => Number.isInteger(r))) {
    throw new TypeError(`${fn}: options.rows: expected ${expected}, got ${describe(rows)}`);
  }
  if (!(rows[0] >= 0 && rows[0] <= rows[1] && rows[1] <= height)) {
    throw new RangeError(`${fn}: options.rows: expected ${expected}, got [${rows[0]}, ${rows[1]}]`);
  }
  return rows;
}

// The output of an image call: options.out (read as readImageOut does) or a new image of
// `size` (options.width and options.height, each undefined for `fallback`'s: [width, height],
// by default the input's) with the input's channels and dtype, checked to fit.
export function readOutput(heap, fn, opts, I, size, fallback = [I.width, I.height]) {
  const O = opts.out === undefined ? null : readImageOut(heap, fn, opts.out, I, size);
  const width = O && !O.target ? O.width : size.width ?? fallback[0];
  const height = O && !O.target ? O.height : size.height ?? fallback[1];
  const yDims = [1, height, width, I.channels];
  const ySize = countElements(fn, 'the output', yDims, I.dtype);
  if (O && O.target && O.target.length !== ySize) {
    throw new RangeError(`${fn}: options.out: expected ${ySize} elements for a ${width}x${height} image of ${I.channels} channels, got ${O.target.length}`);
  }
  if (ySize > 0 && I.size === 0) {
    throw new RangeError(`${fn}: image: it has no pixels (${I.width}x${I.height}) but the output ${width}x${height} samples from it`);
  }
  return { O, width, height, yDims, yBytes: ySize * elementSize(I.dtype) };
}

// What an image call returns once the kernel wrote the output at yp: the out image itself, an
// image over a heap tensor's view or over `out`'s array, or a new image.
export function imageResult(heap, fn, I, O, yp, yBytes, width, height) {
  const result = (data) => ({ data, width, height, channels: I.channels });
  if (O && O.ptr) return result(O.heap.data);
  const target = O ? (O.target || O.data) : null;
  const data = heap.copyOut(fn, O && O.target ? 'options.out' : 'options.out.data', yp, yBytes, target, I.dtype,
    I.data && I.data.constructor);
  return O && O.image ? O.image : result(data);
}

// A remap map (float32 pixel coordinates) or, with `flow`, a flow (offsets in pixels):
// `channels` per pixel (2: interleaved x and y; 1: one plane), as an {data, width, height}
// object or a float32 heap tensor [h, w, channels].
export function readMap(heap, fn, what, map, channels, flow = false) {
  const [noun, xy, values] = flow ? ['flow', '(dx, dy)', 'offsets'] : ['map', '(x, y)', 'coordinates'];
  const because = flow ? '' : ', as mapY is not given';
  let M;
  try {
    M = readImage(heap, fn, what, map, { channels, example: `a ${noun} {data: Float32Array, width, height} or a float32 heap tensor` });
  } catch (e) {
    // readImage speaks of images: say what the map was read as.
    if (e instanceof RangeError && / needs \d+$/.test(e.message)) {
      throw new RangeError(`${e.message.replace(/image of (\d) channels/, `${noun} of $1 value(s) per pixel`)} (${channels === 2 ? `an interleaved ${xy} ${noun}${because}` : 'a plane of x or y'})`, { cause: e });
    }
    throw e;
  }
  if (M.dtype !== 'float32') {
    throw new TypeError(`${fn}: ${what}: expected float32 pixel ${values} (a Float32Array or a float32 heap tensor), got ${M.dtype} data`);
  }
  if (M.channels !== channels) {
    throw new RangeError(`${fn}: ${what}: expected ${channels === 2 ? `an interleaved ${noun}: 2 values ${xy} per pixel${because}` : '1 value per pixel (a plane)'}, got ${M.channels}`);
  }
  return M;
}

/**
 * gs.remap(image, mapX, mapY, options) over `heap` (load_api.d.cts documents it): OpenCV's
 * remap with float maps, the output the maps' size.
 */
export function remap(heap, image, mapX, mapY, options) {
  const fn = 'remap';
  const opts = readOptions(fn, options, ['mode', 'paddingMode', 'padding_mode', 'out', 'fill']);
  const I = readImage(heap, fn, 'image', image, null);
  const interleaved = mapY === undefined || mapY === null;
  const MX = readMap(heap, fn, 'mapX', mapX, interleaved ? 2 : 1);
  const MY = interleaved ? null : readMap(heap, fn, 'mapY', mapY, 1);
  if (MY && (MY.width !== MX.width || MY.height !== MX.height)) {
    throw new RangeError(`${fn}: mapY: expected mapX's size ${MX.width}x${MX.height}, got ${MY.width}x${MY.height}`);
  }
  const maps = { inputs: [['mapX', MX], ...(MY ? [['mapY', MY]] : [])], width: MX.width, height: MX.height, planes: !!MY, flow: false };
  return sampleAtMaps(heap, fn, I, opts, maps);
}

/**
 * gs.warpFlow(image, flow, options) over `heap` for an interleaved image (load_api.d.cts
 * documents it): out(p) = image(p + flow(p)) with the flow in pixels, as an interleaved
 * (dx, dy) map {data, width, height} or heap tensor [h, w, 2], or a float32 tensor
 * [1, 2, h, w] (dx's plane, then dy's: RAFT's layout); the output has the flow's size.
 */
export function warpFlowImage(heap, image, flow, options) {
  const fn = 'warpFlow';
  const opts = readOptions(fn, options, ['mode', 'paddingMode', 'padding_mode', 'out', 'fill']);
  const I = readImage(heap, fn, 'image', image, null);
  const planar = flow !== null && typeof flow === 'object' && ('shape' in flow || 'dims' in flow) &&
    !(flow instanceof HeapTensor && flow.shape.length === 3);
  if (!planar) {
    const F = readMap(heap, fn, 'flow', flow, 2, true);
    const maps = { inputs: [['flow', F]], width: F.width, height: F.height, planes: false, flow: true };
    return sampleAtMaps(heap, fn, I, opts, maps);
  }
  const F = readTensor(heap, fn, 'flow', flow);
  if (F.dtype !== 'float32') {
    throw new TypeError(`${fn}: flow: expected dtype float32 (displacements in pixels), got ${F.dtype}`);
  }
  if (F.dims.length !== 4 || F.dims[0] !== 1 || F.dims[1] !== 2) {
    throw new RangeError(`${fn}: flow: expected shape [1, 2, Ho, Wo] (dx then dy) for an image, or an interleaved {data, width, height} flow, got ${shapeString(F.dims)}`);
  }
  const [height, width] = [F.dims[2], F.dims[3]];
  const maps = { inputs: [['flow', F]], width, height, planes: true, flow: true };
  return sampleAtMaps(heap, fn, I, opts, maps, ([fp]) => [fp, fp + 4 * width * height]);
}

// Remap and warpFlow's image call: `image` sampled at the maps' positions (maps.flow: offsets)
// into an output of the maps' size: one interleaved map, or two planes (maps.planes) whose heap
// addresses `pointers` gives from those of maps.inputs (by default those themselves).
function sampleAtMaps(heap, fn, I, opts, maps, pointers = (addresses) => addresses) {
  const { mode, padding } = readSampling(heap, fn, opts);
  const fill = readFill(fn, opts.fill, I.channels);
  const { O, width, height, yDims, yBytes } = readOutput(heap, fn, opts, I, {}, [maps.width, maps.height]);
  if (O && !O.target && (O.width !== maps.width || O.height !== maps.height)) {
    throw new RangeError(`${fn}: options.out: expected the ${maps.flow ? "flow's" : "maps'"} size ${maps.width}x${maps.height}, got ${O.width}x${O.height}`);
  }
  const mapDims = maps.planes ? [1, maps.height, maps.width] : [1, maps.height, maps.width, 2];
  const specs = [{ dtype: I.dtype, dims: [1, I.height, I.width, I.channels] }, { dtype: 'float32', dims: mapDims }];
  const extras = { space: 0, fill, rows: null };
  return heap.withHeap(fn, [['image', I], ...maps.inputs], yBytes, O, ([ip, ...mapPointers], yp) => {
    // Positions or offsets (maps.flow), in one interleaved map or two planes.
    const [m, more = 0] = pointers(mapPointers);
    heap.check(fn, runImageCall(heap, maps.flow ? 'warpFlowImage' : 'remap', specs, { mode, padding, align: false }, yDims, extras, [ip, m, more], yp));
    return imageResult(heap, fn, I, O, yp, yBytes, width, height);
  });
}
