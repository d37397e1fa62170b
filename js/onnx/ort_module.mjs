// An onnxruntime-shaped module around the caller's onnxruntime whose InferenceSession.create makes gridsample's split session: what gridsample/ort and gridsample/transformers hand to code written for onnxruntime (transformers.js).
import { InferenceSession as SplitSession } from '../onnx.mjs';

const SHAPED = Symbol.for('gridsample.ortModule');

// transformers.js points onnxruntime-web at a CDN when nothing has set `env.wasm.wasmPaths`:
// 3.x at its own dist/ folder (the files of the onnxruntime-web it pins, so a newer
// onnxruntime-web finds no .mjs of its own there), 4.x at onnxruntime-web@<version>/dist/.
// Either way the installed onnxruntime-web's own files are the ones that match it, and they
// need no network: such a setting is cleared, so that onnxruntime-web loads the files beside
// its module (which bundlers copy). Any other setting is the caller's and is kept.
const TRANSFORMERS_CDN = /^https:\/\/cdn\.jsdelivr\.net\/npm\/(@huggingface\/transformers|onnxruntime-web)@[^/]+\/dist\//;

/** Whether `wasmPaths` (a prefix, or `{ mjs, wasm }` URLs) is transformers.js's CDN default. */
export function isTransformersCdn(wasmPaths) {
  const urls = typeof wasmPaths === 'string' || wasmPaths instanceof URL ? [wasmPaths] : Object.values(wasmPaths ?? {});
  return urls.length > 0 && urls.every((u) => TRANSFORMERS_CDN.test(String(u)));
}

function installedWasmFiles(env) {
  if (env?.wasm && isTransformersCdn(env.wasm.wasmPaths)) env.wasm.wasmPaths = undefined;
}

// onnxruntime's create(buffer, byteOffset, byteLength?, options?) form, as (bytes, options).
function modelAndOptions(model, rest) {
  if (typeof rest[0] !== 'number') return [model, rest[0]];
  const [offset, length = model.byteLength - offset, options] = typeof rest[1] === 'number' ? rest : [rest[0], undefined, rest[1]];
  return [new Uint8Array(model, offset, length), options];
}

/**
 * The module `ort` (onnxruntime-web's or onnxruntime-node's namespace) with its
 * InferenceSession replaced: `create(model, options)` returns gridsample's split session on
 * `ort` (options.ort is filled in), which also has onnxruntime's `handler.dispose()` (its
 * `release()`). Everything else (Tensor, env, ...) is `ort`'s own. Given a module this function
 * made, returns it as it is.
 */
export function ortModule(ort) {
  if (ort?.[SHAPED]) return ort;
  const base = ort?.default?.InferenceSession ? { ...ort.default, ...ort } : ort;
  class InferenceSession {
    constructor() {
      throw new TypeError('InferenceSession: use await InferenceSession.create(model, options)');
    }

    /** gridsample's split session of `model`, its onnxruntime parts made by `ort`. */
    static async create(model, ...rest) {
      const [bytes, options] = modelAndOptions(model, rest);
      installedWasmFiles(base.env);
      const session = await SplitSession.create(bytes, { ...options, ort: base });
      Object.defineProperty(session, 'handler', { value: Object.freeze({ dispose: () => session.release() }) });
      return session;
    }

    static [Symbol.hasInstance](x) {
      return x instanceof SplitSession;
    }
  }
  const shaped = { ...base, InferenceSession, [SHAPED]: true };
  shaped.default = shaped;
  return Object.freeze(shaped);
}
