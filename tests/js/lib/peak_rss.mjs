// Run as a child process by onnx_memory.test.mjs: creates a session on a model (onnxruntime-web alone, or gridsample/onnx with a placement), runs it, and prints its peak resident set size.
// node peak_rss.mjs MODEL alone|auto|gridsample|onnxruntime FEEDS.json RUNS
import { readFileSync } from 'node:fs';

import * as ort from 'onnxruntime-web';

import { InferenceSession } from '../../../js/onnx.mjs';

const [model, mode, feedsFile, runs = '4'] = process.argv.slice(2);
ort.env.wasm.numThreads = 1;
const feeds = Object.fromEntries(Object.entries(JSON.parse(readFileSync(feedsFile, 'utf8')))
  .map(([name, { dims, data }]) => [name, new ort.Tensor('float32', Float32Array.from(data), dims)]));
// The session loads its own gridsample module (no `gridsample` option), as an app does.
const session = mode === 'alone' ? await ort.InferenceSession.create(model) : await InferenceSession.create(model, { ort, placement: mode });
const afterCreate = process.memoryUsage().rss;
for (let i = 0; i < Number(runs); ++i) await session.run(feeds);
const plan = session.plan?.();
console.log(JSON.stringify({
  afterCreate, end: process.memoryUsage().rss, peak: process.resourceUsage().maxRSS * 1024,
  gridsampleNodes: plan?.counts.gridsampleNodes ?? null,
}));
await session.release();
