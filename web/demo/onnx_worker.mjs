// The ONNX page's module worker: runs a model's split session (gridsample/onnx with onnxruntime-web) off the main thread and posts its outputs and times back; served as vendor/onnx_worker.mjs, bundled by vendor.mjs.
import * as ort from 'onnxruntime-web';

import { InferenceSession } from '../../js/onnx.mjs';
import { stats } from '../../js/onnx/timing.mjs';

ort.env.wasm.numThreads = 1; // the page is not cross-origin isolated

// One request: { model: bytes, ep, feeds: { name: { type, dims, data } }, runs, warmup }.
// Resolves to { outputs: { name: { type, dims, data } }, split: { median, p90, runs } }.
async function runSplit({ model, ep, feeds, runs, warmup }) {
  // Every node on gridsample, as the page's own check runs it (placement 'auto' could choose
  // differently in each).
  const session = await InferenceSession.create(model, { ort, executionProviders: [ep], placement: 'gridsample' });
  try {
    const tensors = Object.fromEntries(Object.entries(feeds).map(([name, t]) => [name, new ort.Tensor(t.type, t.data, t.dims)]));
    const ms = [];
    let out;
    for (let i = -warmup; i < runs; ++i) {
      const t0 = performance.now();
      out = await session.run(tensors);
      if (i >= 0) ms.push(performance.now() - t0);
    }
    const outputs = Object.fromEntries(Object.entries(out).map(([name, t]) => [name, { type: t.type, dims: [...t.dims], data: t.data }]));
    return { outputs, split: stats(ms) };
  } finally {
    await session.release();
  }
}

self.onmessage = async ({ data }) => {
  try {
    self.postMessage(await runSplit(data));
  } catch (e) {
    self.postMessage({ error: String(e?.message ?? e).trim().split('\n')[0] });
  }
};
