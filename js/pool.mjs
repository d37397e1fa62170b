// createPool's main-thread side: single-threaded gridsample instances in workers, large calls split into row bands handed out to them, results assembled in order (DESIGN.md section 10).
import { HeapTensor } from './heap_tensor.mjs';
import { describe, isView } from './messages.mjs';

const MAX_WORKERS = 64;
const LOAD_OPTIONS = ['variant', 'wasmUrl', 'wasmBinary', 'wasmModule', 'warmUp'];
// When a call is split among the workers (smaller ones run whole on one): from POOL_SPLIT_COST
// output values times taps per value (the cost unit of src/kernels/parallel.h), and only where
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
// Taps per output value for each mode name, by rank of the sampling (2: images, 3: volumes).
const TAPS = {
  2: { linear: 4, bilinear: 4, nearest: 1, cubic: 16, bicubic: 16 },
  3: { linear: 8, bilinear: 8, nearest: 1 },
};
// Whether workers can share memory with this thread: Node, and cross-origin isolated pages
// (elsewhere browsers have no SharedArrayBuffer).
const SHARED_MEMORY = typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated !== false;
// Argument names of the pool's calls, for messages.
const ARGUMENT_NAMES = {
  warpAffine: ['image', 'matrix'],
  warpPerspective: ['image', 'h'],
  remap: ['image', 'mapX', 'mapY'],
  gridSample: ['x', 'grid'],
};
/** For tests: `pool[FAULT](worker, 'throw' | 'exit')` makes that worker fail its next band. */
export const FAULT = Symbol.for('gridsample.pool.fault');
/**
 * For the benchmark and tests: `createPool({ [SPLIT_COST]: n })` splits from n instead of
 * POOL_SPLIT_COST; 0 splits every call that can be (no bytes rule either).
 */
export const SPLIT_COST = Symbol.for('gridsample.pool.splitCost');

// createPool's options: worker count (default: a worker per core, at most 8) and what each
// worker passes to load() (one thread each).
function readPoolOptions(options, cores) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`createPool: options: expected an object, got ${describe(options)}`);
  }
  const known = ['workers', ...LOAD_OPTIONS];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`createPool: options.${key}: unknown option; expected ${known.join(', ')}`);
    }
  }
  const { workers = Math.max(1, Math.min(8, Number.isInteger(cores) ? cores : 1)), variant = 'auto', wasmUrl } = options;
  if (typeof workers !== 'number') {
    throw new TypeError(`createPool: options.workers: expected an integer from 1 to ${MAX_WORKERS}, got ${describe(workers)}`);
  }
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= MAX_WORKERS)) {
    throw new RangeError(`createPool: options.workers: expected an integer from 1 to ${MAX_WORKERS}, got ${describe(workers)}`);
  }
  if (variant === 'simd-threads') {
    throw new RangeError("createPool: options.variant: each worker runs one thread: expected 'simd', 'scalar' or 'auto', got 'simd-threads'");
  }
  if (typeof wasmUrl === 'function') {
    throw new TypeError('createPool: options.wasmUrl: expected a string or a URL (a function cannot be sent to the workers)');
  }
  const load = { numThreads: 1 };
  for (const key of LOAD_OPTIONS) {
    if (options[key] !== undefined) load[key] = key === 'wasmUrl' ? String(options[key]) : options[key];
  }
  return { workers, load, splitCost: options[SPLIT_COST] ?? POOL_SPLIT_COST };
}

// A call's own options: signal (an AbortSignal) and onProgress (a function of the fraction
// done), taken out of the options the workers get.
function readCallOptions(fn, options) {
  if (options === undefined || options === null || typeof options !== 'object') return { rest: options };
  const { signal, onProgress, ...rest } = options;
  if (signal !== undefined && !(signal !== null && typeof signal === 'object' && typeof signal.aborted === 'boolean' &&
      typeof signal.addEventListener === 'function')) {
    throw new TypeError(`pool.${fn}: options.signal: expected an AbortSignal, got ${describe(signal)}`);
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError(`pool.${fn}: options.onProgress: expected a function (fraction done, 0 to 1), got ${describe(onProgress)}`);
  }
  if (rest.out !== undefined) {
    throw new TypeError(`pool.${fn}: options.out: not taken by pool calls (the result is assembled from the workers' bands); copy it where it is needed`);
  }
  return { signal, onProgress, rest };
}

const isSide = (v) => Number.isInteger(v) && v >= 0;

