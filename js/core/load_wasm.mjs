// Loading the wasm: the SIMD128 probe, load() options and the variant they pick, and instantiating an Emscripten glue with a wasm source of ours (node.mjs and browser.mjs say where the files are).
import { createApi } from './api.mjs';
import { describe, detachedError, isDetached, isView } from './messages.mjs';
import { DEFAULT_WARM_UP_MS, warmUp } from './warm_up.mjs';

// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)): valid only where the
// final wasm SIMD128 proposal is implemented (popcnt came last), as in wasm-feature-detect.
// index.cjs holds a copy: CommonJS cannot import this module synchronously.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]);

/** True when this JavaScript engine validates wasm SIMD128 code. */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * True when this engine gives wasm threads: SharedArrayBuffer, Atomics and shared wasm memory,
 * and in a browser a cross-origin isolated page or worker (COOP/COEP headers); always in Node.
 */
export function threadsSupported() {
  if (typeof SharedArrayBuffer !== 'function' || typeof Atomics !== 'object') return false;
  const node = typeof process === 'object' && typeof process.versions?.node === 'string';
  if (!node && globalThis.crossOriginIsolated !== true) return false;
  try {
    return new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
  } catch {
    return false;
  }
}

// Most threads one module runs: the library's kMaxThreads (src/kernels/threads/parallel.h), needed
// before a module is loaded; threads.test.mjs checks it against the library's setThreads.
export const MAX_THREADS = 64;

/** The default thread count for `cores` logical cores: onnxruntime-web's, min(4, ceil(cores / 2)). */
export function defaultThreads(cores) {
  const n = Number.isInteger(cores) && cores > 0 ? cores : 1;
  return Math.min(4, Math.ceil(n / 2));
}

const VARIANTS = ['simd', 'scalar', 'simd-threads'];

// 'a', 'b' or 'c' (`word` 'and': 'a', 'b' and 'c'); 'a' alone.
const listed = (names, word = 'or') => (names.length === 1 ? `'${names[0]}'`
  : `${names.slice(0, -1).map((n) => `'${n}'`).join(', ')} ${word} '${names.at(-1)}'`);

/**
 * Checks load() options and picks the variant; `cores` is the logical core count. `entry`: the
 * builds the entry point has (`variants`) and whether it is gridsample/core (`core`: one thread,
 * its SIMD build the core module, no threaded build; in a browser no scalar build either).
 * @returns {{variant: 'simd'|'scalar'|'simd-threads', threads: number, explicit: boolean, warmUpMs: number, wasmUrl?: string|URL|Function, wasmBinary?: any, wasmModule?: any}}
 */
