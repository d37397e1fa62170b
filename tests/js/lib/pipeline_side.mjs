// Run as a child process by transformers_detr.test.mjs, bench/js/transformers_pipeline.mjs and bench/js/detr_pipeline.mjs: transformers.js 4.x's object-detection pipeline on a model folder, on onnxruntime-web alone or on gridsample/ort (fused or unfused), one thread; prints per call times (wall and CPU), the detections, the plan and the process's peak RSS.
//
//   node pipeline_side.mjs '{"sides":["fused","unfused"],"models":DIR,"model":NAME,"runs":5,"warmup":2}'
//
// transformers.js reads its onnxruntime once, at import, so a process runs either onnxruntime
// alone or gridsample/ort's sides (each a pipeline of its own): `sides` is ['onnxruntime'] or
// some of 'fused' (gridsample/ort as it is: fused attention, placement 'auto') and 'unfused'
// (the split of before the fusion: `fuseAttention: false`, every GridSample on gridsample).
// Options: placement of the fused side ('auto'), threshold (0.5), picture [width, height] of
// tiny_detector.mjs's testPicture ([640, 480]), device 'wasm' (default) or 'webgpu'
// (onnxruntime-web's WebGPU provider in Node, ort_webgpu.mjs: then each call's GPU readbacks are
// counted too).
import { readFile } from 'node:fs/promises';

import { ortModule } from '../../../js/onnx/ort_module.mjs';
import { testPicture } from './tiny_detector.mjs';

const { sides, models, model, runs = 5, warmup = 2, threshold = 0.5, picture = [640, 480], device = 'wasm', placement = 'auto' } = JSON.parse(process.argv[2]);
// The session options of each side, for transformers.js's `session_options`.
const SIDE_OPTIONS = {
  onnxruntime: {},
  fused: { placement },
  unfused: { fuseAttention: false, placement: 'gridsample' },
};
if (!sides.every((s) => SIDE_OPTIONS[s]) || (sides.includes('onnxruntime') && sides.length > 1)) {
  throw new Error(`pipeline_side.mjs: sides ${JSON.stringify(sides)}: onnxruntime alone, or some of fused and unfused`);
}
let ort;
let countReadbacks = async (body) => [await body(), null];
if (device === 'webgpu') {
  const gpu = await import('./ort_webgpu.mjs');
  const loaded = await gpu.ortWebGpu('ort.webgpu.mjs');
  if (loaded.skip) {
    console.log(JSON.stringify({ skip: loaded.skip }));
    process.exit(0);
  }
  ({ ort } = loaded);
  ({ countReadbacks } = gpu);
} else {
  ort = await import(new URL('../node_modules/onnxruntime-web/dist/ort.node.min.mjs', import.meta.url).href);
  ort.env.wasm.numThreads = 1;
}
// transformers.js hands onnxruntime a path in Node, which onnxruntime-web's WebGPU bundle (made
// for browsers) fetches and fails on: alone, it is given the bytes.
const fromPath = (o) => ({ ...o, InferenceSession: { create: async (m, ...rest) => o.InferenceSession.create(typeof m === 'string' ? await readFile(m) : m, ...rest) } });
globalThis[Symbol.for('onnxruntime')] = sides[0] === 'onnxruntime' ? (device === 'webgpu' ? fromPath(ort) : ort) : ortModule(ort);
const { env, pipeline, RawImage } = await import('../node_modules/transformers4/dist/transformers.node.mjs');
env.allowRemoteModels = false;
env.localModelPath = `${models}/`;
// onnxruntime-web's own files, not the CDN transformers.js names (gridsample/ort does this itself).
env.backends.onnx.wasm.wasmPaths = undefined;
env.useWasmCache = false;

const { data, width, height, channels } = testPicture(...picture);
const image = new RawImage(data, width, height, channels);
const executionProviders = [device];
const results = {};
for (const side of sides) {
  const detector = await pipeline('object-detection', model, { dtype: 'fp32', device: 'auto', session_options: { executionProviders, ...SIDE_OPTIONS[side] } });
  const times = [];
  const cpu = [];
  const readbacks = [];
  let detections;
  for (let i = 0; i < runs + warmup; ++i) {
    const [t0, c0] = [performance.now(), process.cpuUsage()];
    const [found, count] = await countReadbacks(() => detector(image, { threshold }));
    if (i >= warmup) {
      times.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      readbacks.push(count);
    }
    detections = found;
  }
  const plan = detector.model.sessions.model.plan?.();
  results[side] = { times, cpu, readbacks, detections, attention: plan?.attention ?? null, counts: plan?.counts ?? null };
  await detector.dispose();
}
console.log(JSON.stringify({ results, peakRss: process.resourceUsage().maxRSS * 1024 }));
