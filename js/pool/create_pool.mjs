// createPool's calling-thread side: single-threaded gridsample instances in workers, calls checked here by a check-only instance, large ones split into row bands (bands.mjs) handed out to idle workers, results assembled in order (DESIGN.md section 10).
import { checkOnly } from '../core/api.mjs';
import { HeapTensor } from '../core/heap_tensor.mjs';
import { describe, isView } from '../core/messages.mjs';
import { isOptionsObject } from '../core/plain_args.mjs';
import { placeBand, POOL_SPLIT_COST, splitCall } from './bands.mjs';
import { errorFrom, inputCopy, SHARED_MEMORY, snapshot } from './transfer.mjs';

export { POOL_SPLIT_COST, POOL_TAPS_PER_BYTE } from './bands.mjs';

const MAX_WORKERS = 64;
const LOAD_OPTIONS = ['variant', 'wasmUrl', 'wasmBinary', 'wasmModule', 'warmUp'];
// Argument names of the pool's calls, for messages.
const ARGUMENT_NAMES = {
  warpAffine: ['image', 'matrix'],
  warpPerspective: ['image', 'h'],
  remap: ['image', 'mapX', 'mapY'],
  gridSample: ['x', 'grid'],
  multiScaleDeformableAttention: ['value', 'spatialShapes', 'levelStartIndex', 'samplingLocations', 'attentionWeights'],
};
/**
 * For tests: `pool[FAULT]('throw' | 'exit')` makes the worker handed the next piece of work (a
 * whole call or a band, whichever worker is idle first) fail it.
 */
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

// One pool: its workers, the calls not settled, the work not yet handed out. Every method runs
// on the calling thread, between the workers' messages.
class Pool {
  #spawn;
  #loadOptions;
  #splitCost;
  #workers = [];
  #calls = new Map();    // id -> every call not settled
  #waiting = [];         // the calls with work not yet handed to a worker, oldest first
  #signals = new Map();  // AbortSignal -> its calls and their one abort listener
  #check = null;
  #nextId = 1;
  #terminated = false;
  #started = false;
  #fault = null;         // pool[FAULT]'s kind, for the next message that a worker answers

  constructor(spawn, loadOptions, splitCost) {
    this.#spawn = spawn;
    this.#loadOptions = loadOptions;
    this.#splitCost = splitCost;
  }