// An interleaved image in JS memory, as the pool can split it: {data, width, height,
// channels}, or null (then the call runs whole on one worker, which reports what is wrong).
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
    if (!I || !MX || (mapY != null && !MY) || !(mode in TAPS[2])) return null;
    // Maps as the instance takes them (else it reports what is wrong with the whole maps).
    const planes = MY !== null;
    if (MX.channels !== (planes ? 1 : 2) || (planes && (MY.channels !== 1 || MY.width !== MX.width || MY.height !== MX.height))) return null;
    if (!(MX.data instanceof Float32Array) || (planes && !(MY.data instanceof Float32Array))) return null;
    const { width, height } = MX;
    const slice = (M, a, b) => ({ data: sliceRows(M.data, 1, height, width * M.channels, a, b), width, height: b - a });
    return {
      planes: 1, rows: height, rowValues: width * I.channels, taps: TAPS[2][mode], like: I.data,
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
    if (G.dims[0] !== X.dims[0] || G.dims[r - 1] !== r - 2 || !(mode in TAPS[r - 2])) return null;
    const [n, c] = X.dims;
    const rows = G.dims[1];
    const inner = G.dims.slice(2, r - 1).reduce((a, b) => a * b, 1);
    return {
      planes: n * c, rows, rowValues: inner, taps: TAPS[r - 2][mode], like: X.data,
      shared: { x: { data: X.data, shape: X.dims, ...(X.dtype ? { dtype: X.dtype } : {}) } }, bandBytes: G.data.byteLength,
      band: (a, b) => [{ data: sliceRows(G.data, n, rows, inner * (r - 2), a, b), shape: [n, b - a, ...G.dims.slice(2)] }, options],
      result: (data, first) => ({ data, shape: [n, c, ...G.dims.slice(1, r - 1)], dtype: first.dtype }),
    };
  },
};

function splitWarp([image, matrix, options]) {
  const I = plainImage(image);
  const mode = options?.mode ?? 'linear';
  if (!I || options?.rows !== undefined || !(mode in TAPS[2])) return null;
  const width = options?.width ?? I.width;
  const height = options?.height ?? I.height;
  if (!isSide(width) || !isSide(height)) return null;
  return {
    planes: 1, rows: height, rowValues: width * I.channels, taps: TAPS[2][mode], like: I.data,
    shared: { image: I }, bandBytes: 0,
    band: (a, b) => [matrix, { ...options, rows: [a, b] }],
    result: (data) => ({ data, width, height, channels: I.channels }),
  };
}

// `arg` for a worker: a large typed array, or an object's `data` one, copied and transferred
// (cheaper than the structured clone postMessage makes otherwise).
function copied(arg, transfer) {
  const large = (v) => isView(v) && !(v instanceof DataView) && v.byteLength >= 1 << 16;
  if (large(arg)) {
    const copy = arg.slice();
    transfer.push(copy.buffer);
    return copy;
  }
  if (arg !== null && typeof arg === 'object' && !Array.isArray(arg) && large(arg.data) &&
      Object.getPrototypeOf(arg) === Object.prototype) {
    const copy = { ...arg, data: arg.data.slice() };
    transfer.push(copy.data.buffer);
    return copy;
  }
  return arg;
}

// The Error a worker's error message stands for: the same class and message as the
// single-instance call's.
function errorFrom(e) {
  const Class = { TypeError, RangeError }[e.name] ?? Error;
  const error = new Class(e.message);
  if (!(e.name in { TypeError: 1, RangeError: 1, Error: 1 })) error.name = e.name;
  return error;
}

/**
 * createPool for an environment: `spawn()` starts a worker running pool_worker*.mjs and returns
 * {post(message, transfer), listen(onMessage, onFailure), ref(), unref(), terminate()};
 * `cores()` counts logical cores.
 */
