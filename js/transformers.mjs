// gridsample/transformers: importing it, before @huggingface/transformers, makes transformers.js in Node.js and Deno run its models on gridsample's split session over onnxruntime-node.
//
// transformers.js reads one hook once, when it is first imported: an onnxruntime module at
// globalThis[Symbol.for('onnxruntime')]. This module sets it to onnxruntime-node's module with
// gridsample's InferenceSession (ort_module.mjs). With the hook set, transformers.js 3.x and 4.x
// list no devices of their own, so `device: 'cpu'` (their default in Node) is refused:
// pass `device: 'auto'` until that is fixed upstream.
import { createRequire } from 'node:module';

import { ortModule } from './ort_module.mjs';

const HOOK = Symbol.for('onnxruntime');

function onnxruntimeNode() {
  try {
    return createRequire(import.meta.url)('onnxruntime-node');
  } catch (e) {
    if (e?.code !== 'MODULE_NOT_FOUND' || !String(e.message).includes("'onnxruntime-node'")) throw e;
    const error = new Error('gridsample/transformers needs the npm package onnxruntime-node (@huggingface/transformers depends on it): npm install onnxruntime-node', { cause: e });
    error.name = 'MissingPackageError';
    throw error;
  }
}

// A module the JS runtime (or another library) put there first is the onnxruntime to wrap.
const ort = ortModule(globalThis[HOOK] ?? onnxruntimeNode());
globalThis[HOOK] = ort;

/** The module transformers.js now uses: onnxruntime-node's, with gridsample's InferenceSession. */
export default ort;
export const { InferenceSession, Tensor, env } = ort;
