// Run as a child process by onnx_memory.test.mjs: creates a session on a model (onnxruntime-web or -node alone, or gridsample/onnx with a placement), runs it, and prints its peak resident set size.
// node peak_rss.mjs MODEL alone|auto|gridsample|onnxruntime FEEDS.json|random RUNS [own|caller] [web|node]
// (random: every input uniform in [0, 1] at the model's shapes, made after create(); web or
// node: onnxruntime-web (the default) or onnxruntime-node, on one thread).
// Every session is given the model's bytes, read here and kept (a module's top-level binding), as
// by an app that fetched them. own (the default): the session loads its own gridsample module; caller: it is
// given the caller's module from gridsample's load(), whose wasm heap outlives the session.
import { readFileSync } from 'node:fs';

import { load } from '../../../js/node.mjs';
import { InferenceSession } from '../../../js/onnx.mjs';
import { randomFeeds } from '../../../js/onnx/timing.mjs';

const [model, mode, feedsFile, runs = '4', module = 'own', backend = 'web'] = process.argv.slice(2);
const imported = backend === 'node' ? await import('onnxruntime-node') : await import('onnxruntime-web');
const ort = imported.default?.InferenceSession ? imported.default : imported;
if (backend === 'web') ort.env.wasm.numThreads = 1;
const threads = backend === 'node' ? { intraOpNumThreads: 1, interOpNumThreads: 1 } : {};
const given = feedsFile === 'random' ? null : Object.fromEntries(Object.entries(JSON.parse(readFileSync(feedsFile, 'utf8')))
  .map(([name, { dims, data }]) => [name, new ort.Tensor('float32', Float32Array.from(data), dims)]));
const bytes = readFileSync(model);
const gridsample = module === 'caller' && mode !== 'alone' ? await load() : undefined;
const session = mode === 'alone' ? await ort.InferenceSession.create(bytes, threads) : await InferenceSession.create(bytes, { ort, placement: mode, gridsample, ...threads });
const afterCreate = process.memoryUsage().rss;
const ranges = Object.fromEntries(session.inputNames.map((name) => [name, [0, 1]]));
const feeds = given ?? randomFeeds(ort, session.inputMetadata, { ranges });
for (let i = 0; i < Number(runs); ++i) await session.run(feeds);
const plan = session.plan?.();
console.log(JSON.stringify({
  afterCreate, end: process.memoryUsage().rss, peak: process.resourceUsage().maxRSS * 1024,
  gridsampleNodes: plan?.counts.gridsampleNodes ?? null, fusedAttention: plan?.attention?.fused ?? 0,
}));
await session.release();