  // Starts `count` workers and loads this thread's check-only instance with `load`.
  async open(count, load) {
    for (let i = 0; i < count; i++) this.#start(i);
    try {
      const [gs] = await Promise.all([load({ ...this.#loadOptions, warmUp: false }), ...this.#workers.map((w) => w.ready)]);
      this.#check = checkOnly(gs);
    } catch (e) {
      this.#terminated = true;
      await this.#stopAll();
      throw e;
    }
    this.#started = true;
    for (const w of this.#workers) w.port.unref();
  }

  // A worker: its port, the messages it has in hand (0 or 1), whether it is loaded or stopped.
  #start(index) {
    const w = { index, port: this.#spawn(), busy: 0, dead: false, loaded: false };
    w.ready = new Promise((resolve, reject) => {
      w.port.listen((msg) => {
        if (msg.type === 'ready') {
          w.loaded = true;
          resolve();
          return this.#joined(w);
        }
        if (msg.type === 'failed') {
          const error = errorFrom(msg.error);
          reject(error);
          return this.#fail(w, error);
        }
        this.#answer(w, msg);
      }, (error) => {
        reject(error);
        this.#fail(w, error);
      });
    });
    w.port.post({ type: 'init', load: this.#loadOptions });
    this.#workers[index] = w;
    return w;
  }

  // A replacement worker loaded: idle, it no longer keeps Node alive; it takes waiting work.
  #joined(w) {
    if (!this.#started) return;
    if (w.busy === 0) w.port.unref();
    this.#dispatch();
  }

  // A worker stopped (it threw outside a call, ran out of memory, or exited) or could not load:
  // its calls reject, and a fresh worker takes the place of one that had loaded (not of one
  // that could not: that would fail again). With no worker left, waiting calls reject.
  #fail(w, error) {
    if (w.dead) return;
    this.#stop(w);
    for (const call of this.#calls.values()) {
      if (call.workers.has(w)) this.#finish(call, new Error(`pool.${call.fn}: worker ${w.index} stopped: ${error?.message ?? error}`));
    }
    if (!this.#terminated && w.loaded) this.#start(w.index).ready.catch(() => {});
    if (!this.#workers.some((v) => !v.dead)) for (const call of [...this.#waiting]) this.#finish(call, noWorker(call.fn));
  }

  // Ends a worker; its exit is then no failure.
  #stop(w) {
    w.dead = true;
    return w.port.terminate();
  }

  // Ends every worker. A timer holds the event loop until they have exited: Node can end the loop
  // first (idle workers are unreferenced), leaving the awaited promise pending for good.
  async #stopAll() {
    const hold = setInterval(() => {}, 1 << 30);
    try {
      await Promise.all(this.#workers.map((w) => this.#stop(w)));
    } finally {
      clearInterval(hold);
    }
  }

  // A worker's answer: a band's data, a whole call's result, or an error; then it takes the
  // next waiting work.
  #answer(w, msg) {
    w.busy--;
    if (w.busy === 0) w.port.unref();
    const call = this.#calls.get(msg.id);
    try {
      if (call) this.#settle(call, msg);
    } catch (e) {
      this.#finish(call, e);  // e.g. no memory for the assembled output
    }
    this.#dispatch();
  }

  #settle(call, msg) {
    if (msg.type === 'error') return this.#finish(call, errorFrom(msg.error));
    if (msg.type === 'whole') {
      if (this.#progress(call, 1)) this.#finish(call, null, msg.result);
      return;
    }
    // A band's rows into the output, in order; the call resolves with its last band.
    const { split } = call;
    call.out = placeBand(split, call.out, split.bands[msg.band], msg.result);
    call.done++;
    if (this.#progress(call, call.done / split.bands.length) && call.done === split.bands.length) {
      this.#finish(call, null, split.result(call.out, msg.result));
    }
  }

  // Calls onProgress; false when it threw (the call then rejects with that error).
  #progress(call, fraction) {
    try {
      call.onProgress?.(fraction);
      return true;
    } catch (e) {
      this.#finish(call, e);
      return false;
    }
  }

  // Hands out waiting work, oldest call first, one message at a time to each idle worker that
  // has loaded. Work stays here until a worker is free for it: an aborted call's bands are
  // then never sent, and a worker is free for the next call once its band in hand is done.
  #dispatch() {
    for (const w of this.#workers) {
      while (this.#waiting.length && !w.dead && w.loaded && w.busy === 0) {
        const call = this.#waiting[0];
        try {
          this.#handOut(call, w);
        } catch (e) {
          // postMessage's DataCloneError: something the instance's checks let through cannot
          // be copied to a worker. The call leaves the waiting work; `w` takes the next one.
          this.#finish(call, new TypeError(`pool.${call.fn}: the arguments cannot be sent to a worker: ${e.message}`, { cause: e }));
        }
      }
    }
  }

  // The call's next piece of work to worker `w`: the whole call, or its next band (with the
  // shared input the first time `w` gets one of its bands; the band's own arrays, map and grid
  // rows, are new: transferred).
  #handOut(call, w) {
    call.workers.add(w);
    if (!call.split) {
      this.#waiting.shift();
      return this.#post(w, call.whole, call.transfer);
    }
    const index = call.next++;
    if (call.next === call.split.bands.length) this.#waiting.shift();
    const [a, b] = call.split.bands[index];
    const transfer = [];
    const shared = call.opened.has(w) ? null : sharedFor(call, transfer);
    call.opened.add(w);
    const args = call.split.band(a, b);
    for (const v of args) if (isView(v?.data) && v.data.byteLength) transfer.push(v.data.buffer);
    this.#post(w, { type: 'band', id: call.id, fn: call.fn, band: index, shared, args }, transfer);
  }

  // A message that the worker answers (a whole call or a band); the worker keeps the process
  // alive (Node) while it has one.
  #post(w, msg, transfer) {
    if (this.#fault) [msg, this.#fault] = [{ ...msg, fault: this.#fault }, null];
    w.port.post(msg, transfer);
    if (w.busy++ === 0) w.port.ref();
  }

  // One abort listener per signal, however many calls share it (Node warns of a leak past 10
  // listeners), removed with its last call.
  #watch(call) {
    const { signal } = call;
    let on = this.#signals.get(signal);
    if (!on) {
      on = { calls: new Set(), abort: () => [...on.calls].forEach((c) => this.#finish(c, signal.reason)) };
      this.#signals.set(signal, on);
      signal.addEventListener('abort', on.abort);
    }
    on.calls.add(call);
  }

  #unwatch(call) {
    const on = this.#signals.get(call.signal);
    on.calls.delete(call);
    if (on.calls.size) return;
    this.#signals.delete(call.signal);
    call.signal.removeEventListener?.('abort', on.abort);
  }

  // Settles the call once: it leaves the waiting work, and the workers that hold its inputs
  // free them.
  #finish(call, error, result) {
    if (call.settled) return;
    call.settled = true;
    this.#calls.delete(call.id);
    const at = this.#waiting.indexOf(call);
    if (at >= 0) this.#waiting.splice(at, 1);
    if (call.signal) this.#unwatch(call);
    for (const w of call.opened) if (!w.dead) w.port.post({ type: 'close', id: call.id });
    if (error) call.reject(error);
    else call.resolve(result);
  }

  // A call checked in this thread (the instance's errors, and the pool's own), with its work
  // planned for `live` workers.
  #prepare(fn, args, live) {
    const own = readCallOptions(fn, args[args.length - 1]);
    args = [...args.slice(0, -1), own.rest];
    const names = ARGUMENT_NAMES[fn];
    const onHeap = args.findIndex((a) => a instanceof HeapTensor);
    if (onHeap >= 0) {
      throw new TypeError(`pool.${fn}: ${names[onHeap]}: a heap tensor lives in one instance's memory; give the pool arrays in JS memory ({data, width, height} images, {data, shape} tensors)`);
    }
    this.#check[fn](...args);
    const call = { id: this.#nextId++, fn, onProgress: own.onProgress, signal: own.signal,
      opened: new Set(), workers: new Set(), done: 0, next: 0, settled: false };
    const split = splitCall(fn, args, live, this.#splitCost);
    if (split) {
      call.split = split;
      call.input = inputCopy(Object.values(split.shared)[0].data);
    } else {
      call.transfer = [];
      const sent = args.map((a, i) => (i < args.length - 1 ? snapshot(a, call.transfer) : a));
      call.whole = { type: 'whole', id: call.id, fn, args: sent };
    }
    return call;
  }

  run(fn, args) {
    if (this.#terminated) return Promise.reject(new Error(`pool.${fn}: the pool was terminated`));
    const live = this.#workers.filter((w) => !w.dead).length;
    let call;
    try {
      call = this.#prepare(fn, args, live);
    } catch (e) {
      return Promise.reject(e);
    }
    if (call.signal?.aborted) return Promise.reject(call.signal.reason);
    if (!live) return Promise.reject(noWorker(fn));
    return new Promise((resolve, reject) => {
      Object.assign(call, { resolve, reject });
      this.#calls.set(call.id, call);
      if (call.signal) this.#watch(call);
      this.#waiting.push(call);
      this.#dispatch();
    });
  }

  async terminate() {
    if (this.#terminated) return;
    this.#terminated = true;
    for (const call of this.#calls.values()) this.#finish(call, new Error(`pool.${call.fn}: the pool was terminated`));
    await this.#stopAll();
  }

  fault(kind) {
    this.#fault = kind;
  }
}

const noWorker = (fn) => new Error(`pool.${fn}: no worker is running (they stopped and their replacements could not load)`);

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

/**
 * createPool for an environment: `spawn()` starts a worker running pool_worker*.mjs and returns
 * {post(message, transfer), listen(onMessage, onFailure), ref(), unref(), terminate()};
 * `cores()` counts logical cores; `load(options)` loads an instance in this thread, whose
 * check-only twin checks every call before it is sent (errors are then the instance's).
 */
export async function createPoolWith(options, { spawn, cores, load }) {
  const { workers, load: loadOptions, splitCost } = readPoolOptions(options, cores());
  const pool = new Pool(spawn, loadOptions, splitCost);
  await pool.open(workers, load);
  return Object.freeze({
    workers,
    warpAffine: (image, matrix, options) => pool.run('warpAffine', [image, matrix, options]),
    warpPerspective: (image, h, options) => pool.run('warpPerspective', [image, h, options]),
    remap: (image, mapX, mapY, options) => pool.run('remap', [image, mapX, mapY, options]),
    gridSample: (x, grid, options) => pool.run('gridSample', [x, grid, options]),
    multiScaleDeformableAttention: (value, spatialShapes, levelStartIndex, samplingLocations, attentionWeights, options) =>
      pool.run('multiScaleDeformableAttention', [value, spatialShapes, levelStartIndex, samplingLocations, attentionWeights, options]),
    terminate: () => pool.terminate(),
    [FAULT]: (kind) => pool.fault(kind),
  });
}