export async function createPoolWith(options, { spawn, cores }) {
  const { workers: count, load, splitCost } = readPoolOptions(options, cores());
  const workers = [];
  const calls = new Map();
  let nextId = 1;
  let terminated = false;

  // A worker: its port, the calls it has the shared inputs of, its bands in flight.
  function start(index) {
    const w = { index, port: spawn(), opened: new Set(), busy: 0, dead: false, loaded: false };
    w.ready = new Promise((resolve, reject) => {
      w.port.listen((msg) => {
        if (msg.type === 'ready') {
          w.loaded = true;
          return resolve();
        }
        if (msg.type === 'failed') {
          const error = errorFrom(msg.error);
          reject(error);
          return fail(w, error);
        }
        answer(w, msg);
      }, (error) => {
        reject(error);
        fail(w, error);
      });
    });
    w.port.post({ type: 'init', load });
    workers[index] = w;
    return w;
  }

  // A worker stopped (it threw outside a call, ran out of memory, or exited) or could not load:
  // its calls reject, and a fresh worker takes the place of one that had loaded (not of one
  // that could not: that would fail again).
  function fail(w, error) {
    if (w.dead) return;
    stop(w);
    for (const call of calls.values()) {
      if (call.workers.has(w)) finish(call, new Error(`pool.${call.fn}: worker ${w.index} stopped: ${error?.message ?? error}`));
    }
    if (!terminated && w.loaded) start(w.index).ready.catch(() => {});
  }

  // Ends a worker; its exit is then no failure.
  function stop(w) {
    w.dead = true;
    return w.port.terminate();
  }

  // The workers' answers: a band's data, a whole call's result, or an error.
  function answer(w, msg) {
    w.busy--;
    if (w.busy === 0) w.port.unref();
    const call = calls.get(msg.id);
    if (!call) return;
    if (msg.type === 'error') return finish(call, errorFrom(msg.error));
    if (msg.type === 'whole') {
      if (progress(call, 1)) finish(call, null, msg.result);
      return;
    }
    place(call, msg.band, msg.result);
    if (!call.settled) give(call, w);
  }

  // A band's rows into the output, in order; the call resolves with its last band.
  function place(call, index, result) {
    const { split } = call;
    const [a, b] = call.bands[index];
    if (!call.out) call.out = new split.like.constructor(split.planes * split.rows * split.rowValues);
    // Bytes, not values: a float16 band may come back as raw bits in another array class.
    const to = new Uint8Array(call.out.buffer);
    const from = new Uint8Array(result.data.buffer, result.data.byteOffset, result.data.byteLength);
    const row = split.rowValues * call.out.BYTES_PER_ELEMENT;
    for (let p = 0; p < split.planes; p++) {
      to.set(from.subarray(p * (b - a) * row, (p + 1) * (b - a) * row), (p * split.rows + a) * row);
    }
    call.done++;
    if (progress(call, call.done / call.bands.length) && call.done === call.bands.length) {
      finish(call, null, split.result(call.out, result));
    }
  }

  // Calls onProgress; false when it threw (the call then rejects with that error).
  function progress(call, fraction) {
    try {
      call.onProgress?.(fraction);
      return true;
    } catch (e) {
      finish(call, e);
      return false;
    }
  }

  // The call's next band to worker `w` (with the shared input the first time). The band's own
  // arrays (map and grid rows) are new: transferred.
  function give(call, w) {
    if (call.next >= call.bands.length || call.settled) return;
    const index = call.next++;
    const [a, b] = call.bands[index];
    const transfer = [];
    const shared = call.opened.has(w) ? null : sharedFor(call, transfer);
    call.opened.add(w);
    call.workers.add(w);
    const args = call.split.band(a, b);
    for (const v of args) if (isView(v?.data) && v.data.byteLength) transfer.push(v.data.buffer);
    post(w, { type: 'band', id: call.id, fn: call.fn, band: index, shared, args }, transfer);
  }

  // A worker's copy of the call's shared input (the image or x). A structured clone of a large
  // array costs several times a copy, so: one copy into shared memory for all the workers where
  // there is shared memory (Node; cross-origin isolated pages), else a copy each, transferred.
  function sharedFor(call, transfer) {
    const [[key, input]] = Object.entries(call.split.shared);
    const from = input.data;
    const bytes = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    let data;
    if (SHARED_MEMORY && from.byteLength) {
      if (!call.sharedCopy) {
        call.sharedCopy = new from.constructor(new SharedArrayBuffer(from.byteLength));
        bytes(call.sharedCopy).set(bytes(from));
      }
      data = call.sharedCopy;
    } else {
      data = from.slice();
      if (data.byteLength) transfer.push(data.buffer);
    }
    return { [key]: { ...input, data } };
  }

  // A message that the worker answers (a whole call or a band); the worker keeps the process
  // alive (Node) while it has any.
  function post(w, msg, transfer) {
    w.port.post(msg, transfer);
    if (w.busy++ === 0) w.port.ref();
  }

  // Settles the call once; the workers that hold its inputs free them.
  function finish(call, error, result) {
    if (call.settled) return;
    call.settled = true;
    calls.delete(call.id);
    call.signal?.removeEventListener('abort', call.abort);
    for (const w of call.opened) if (!w.dead) w.port.post({ type: 'close', id: call.id });
    if (error) call.reject(error);
    else call.resolve(result);
  }

  // The worker with the fewest bands in flight.
  const idlest = () => workers.filter((w) => !w.dead).reduce((a, b) => (b.busy < a.busy ? b : a));

  function run(fn, args) {
    if (terminated) return Promise.reject(new Error(`pool.${fn}: the pool was terminated`));
    let own;
    try {
      own = readCallOptions(fn, args[args.length - 1]);
    } catch (e) {
      return Promise.reject(e);
    }
    args = [...args.slice(0, -1), own.rest];
    const names = ARGUMENT_NAMES[fn];
    const onHeap = args.findIndex((a) => a instanceof HeapTensor);
    if (onHeap >= 0) {
      return Promise.reject(new TypeError(`pool.${fn}: ${names[onHeap]}: a heap tensor lives in one instance's memory; give the pool arrays in JS memory ({data, width, height} images, {data, shape} tensors)`));
    }
    if (own.signal?.aborted) return Promise.reject(own.signal.reason);
    return new Promise((resolve, reject) => {
      const call = { id: nextId++, fn, resolve, reject, onProgress: own.onProgress, signal: own.signal,
        opened: new Set(), workers: new Set(), done: 0, next: 0, settled: false };
      calls.set(call.id, call);
      if (own.signal) {
        call.abort = () => finish(call, own.signal.reason);
        own.signal.addEventListener('abort', call.abort, { once: true });
      }
      let split;
      try {
        split = SPLITTERS[fn](args);
      } catch {
        split = null;  // e.g. a getter that throws: the worker reports it as the instance does
      }
      const values = split ? split.planes * split.rows * split.rowValues : 0;
      const cost = values * (split?.taps ?? 0);
      const bytes = split ? Object.values(split.shared)[0].data.byteLength + values * split.like.BYTES_PER_ELEMENT + split.bandBytes : 0;
      const worth = splitCost === 0 || (cost >= splitCost && cost >= POOL_TAPS_PER_BYTE * bytes);
      const live = workers.filter((w) => !w.dead);
      if (!live.length) {
        finish(call, new Error(`pool.${fn}: no worker is running (they stopped and their replacements could not load)`));
        return;
      }
      const bandCount = split ? Math.min(split.rows, live.length * BANDS_PER_WORKER, Math.max(live.length, Math.floor(cost / POOL_BAND_COST))) : 0;
      try {
        if (!split || !worth || live.length < 2 || bandCount < 2) {
          const w = idlest();
          call.workers.add(w);
          const transfer = [];
          post(w, { type: 'whole', id: call.id, fn, args: args.map((a) => copied(a, transfer)) }, transfer);
          return;
        }
        call.split = split;
        call.bands = Array.from({ length: bandCount }, (_, i) =>
          [Math.floor((i * split.rows) / bandCount), Math.floor(((i + 1) * split.rows) / bandCount)]);
        for (const w of live.slice(0, bandCount)) give(call, w);
      } catch (e) {
        // postMessage's DataCloneError: something in the arguments cannot be copied to a worker.
        finish(call, new TypeError(`pool.${fn}: the arguments cannot be sent to a worker: ${e.message}`, { cause: e }));
      }
    });
  }

  for (let i = 0; i < count; i++) start(i);
  try {
    await Promise.all(workers.map((w) => w.ready));
  } catch (e) {
    terminated = true;
    await Promise.all(workers.map(stop));
    throw e;
  }
  for (const w of workers) w.port.unref();

  return Object.freeze({
    workers: count,
    warpAffine: (image, matrix, options) => run('warpAffine', [image, matrix, options]),
    warpPerspective: (image, h, options) => run('warpPerspective', [image, h, options]),
    remap: (image, mapX, mapY, options) => run('remap', [image, mapX, mapY, options]),
    gridSample: (x, grid, options) => run('gridSample', [x, grid, options]),
    async terminate() {
      if (terminated) return;
      terminated = true;
      for (const call of calls.values()) finish(call, new Error(`pool.${call.fn}: the pool was terminated`));
      await Promise.all(workers.map(stop));
    },
    [FAULT](index, kind) {
      workers[index].port.post({ type: 'fault', kind });
    },
  });
}