function readLoadOptions(options, cores, { core = false, variants: builds = VARIANTS } = {}) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`load: options: expected an object, got ${describe(options)}`);
  }
  const known = ['variant', 'numThreads', 'wasmUrl', 'wasmBinary', 'wasmModule', 'warmUp'];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`load: options.${key}: unknown option; expected ${known.join(', ')}`);
    }
  }
  const { variant = 'auto', numThreads, wasmUrl, wasmBinary, wasmModule, warmUp: warm = true } = options;
  if (numThreads !== undefined && typeof numThreads !== 'number') {
    throw new TypeError(`load: options.numThreads: expected an integer from 1 to ${MAX_THREADS}, got ${describe(numThreads)}`);
  }
  if (numThreads !== undefined && !(Number.isInteger(numThreads) && numThreads >= 1 && numThreads <= MAX_THREADS)) {
    throw new RangeError(`load: options.numThreads: expected an integer from 1 to ${MAX_THREADS}, got ${describe(numThreads)}`);
  }
  if (typeof warm !== 'boolean' && typeof warm !== 'number') {
    throw new TypeError(`load: options.warmUp: expected true, false or a number of milliseconds, got ${describe(warm)}`);
  }
  if (typeof warm === 'number' && !(warm >= 0 && warm <= 10000)) {
    throw new RangeError(`load: options.warmUp: expected milliseconds from 0 to 10000, got ${describe(warm)}`);
  }
  const variants = listed([...builds, 'auto']);
  // What gridsample/core lacks, said where it is asked for.
  const coreHas = `gridsample/core has only its ${listed(builds, 'and')} build${builds.length > 1 ? 's' : ''} here, on one thread; import 'gridsample' for the others`;
  if (typeof variant !== 'string') {
    throw new TypeError(`load: options.variant: expected ${variants}, got ${describe(variant)}`);
  }
  if (![...builds, 'auto'].includes(variant)) {
    throw new RangeError(`load: options.variant: expected ${variants}, got ${describe(variant)}${core ? ` (${coreHas})` : ''}`);
  }
  if (core && numThreads > 1) {
    throw new RangeError(`load: options.numThreads: ${numThreads} threads asked for, but ${coreHas}`);
  }
  const given = [wasmUrl, wasmBinary, wasmModule].filter((v) => v !== undefined).length;
  if (given > 1) {
    throw new TypeError('load: options: give at most one of wasmUrl, wasmBinary and wasmModule');
  }
  if (wasmUrl !== undefined && typeof wasmUrl !== 'string' && !(wasmUrl instanceof URL) &&
      typeof wasmUrl !== 'function') {
    throw new TypeError(`load: options.wasmUrl: expected a string, a URL or a function (variant) => URL, got ${describe(wasmUrl)}`);
  }
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer) && !isView(wasmBinary) &&
      !(typeof SharedArrayBuffer === 'function' && wasmBinary instanceof SharedArrayBuffer)) {
    throw new TypeError(`load: options.wasmBinary: expected an ArrayBuffer or a Uint8Array, got ${describe(wasmBinary)}`);
  }
  if (wasmBinary !== undefined && isDetached(isView(wasmBinary) ? wasmBinary.buffer : wasmBinary)) {
    throw detachedError('load', 'options.wasmBinary');
  }
  if (wasmModule !== undefined && !(wasmModule instanceof WebAssembly.Module)) {
    throw new TypeError(`load: options.wasmModule: expected a WebAssembly.Module, got ${describe(wasmModule)}`);
  }
  const simd = simdSupported();
  if ((variant === 'simd' || variant === 'simd-threads') && !simd) {
    throw new RangeError(`load: options.variant: '${variant}' was asked for but this engine has no wasm SIMD128; use 'scalar' or 'auto'`);
  }
  const threadsOk = threadsSupported();
  if (variant === 'simd-threads' && !threadsOk) {
    throw new RangeError("load: options.variant: 'simd-threads' was asked for but wasm threads are not available here (a browser gives them only to cross-origin isolated pages: COOP/COEP headers); use 'simd' or 'auto'");
  }
  if (numThreads > 1 && (variant === 'simd' || variant === 'scalar')) {
    throw new RangeError(`load: options.numThreads: ${numThreads} threads need variant 'simd-threads' or 'auto', not '${variant}'`);
  }
  // 'auto' takes threads where the engine gives them, more than one is wanted, and the .wasm is
  // looked up by variant (a fixed URL, bytes or module are of one build, which we cannot tell).
  const threads = core ? 1 : numThreads ?? defaultThreads(cores);
  const lookedUp = wasmBinary === undefined && wasmModule === undefined &&
    (wasmUrl === undefined || typeof wasmUrl === 'function');
  const chosen = variant !== 'auto' ? variant
    : simd && threadsOk && threads > 1 && lookedUp ? 'simd-threads' : simd ? 'simd' : 'scalar';
  if (!builds.includes(chosen)) {
    throw new RangeError(`load: this engine has no wasm SIMD128, and ${coreHas}`);
  }
  return {
    variant: chosen,
    threads: chosen === 'simd-threads' ? threads : 1,
    explicit: variant !== 'auto',
    warmUpMs: warm === true ? DEFAULT_WARM_UP_MS : Number(warm),
    wasmUrl, wasmBinary, wasmModule,
  };
}

/** The URL that options.wasmUrl (a URL or a function of the variant) gives for `variant`. */
function resolveWasmUrl(wasmUrl, variant) {
  if (typeof wasmUrl !== 'function') return wasmUrl;
  const url = wasmUrl(variant);
  if (typeof url !== 'string' && !(url instanceof URL)) {
    throw new TypeError(`load: options.wasmUrl('${variant}'): expected the function to return a string or a URL, got ${describe(url)}`);
  }
  return url;
}

/**
 * Calls `fail` when a pthread worker of the threaded glue reports an error while the module
 * loads (e.g. its script is missing from a bundle or a server): the glue would wait for that
 * worker forever. Returns a function that stops watching.
 */
function watchPthreadWorkers(Module, fail) {
  const workers = Module.PThread ? [...Module.PThread.unusedWorkers] : [];
  const onError = (e) => {
    // Ours, not the page's: the glue's own handler (added later) would rethrow it as uncaught.
    if (typeof e?.preventDefault === 'function') e.preventDefault();
    if (typeof e?.stopImmediatePropagation === 'function') e.stopImmediatePropagation();
    fail(new Error(`a pthread worker failed to start (${e?.message || 'its script could not be loaded'})`));
  };
  for (const worker of workers) {
    if (typeof worker.addEventListener === 'function') worker.addEventListener('error', onError);
    else worker.on?.('error', onError);
  }
  return () => {
    for (const worker of workers) {
      if (typeof worker.removeEventListener === 'function') worker.removeEventListener('error', onError);
      else worker.off?.('error', onError);
    }
  };
}

/**
 * Runs an Emscripten factory with a wasm source we instantiate ourselves, so that every
 * environment (Node, page, classic or module worker) takes the same path and failures reject.
 * `source` is {module}, {bytes} or {url, fetch}; `what` names the source in errors.
 */
