// One measurement of issue 45 item 3 (not part of make bench): a deformable-attention block (model_graph.mjs's, RT-DETR's decoder or encoder size) on onnxruntime-node alone, on the split session unfused, or fused; one implementation per process, so that /usr/bin/time -v gives each its own peak RSS.
//
//   node bench/js/attention_fusion.mjs <ort|unfused|fused> <decoder|encoder> [runs=7]
//
// Prints the median and the range of `runs` timed runs after 2 untimed ones, wall and CPU time,
// one thread each (onnxruntime's intraOpNumThreads 1, gridsample's single-thread build).
import * as ort from 'onnxruntime-node';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { deformableAttention, graph, lcg, uniform } from '../../tests/js/lib/model_graph.mjs';
import { encodeModel } from '../../tests/js/lib/onnx_model.mjs';

const BLOCKS = {
  decoder: { levels: [[80, 80], [40, 40], [20, 20]], queries: 300 },
  encoder: { levels: [[80, 80], [40, 40], [20, 20], [10, 10]], queries: 8500 },
};
const [impl, block, runs = '7'] = process.argv.slice(2);
if (!['ort', 'unfused', 'fused'].includes(impl) || !BLOCKS[block]) {
  console.error('usage: node bench/js/attention_fusion.mjs <ort|unfused|fused> <decoder|encoder> [runs]');
  process.exit(2);
}
const { levels, queries } = BLOCKS[block];
const dim = 256;
const S = levels.reduce((a, [h, w]) => a + h * w, 0);
const g = graph();
deformableAttention(g, lcg(8400), { levels, heads: 8, points: 4, dim, queries });
const inputs = [
  { name: 'query', dtype: 'float32', dims: [1, queries, dim] },
  { name: 'reference_points', dtype: 'float32', dims: [1, queries, 1, 2] },
  { name: 'value', dtype: 'float32', dims: [1, S, dim] },
];
const model = encodeModel({ opset: 16, nodes: g.nodes, initializers: g.initializers, inputs, outputs: [{ name: 'output', dtype: 'float32', dims: [1, queries, dim] }] });
const rnd = lcg(1);
const feeds = Object.fromEntries(inputs.map(({ name, dims }) => {
  const n = dims.reduce((a, b) => a * b, 1);
  const data = name === 'reference_points' ? Float32Array.from({ length: n }, () => rnd()) : uniform(rnd, n, 1);
  return [name, new ort.Tensor('float32', data, dims)];
}));

const options = { intraOpNumThreads: 1, interOpNumThreads: 1 };
const session = impl === 'ort'
  ? await ort.InferenceSession.create(model, options)
  : await InferenceSession.create(model, { ort, gridsample: await load({ variant: 'simd' }), placement: 'gridsample', fuseAttention: impl === 'fused', ...options });
// Wall time and the process's CPU time (user + system) of each run: on a shared machine the
// CPU time of a one-thread run is the steadier figure.
const times = [];
const cpu = [];
for (let i = 0; i < Number(runs) + 2; ++i) {
  const [t0, c0] = [performance.now(), process.cpuUsage()];
  await session.run(feeds);
  const c = process.cpuUsage(c0);
  if (i >= 2) {
    times.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
}
times.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
const parts = session.plan ? session.plan().parts.map((p) => Object.entries(p.ops).map(([op, n]) => `${n} ${op}`).join(', ')).join(' | ') : 'one session';
console.log(`${block} ${impl}: median ${times[times.length >> 1].toFixed(2)} ms (min ${times[0].toFixed(2)}, max ${times.at(-1).toFixed(2)}, ${times.length} runs), `
  + `CPU time median ${cpu[cpu.length >> 1].toFixed(2)} ms (min ${cpu[0].toFixed(2)}); ${parts}`);
await session.release();
