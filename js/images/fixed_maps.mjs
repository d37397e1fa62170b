// gs.prepareRemap: a remap whose maps stay the same from frame to frame (lens undistortion, stabilisation, a fixed effect), read and planned once by the library (as OpenCV's convertMaps), then run on each frame with one crossing into wasm and no allocation.
import { elementSize } from '../core/dtypes.mjs';
import { HeapTensor } from '../core/heap_tensor.mjs';
import { describe } from '../core/messages.mjs';
import { readSampling } from '../core/library_rules.mjs';
import { countElements, readChannels, readOptions, readSide } from '../core/plain_args.mjs';
import { KeptPlan, writeImageBlock } from '../core/prepared.mjs';
import { libraryError } from '../core/wasm_heap.mjs';
import { imageResult, readFill, readImage, readMap, readOutput } from './warps.mjs';

const DTYPES = ['uint8', 'float32'];

/**
 * The image a remap is prepared for: an image or heap tensor as the calls take them (its pixels
 * are not read), or its description {width, height, channels, dtype}.
 */
function readImageSpec(heap, fn, image) {
  if (image instanceof HeapTensor || (image !== null && typeof image === 'object' && image.data !== undefined)) {
    const { dtype, width, height, channels } = readImage(heap, fn, 'image', image, null);
    return { dtype, width, height, channels };
  }
  if (image === null || typeof image !== 'object') {
    throw new TypeError(`${fn}: image: expected an image, a heap tensor or a description {width, height, channels, dtype}, got ${describe(image)}`);
  }
  if (!DTYPES.includes(image.dtype)) {
    throw new TypeError(`${fn}: image.dtype: expected 'uint8' or 'float32', got ${describe(image.dtype)}`);
  }
  return {
    dtype: image.dtype,
    width: readSide(fn, 'image.width', image.width),
    height: readSide(fn, 'image.height', image.height),
    channels: readChannels(fn, 'image.channels', image.channels),
  };
}

/**
 * gs.prepareRemap(image, mapX, mapY, options) over `heap` (prepared_api.d.cts documents it):
 * gs.remap's arguments and options but `out`, the maps read now (the caller may change or drop
 * them afterwards); returns a PreparedRemap.
 */
export function prepareRemap(heap, image, mapX, mapY, options) {
  const fn = 'prepareRemap';
  const { Module } = heap;
  const opts = readOptions(fn, options, ['mode', 'paddingMode', 'padding_mode', 'fill']);
  const I = readImageSpec(heap, fn, image);
  const interleaved = mapY === undefined || mapY === null;
  const MX = readMap(heap, fn, 'mapX', mapX, interleaved ? 2 : 1);
  const MY = interleaved ? null : readMap(heap, fn, 'mapY', mapY, 1);
  if (MY && (MY.width !== MX.width || MY.height !== MX.height)) {
    throw new RangeError(`${fn}: mapY: expected mapX's size ${MX.width}x${MX.height}, got ${MY.width}x${MY.height}`);
  }
  const { mode, padding } = readSampling(heap, fn, opts);
  const fill = readFill(fn, opts.fill, I.channels);
  const inputs = [['mapX', MX], ...(MY ? [['mapY', MY]] : [])];
  heap.checkBudget(fn, inputs.filter(([, t]) => !t.ptr).map(([name, t]) => [name, t.bytes]));
  const owned = [];
  let handle;
  try {
    // The maps in the heap for the preparation only: the library keeps its own plan of them.
    const addresses = inputs.map(([name, t]) => {
      if (t.ptr) return t.ptr;
      owned.push(heap.allocate(fn, name, Math.max(t.bytes, 1)));
      return owned[owned.length - 1];
    });
    heap.copyIn(fn, inputs, addresses, null);
    const specs = [{ dtype: I.dtype, dims: [1, I.height, I.width, I.channels] },
      { dtype: 'float32', dims: MY ? [1, MX.height, MX.width] : [1, MX.height, MX.width, 2] }];
    const yDims = [1, MX.height, MX.width, I.channels];
    const block = writeImageBlock(heap, 'remap', specs, { mode, padding, align: false }, yDims, { space: 0, fill, rows: null });
    handle = Module.prepareRemapFixed(block, addresses[0], addresses[1] ?? 0);
  } finally {
    for (const p of owned) Module.release(p);
  }
  if (!handle) throw libraryError(fn, Module.takeLastError());
  return new PreparedRemap(heap, handle, I, MX.width, MX.height);
}

/**
 * One remap prepared with its maps: `run(image, { out })` with an image of the prepared size,
 * channels and dtype returns what gs.remap with those maps returns, bit for bit. Images given as
 * arrays are copied through heap buffers it keeps (from the first run that needs them); heap
 * tensors are read and written in place. `dispose()` frees the plan and the buffers.
 */
export class PreparedRemap {
  #heap;
  #kept;
  #spec;
  #outBytes;

  constructor(heap, handle, spec, width, height) {
    this.#heap = heap;
    this.#spec = spec;
    this.#kept = new KeptPlan(heap, this, handle, 2);
    /** The output's size (the maps'), channels and dtype (the image's). */
    this.width = width;
    this.height = height;
    this.channels = spec.channels;
    this.dtype = spec.dtype;
    /** Bytes the library keeps for the maps' plan. */
    this.planBytes = heap.Module.preparedPlanBytes(handle);
    this.#outBytes = countElements('remap.run', 'the output', [height, width, spec.channels], spec.dtype) * elementSize(spec.dtype);
    Object.freeze(this);
  }

  /** True after dispose(). */
  get disposed() { return this.#kept.handle === 0; }

  /** Frees the plan and the buffers it keeps. Idempotent; run() throws afterwards. */
  dispose() { this.#kept.release(this); }

  run(image, options) {
    const fn = 'remap.run';
    const heap = this.#heap;
    this.#kept.live(fn, 'this prepared remap');
    const opts = readOptions(fn, options, ['out']);
    const I = readImage(heap, fn, 'image', image, null);
    const spec = this.#spec;
    if (I.dtype !== spec.dtype) {
      throw new TypeError(`${fn}: image: expected ${spec.dtype} data (as prepared), got ${I.dtype}`);
    }
    if (I.width !== spec.width || I.height !== spec.height || I.channels !== spec.channels) {
      throw new RangeError(`${fn}: image: expected a ${spec.width}x${spec.height} image of ${spec.channels} channels (as prepared), got ${I.width}x${I.height} of ${I.channels}`);
    }
    const { O, width, height } = readOutput(heap, fn, opts, I, {}, [this.width, this.height]);
    if (O && !O.target && (O.width !== this.width || O.height !== this.height)) {
      throw new RangeError(`${fn}: options.out: expected the maps' size ${this.width}x${this.height}, got ${O.width}x${O.height}`);
    }
    const handle = this.#kept.live(fn, 'this prepared remap', true); // no code of the caller's runs after this
    const x = I.ptr || this.#buffer(0, 'image', I.bytes);
    const y = (O && O.ptr) || this.#buffer(1, 'the output', this.#outBytes);
    heap.copyIn(fn, [['image', I]], [x], O);
    if (heap.Module._gridsample_run(handle, x, 0, 0, y) !== 0) {
      throw libraryError(fn, heap.Module.takeLastError());
    }
    return imageResult(heap, fn, I, O, y, this.#outBytes, width, height);
  }

  // The kept heap buffer `slot` (0: the image; 1: the output), allocated at its first use.
  #buffer(slot, what, bytes) { return this.#kept.buffer('remap.run', slot, what, bytes); }
}