async function instantiate(factory, source, what, moduleArgs) {
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  // The glue's Module is this object: on failure its pthread workers (started before the
  // wasm arrives) are ended through it.
  const moduleObject = {
    ...moduleArgs,
    instantiateWasm(imports, receiveInstance) {
      (async () => {
        if (source.module) return [await WebAssembly.instantiate(source.module, imports), source.module];
        if (source.bytes) {
          const r = await WebAssembly.instantiate(source.bytes, imports);
          return [r.instance, r.module];
        }
        const response = await source.fetch(source.url);
        if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
        if (typeof WebAssembly.instantiateStreaming === 'function') {
          try {
            const r = await WebAssembly.instantiateStreaming(response.clone(), imports);
            return [r.instance, r.module];
          } catch (e) {
            // A server without the application/wasm MIME type: compile from the bytes.
            if (!(e instanceof TypeError)) throw e;
          }
        }
        const r = await WebAssembly.instantiate(await response.arrayBuffer(), imports);
        return [r.instance, r.module];
      })().then(([instance, module]) => {
        // Another wasm module would fail inside the glue with an obscure message. (The
        // threaded build imports its shared memory, the others export theirs.)
        const memory = (e) => e.kind === 'memory';
        if (!WebAssembly.Module.exports(module).some(memory) && !WebAssembly.Module.imports(module).some(memory)) {
          throw new TypeError('it is not a gridsample wasm module (it has no memory)');
        }
        try {
          receiveInstance(instance, module);
        } catch (e) {
          throw new TypeError(`it is not the gridsample wasm this glue was built with (${e && e.message ? e.message : e})`, { cause: e });
        }
      }).catch(fail);
      return {}; // exports arrive asynchronously through receiveInstance
    },
  };
  const ready = factory(moduleObject);
  const stopWatching = watchPthreadWorkers(moduleObject, fail);
  try {
    const Module = await Promise.race([ready, failed]);
    if (typeof Module.prepare !== 'function' || typeof Module._gridsample_call !== 'function' || typeof Module.allocate !== 'function' ||
        typeof Module.takeLastError !== 'function' || typeof Module.gridSampleOutputShape !== 'function') {
      throw new TypeError('it is not the gridsample wasm this glue was built with (its functions are missing)');
    }
    return Module;
  } catch (e) {
    moduleObject.PThread?.terminateAllThreads();
    const error = new Error(`load: could not instantiate the gridsample wasm from ${what}: ${e && e.message ? e.message : e}`);
    error.cause = e;
    throw error;
  } finally {
    stopWatching();
  }
}

/**
 * Lets a Node process exit while the module's pthread workers wait for work (worker_threads
 * keep the process alive otherwise); browsers' workers have no unref and end with the page.
 */
function releaseWorkers(Module) {
  const pthread = Module.PThread;
  if (!pthread) return;
  for (const worker of [...pthread.unusedWorkers, ...pthread.runningWorkers]) {
    if (typeof worker.unref === 'function') worker.unref();
  }
}

/**
 * load() of an entry point: `glue(variant)` is (a promise of) the Emscripten factory,
 * `wasmUrl(variant)` the default URL of the .wasm, `sourceOf(url)` turns a URL into an
 * instantiate() source, `cores()` counts logical cores, and `threadArgs()` gives the threaded
 * glue's extra module arguments (where its worker script is); `newBuffer(bytes)`, where given,
 * allocates the ArrayBuffers of results, which are overwritten whole (see WasmHeap). `core`: the
 * core entry (gridsample/core), whose 'simd' variant is the core module and whose API object
 * has the core's functions alone, whichever module it loads (its 'scalar' one is the full
 * build); `variants`, the builds the entry has (default all three).
 */
export async function loadWith(options, platform) {
  const { glue, wasmUrl: defaultUrl, sourceOf, cores, threadArgs = () => ({}), newBuffer, core = false, variants } = platform;
  const { variant, threads, explicit, warmUpMs, wasmUrl, wasmBinary, wasmModule } = readLoadOptions(options, cores(), { core, variants });
  let source;
  let what;
  if (wasmModule) {
    source = { module: wasmModule };
    what = 'options.wasmModule';
  } else if (wasmBinary) {
    source = { bytes: wasmBinary };
    what = 'options.wasmBinary';
  } else {
    const url = resolveWasmUrl(wasmUrl, variant) ?? defaultUrl(variant);
    what = String(url);
    source = await sourceOf(url);
  }
  const threaded = variant === 'simd-threads';
  let Module;
  try {
    Module = await instantiate(await glue(variant), source, what,
      threaded ? { gridsampleThreads: threads, ...threadArgs() } : {});
  } catch (e) {
    // 'auto' chose threads (e.g. a bundle without the pthread worker script): one thread then.
    if (!threaded || explicit) throw e;
    return loadWith({ ...options, numThreads: 1 }, platform);
  }
  if (threaded) releaseWorkers(Module);
  const api = createApi(Module, variant, { explicit, what, threads, newBuffer, core });
  warmUp(api, warmUpMs);
  return api;
}
