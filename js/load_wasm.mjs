// Loading the wasm: the SIMD128 probe, load() options and the variant they pick, and instantiating an Emscripten glue with a wasm source of ours (node.mjs and browser.mjs say where the files are).
import { createApi } from './core.mjs';
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
 * Checks load() options and picks the variant.
 * @returns {{variant: 'simd'|'scalar', explicit: boolean, warmUpMs: number, wasmUrl?: string|URL|Function, wasmBinary?: any, wasmModule?: any}}
 */
function readLoadOptions(options) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`load: options: expected an object, got ${describe(options)}`);
  }
  const known = ['variant', 'wasmUrl', 'wasmBinary', 'wasmModule', 'warmUp'];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`load: options.${key}: unknown option; expected ${known.join(', ')}`);
    }
  }
  const { variant = 'auto', wasmUrl, wasmBinary, wasmModule, warmUp: warm = true } = options;
  if (typeof warm !== 'boolean' && typeof warm !== 'number') {
    throw new TypeError(`load: options.warmUp: expected true, false or a number of milliseconds, got ${describe(warm)}`);
  }
  if (typeof warm === 'number' && !(warm >= 0 && warm <= 10000)) {
    throw new RangeError(`load: options.warmUp: expected milliseconds from 0 to 10000, got ${describe(warm)}`);
  }
  if (typeof variant !== 'string') {
    throw new TypeError(`load: options.variant: expected 'simd', 'scalar' or 'auto', got ${describe(variant)}`);
  }
  if (!['simd', 'scalar', 'auto'].includes(variant)) {
    throw new RangeError(`load: options.variant: expected 'simd', 'scalar' or 'auto', got ${describe(variant)}`);
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
  if (variant === 'simd' && !simd) {
    throw new RangeError("load: options.variant: 'simd' was asked for but this engine has no wasm SIMD128; use 'scalar' or 'auto'");
  }
  return {
    variant: variant === 'auto' ? (simd ? 'simd' : 'scalar') : variant,
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
 * Runs an Emscripten factory with a wasm source we instantiate ourselves, so that every
 * environment (Node, page, classic or module worker) takes the same path and failures reject.
 * `source` is {module}, {bytes} or {url, fetch}; `what` names the source in errors.
 */
async function instantiate(factory, source, what) {
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  const ready = factory({
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
        // Another wasm module would fail inside the glue with an obscure message.
        if (!WebAssembly.Module.exports(module).some((e) => e.kind === 'memory')) {
          throw new TypeError('it is not a gridsample wasm module (it exports no memory)');
        }
        try {
          receiveInstance(instance, module);
        } catch (e) {
          throw new TypeError(`it is not the gridsample wasm this glue was built with (${e && e.message ? e.message : e})`, { cause: e });
        }
      }).catch(fail);
      return {}; // exports arrive asynchronously through receiveInstance
    },
  });
  try {
    const Module = await Promise.race([ready, failed]);
    if (typeof Module.gridSample !== 'function' || typeof Module.allocate !== 'function' ||
        typeof Module.takeLastError !== 'function' || typeof Module.gridSampleOutputShape !== 'function') {
      throw new TypeError('it is not the gridsample wasm this glue was built with (its functions are missing)');
    }
    return Module;
  } catch (e) {
    const error = new Error(`load: could not instantiate the gridsample wasm from ${what}: ${e && e.message ? e.message : e}`);
    error.cause = e;
    throw error;
  }
}

/**
 * load() of an entry point: `glue(variant)` is the Emscripten factory, `wasmUrl(variant)` the
 * default URL of the .wasm, and `sourceOf(url)` turns a URL into an instantiate() source.
 */
export async function loadWith(options, { glue, wasmUrl: defaultUrl, sourceOf }) {
  const { variant, explicit, warmUpMs, wasmUrl, wasmBinary, wasmModule } = readLoadOptions(options);
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
  const Module = await instantiate(glue(variant), source, what);
  const api = createApi(Module, variant, { explicit, what });
  warmUp(api, warmUpMs);
  return api;
}
