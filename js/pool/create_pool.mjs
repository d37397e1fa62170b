// createPool's main-thread side: single-threaded gridsample instances in workers, calls checked here by a check-only instance, large ones split into row bands handed out to idle workers, results assembled in order (DESIGN.md section 10).
import { checkOnly } from '../core/api.mjs';
import { HeapTensor } from '../core/heap_tensor.mjs';
import { describe, isView } from '../core/messages.mjs';
import { tapsOf } from '../core/modes.mjs';
import { isOptionsObject } from '../core/plain_args.mjs';

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
// done), taken out of the options the instance checks and the workers get.
function readCallOptions(fn, options) {
  // What calls do not take as options goes on as it is, for the instance's check to refuse.
  if (!isOptionsObject(options)) return { rest: options };
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

// The fields of an image or tensor argument that the instance reads (images/warps.mjs, readImage;
// core/tensor_args.mjs, readTensor).
const ARGUMENT_FIELDS = ['data', 'width', 'height', 'channels', 'shape', 'dims', 'dtype', 'type'];

// Argument `arg` (not the options) as a worker gets it, read now: a typed array copied (the copy
// transferred: cheaper than the structured clone postMessage makes otherwise), an Array
// copied, an image or tensor as a plain object of the fields the instance reads (its class's
// getters, e.g. onnxruntime's Tensor.data, read here; other properties, functions among them,
// left out: a worker could not get them).
function snapshot(arg, transfer) {
  if (isView(arg)) {
    const copy = arg.slice();
    if (copy.byteLength) transfer.push(copy.buffer);
    return copy;
  }
  if (Array.isArray(arg)) return Array.from(arg);
  if (arg === null || typeof arg !== 'object') return arg;
  const plain = {};
  for (const key of ARGUMENT_FIELDS) {
    const v = arg[key];
    if (v !== undefined) plain[key] = key === 'data' ? snapshot(v, transfer) : v;
  }
  return plain;
}

// The Error a worker's error message stands for: the same class and message as the
// single-instance call's.
function errorFrom(e) {
  const Class = { TypeError, RangeError }[e.name] ?? Error;
  const error = new Class(e.message);
  if (!(e.name in { TypeError: 1, RangeError: 1, Error: 1 })) error.name = e.name;
  return error;
}

// A copy of a call's shared input, made with the call (it may wait for a worker; the caller may
// change its arrays meanwhile): in shared memory, which every worker can read, where there is
// some (Node; cross-origin isolated pages).
function inputCopy(from) {
  if (!SHARED_MEMORY || !from.byteLength) return from.slice();
  const copy = new from.constructor(new SharedArrayBuffer(from.byteLength));
  const bytes = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  bytes(copy).set(bytes(from));
  return copy;
}

/**
 * createPool for an environment: `spawn()` starts a worker running pool_worker*.mjs and returns
 * {post(message, transfer), listen(onMessage, onFailure), ref(), unref(), terminate()};
 * `cores()` counts logical cores; `load(options)` loads an instance in this thread, whose
 * check-only twin checks every call before it is sent (errors are then the instance's).
 */
export async function createPoolWith(options, { spawn, cores, load }) {
  const { workers: count, load: loadOptions, splitCost } = readPoolOptions(options, cores());
  const workers = [];
  const calls = new Map();    // id -> every call not settled
  const waiting = [];         // the calls with work not yet handed to a worker, oldest first
  const signals = new Map();  // AbortSignal -> its calls and their one abort listener
  let check = null;
  let nextId = 1;
  let terminated = false;
  let started = false;

  // A worker: its port, the messages it has in hand (0 or 1), whether it is loaded or stopped.
  function start(index) {
    const w = { index, port: spawn(), busy: 0, dead: false, loaded: false };
    w.ready = new Promise((resolve, reject) => {
      w.port.listen((msg) => {
        if (msg.type === 'ready') {
          w.loaded = true;
          resolve();
          return joined(w);
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
    w.port.post({ type: 'init', load: loadOptions });
    workers[index] = w;
    return w;
  }

  // A replacement worker loaded: idle, it no longer keeps Node alive; it takes waiting work.
  function joined(w) {
    if (!started) return;
    if (w.busy === 0) w.port.unref();
    dispatch();
  }

  // A worker stopped (it threw outside a call, ran out of memory, or exited) or could not load:
  // its calls reject, and a fresh worker takes the place of one that had loaded (not of one
  // that could not: that would fail again). With no worker left, waiting calls reject.
  function fail(w, error) {
    if (w.dead) return;
    stop(w);
    for (const call of calls.values()) {
      if (call.workers.has(w)) finish(call, new Error(`pool.${call.fn}: worker ${w.index} stopped: ${error?.message ?? error}`));
    }
    if (!terminated && w.loaded) start(w.index).ready.catch(() => {});
    if (!workers.some((v) => !v.dead)) for (const call of [...waiting]) finish(call, noWorker(call.fn));
  }

  const noWorker = (fn) => new Error(`pool.${fn}: no worker is running (they stopped and their replacements could not load)`);

  // Ends a worker; its exit is then no failure.
  function stop(w) {
    w.dead = true;
    return w.port.terminate();
  }

  // A worker's answer: a band's data, a whole call's result, or an error; then it takes the
  // next waiting work.
  function answer(w, msg) {
    w.busy--;
    if (w.busy === 0) w.port.unref();
    const call = calls.get(msg.id);
    try {
      if (call) settle(call, msg);
    } catch (e) {
      finish(call, e);  // e.g. no memory for the assembled output
    }
    dispatch();
  }

  function settle(call, msg) {
    if (msg.type === 'error') return finish(call, errorFrom(msg.error));
    if (msg.type === 'whole') {
      if (progress(call, 1)) finish(call, null, msg.result);
      return;
    }
    place(call, msg.band, msg.result);
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

  // Hands out waiting work, oldest call first, one message at a time to each idle worker that
  // has loaded. Work stays here until a worker is free for it: an aborted call's bands are
  // then never sent, and a worker is free for the next call once its band in hand is done.
  function dispatch() {
    for (const w of workers) {
      while (waiting.length && !w.dead && w.loaded && w.busy === 0) {
        const call = waiting[0];
        try {
          handOut(call, w);
        } catch (e) {
          // postMessage's DataCloneError: something the instance's checks let through cannot
          // be copied to a worker. The call leaves the waiting work; `w` takes the next one.
          finish(call, new TypeError(`pool.${call.fn}: the arguments cannot be sent to a worker: ${e.message}`, { cause: e }));
        }
      }
    }
  }

  // The call's next piece of work to worker `w`: the whole call, or its next band (with the
  // shared input the first time `w` gets one of its bands; the band's own arrays, map and grid
  // rows, are new: transferred).
  function handOut(call, w) {
    call.workers.add(w);
    if (!call.split) {
      waiting.shift();
      return post(w, call.whole, call.transfer);
    }
    const index = call.next++;
    if (call.next === call.bands.length) waiting.shift();
    const [a, b] = call.bands[index];
    const transfer = [];
    const shared = call.opened.has(w) ? null : sharedFor(call, transfer);
    call.opened.add(w);
    const args = call.split.band(a, b);
    for (const v of args) if (isView(v?.data) && v.data.byteLength) transfer.push(v.data.buffer);
    post(w, { type: 'band', id: call.id, fn: call.fn, band: index, shared, args }, transfer);
  }

  // A worker's copy of the call's shared input (the image or x), from the one made with the
  // call: that copy itself where it is in shared memory, else a copy of it, transferred (a
  // structured clone of a large array costs several times a copy).
  function sharedFor(call, transfer) {
    const [[key, input]] = Object.entries(call.split.shared);
    let data = call.input;
    if (!SHARED_MEMORY || !data.byteLength) {
      data = data.slice();
      if (data.byteLength) transfer.push(data.buffer);
    }
    return { [key]: { ...input, data } };
  }

  // A message that the worker answers (a whole call or a band); the worker keeps the process
  // alive (Node) while it has one.
  function post(w, msg, transfer) {
    w.port.post(msg, transfer);
    if (w.busy++ === 0) w.port.ref();
  }

  // One abort listener per signal, however many calls share it (Node warns of a leak past 10
  // listeners), removed with its last call.
  function watch(call) {
    const { signal } = call;
    let on = signals.get(signal);
    if (!on) {
      on = { calls: new Set(), abort: () => [...on.calls].forEach((c) => finish(c, signal.reason)) };
      signals.set(signal, on);
      signal.addEventListener('abort', on.abort);
    }
    on.calls.add(call);
  }

  function unwatch(call) {
    const on = signals.get(call.signal);
    on.calls.delete(call);
    if (on.calls.size) return;
    signals.delete(call.signal);
    call.signal.removeEventListener?.('abort', on.abort);
  }

  // Settles the call once: it leaves the waiting work, and the workers that hold its inputs
  // free them.
  function finish(call, error, result) {
    if (call.settled) return;
    call.settled = true;
    calls.delete(call.id);
    const at = waiting.indexOf(call);
    if (at >= 0) waiting.splice(at, 1);
    if (call.signal) unwatch(call);
    for (const w of call.opened) if (!w.dead) w.port.post({ type: 'close', id: call.id });
    if (error) call.reject(error);
    else call.resolve(result);
  }

  // A call checked in this thread (the instance's errors, and the pool's own), with its work
  // planned for `live` workers.
  function prepare(fn, args, live) {
    const own = readCallOptions(fn, args[args.length - 1]);
    args = [...args.slice(0, -1), own.rest];
    const names = ARGUMENT_NAMES[fn];
    const onHeap = args.findIndex((a) => a instanceof HeapTensor);
    if (onHeap >= 0) {
      throw new TypeError(`pool.${fn}: ${names[onHeap]}: a heap tensor lives in one instance's memory; give the pool arrays in JS memory ({data, width, height} images, {data, shape} tensors)`);
    }
    check[fn](...args);
    const call = { id: nextId++, fn, onProgress: own.onProgress, signal: own.signal,
      opened: new Set(), workers: new Set(), done: 0, next: 0, settled: false };
    const split = worthSplitting(fn, args, live);
    if (split) {
      call.split = split;
      call.input = inputCopy(Object.values(split.shared)[0].data);
      call.bands = Array.from({ length: split.bandCount }, (_, i) =>
        [Math.floor((i * split.rows) / split.bandCount), Math.floor(((i + 1) * split.rows) / split.bandCount)]);
    } else {
      call.transfer = [];
      const sent = args.map((a, i) => (i < args.length - 1 ? snapshot(a, call.transfer) : a));
      call.whole = { type: 'whole', id: call.id, fn, args: sent };
    }
    return call;
  }

  // The call's split (SPLITTERS) with its band count, where splitting it among `live` workers
  // pays off (see POOL_SPLIT_COST); else null.
  function worthSplitting(fn, args, live) {
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
    const bandCount = Math.min(split.rows, live * BANDS_PER_WORKER, Math.max(live, Math.floor(cost / POOL_BAND_COST)));
    return worth && bandCount >= 2 ? { ...split, bandCount } : null;
  }

  function run(fn, args) {
    if (terminated) return Promise.reject(new Error(`pool.${fn}: the pool was terminated`));
    const live = workers.filter((w) => !w.dead).length;
    let call;
    try {
      call = prepare(fn, args, live);
    } catch (e) {
      return Promise.reject(e);
    }
    if (call.signal?.aborted) return Promise.reject(call.signal.reason);
    if (!live) return Promise.reject(noWorker(fn));
    return new Promise((resolve, reject) => {
      Object.assign(call, { resolve, reject });
      calls.set(call.id, call);
      if (call.signal) watch(call);
      waiting.push(call);
      dispatch();
    });
  }

  for (let i = 0; i < count; i++) start(i);
  try {
    const [gs] = await Promise.all([load({ ...loadOptions, warmUp: false }), ...workers.map((w) => w.ready)]);
    check = checkOnly(gs);
  } catch (e) {
    terminated = true;
    await Promise.all(workers.map(stop));
    throw e;
  }
  started = true;
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
