// Multi-scale deformable attention through gridsample/onnx on onnxruntime-web's WebGPU provider in Node (SwiftShader; issue 45 item 4): the fused chain and mmdeploy's node run on gridsample/webgpu, equal to onnxruntime-web's wasm provider running the chain and to the split on wasm, with nothing read back in a run (GPUBuffer.mapAsync counted).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { compareOutputs, randomFeeds } from '../../js/onnx/timing.mjs';
import { mmdeployAttention, torchAttention } from './lib/attention_graphs.mjs';
import { deformableAttention, graph, lcg } from './lib/model_graph.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { countReadbacks, ortWebGpu } from './lib/ort_webgpu.mjs';

const { skip, ort } = await ortWebGpu('ort.webgpu.mjs');
const gs = await load({ variant: 'simd' });

// Float32 rounding: the fused kernels sample at x * W - 0.5 where the chain unnormalizes
// 2 * x - 1, and sum the L * P products in another order (onnx_deformable_fusion.test.mjs);
// onnxruntime's WebGPU and wasm kernels round the block's matrix products their own ways.
// Measured on SwiftShader: at most 6e-8 against either.
const ATOL = 1e-5;

const LEVELS = [[4, 6], [2, 3], [1, 5]]; // a 1 x W level
const S = LEVELS.reduce((a, [h, w]) => a + h * w, 0);
const SIZES = { Lq: 7, M: 2, D: 3, P: 3, levels: LEVELS };
const LOCATIONS = { sampling_locations: [-0.2, 1.2], reference_points: [-0.1, 1.1] }; // some outside [0, 1]

// model_graph.mjs's RT-DETR decoder block (N = 1): projections, the chain, the output projection.
// The attention's result, [1, 9, 6], holds 54 values, no multiple of 4, and onnxruntime's WebGPU
// nodes read it (buffers in whole 16-byte blocks: webgpu/tensors.mjs allocationBytes).
function rtdetrBlock(Q = 9, dim = 6) {
  const g = graph();
  deformableAttention(g, lcg(5), { levels: LEVELS, heads: 2, points: 3, dim, queries: Q });
  return encodeModel({
    opset: 16, nodes: g.nodes, initializers: g.initializers,
    inputs: [{ name: 'query', dtype: 'float32', dims: [1, Q, dim] }, { name: 'reference_points', dtype: 'float32', dims: [1, Q, 1, 2] }, { name: 'value', dtype: 'float32', dims: [1, S, dim] }],
    outputs: [{ name: 'output', dtype: 'float32', dims: [1, Q, dim] }],
  });
}

const onCpu = async (out) => Object.fromEntries(await Promise.all(Object.entries(out).map(async ([k, t]) => [k, { type: t.type, dims: t.dims, data: await t.getData() }])));

function assertClose(got, want, what) {
  for (const [name, { maxAbsDiff }] of Object.entries(compareOutputs(got, want))) {
    assert.ok(maxAbsDiff <= ATOL, `${what}: ${name}: max abs diff ${maxAbsDiff} > ${ATOL}`);
  }
}

const attentionNodes = (s) => s.plan().parts.flatMap((p) => p.nodes.filter((n) => n.fused || n.domain === 'mmdeploy').map((n) => ({ ...n, backend: p.backend })));
const table = [];

// The split on WebGPU (outputs on the GPU) and on wasm, and onnxruntime-web's wasm provider on
// `oracle` (the chain, unfused): every run of `runs` (feeds) after one to compile the shaders
// equal within ATOL, with no readback on WebGPU. `then(output)` maps the oracle's outputs.
async function check(what, model, runs, { oracle = model, then = (o) => o } = {}) {
  const options = { ort, gridsample: gs, executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' };
  const gpu = await InferenceSession.create(model, options);
  const wasm = await InferenceSession.create(model, { ort, gridsample: gs, executionProviders: ['wasm'], placement: 'gridsample' });
  const alone = await ort.InferenceSession.create(oracle, { executionProviders: ['wasm'] });
  const nodes = attentionNodes(gpu);
  assert.equal(nodes.length, 1, `${what}: one attention node`);
  assert.deepEqual([nodes[0].placement.runsOn, nodes[0].backend], ['gridsample', 'webgpu'], `${what}: ${JSON.stringify(nodes[0])}`);
  assert.ok(!gpu.plan().parts.some((p) => p.nodes.some((n) => n.opType === 'GridSample')), `${what}: no GridSample left`);
  assert.equal(attentionNodes(wasm)[0].backend, 'wasm');
  await gpu.run(runs[0]); // pipelines compiled
  const counts = [];
  for (const feeds of runs) {
    const [got, count] = await countReadbacks(() => gpu.run(feeds));
    for (const t of Object.values(got)) assert.equal(t.location, 'gpu-buffer');
    const ours = await onCpu(got);
    assertClose(ours, await wasm.run(feeds), `${what}: WebGPU split against the wasm split`);
    assertClose(ours, then(await alone.run(feeds)), `${what}: WebGPU split against onnxruntime-web's wasm provider on the chain`);
    for (const t of Object.values(got)) t.dispose();
    counts.push(count);
  }
  assert.deepEqual(counts, runs.map(() => 0), `${what}: readbacks per run on WebGPU`);
  table.push(`${what}: readbacks per run ${counts.join(', ')}`);
  const plan = gpu.plan();
  await Promise.all([gpu.release(), wasm.release(), alone.release()]);
  return plan;
}

describe('multi-scale deformable attention on gridsample/webgpu in the split session', { skip }, () => {
  test("model_graph.mjs's RT-DETR block: the chain fused, its result a value between onnxruntime parts", async () => {
    const model = rtdetrBlock();
    const feeds = (seed) => randomFeeds(ort, [
      { name: 'query', type: 'float32', shape: [1, 9, 6] }, { name: 'reference_points', type: 'float32', shape: [1, 9, 1, 2] }, { name: 'value', type: 'float32', shape: [1, S, 6] },
    ], { ranges: LOCATIONS, seed });
    const plan = await check('RT-DETR block', model, [feeds(1), feeds(2)]);
    assert.deepEqual(plan.attention, { fused: 1, notFused: [] });
    // On WebGPU onnxruntime computes the locations (the fused node reads its inputs in place; on
    // wasm it takes their arithmetic: onnx_attention_prologue.test.mjs).
    const [node] = plan.parts.flatMap((p) => p.nodes).filter((n) => n.fused);
    assert.deepEqual([node.fused.inputs[1], node.fused.locationSteps], ['sampling_locations', undefined]);
    assert.deepEqual(plan.parts.map((p) => [p.runsOn, p.backend ?? null]), [['onnxruntime', null], ['gridsample', 'webgpu'], ['onnxruntime', null]]);
  });

  test("transformers' chain (dynamic shapes): fused, its result a graph output on the GPU, remade when the batch changes", async () => {
    const model = torchAttention({ ...SIZES, shapes: 'dynamic' });
    const feeds = (N, Lq, seed) => randomFeeds(ort, [
      { name: 'value', type: 'float32', shape: [N, S, 2, 3] },
      { name: 'sampling_locations', type: 'float32', shape: [N, Lq, 2, 3, 3, 2] },
      { name: 'attention_logits', type: 'float32', shape: [N, Lq, 2, 9] },
    ], { ranges: LOCATIONS, seed });
    const plan = await check("transformers' chain", model, [feeds(2, 7, 3), feeds(1, 4, 4)]);
    assert.deepEqual(plan.parts.map((p) => p.ops), [{ Softmax: 1 }, { MultiScaleDeformableAttention: 1 }]);
  });

  test("mmdeploy's node: on the GPU between onnxruntime parts, equal to the chain on the same data", async () => {
    // Its result [1, 7, 6] (42 values, no multiple of 4) is read by onnxruntime's Relu, as vec4s:
    // with our buffers not rounded to 16 bytes (allocationBytes) its last values came out wrong.
    const sizes = { ...SIZES, N: 1 };
    const feeds = (seed) => randomFeeds(ort, [
      { name: 'value', type: 'float32', shape: [1, S, 2, 3] },
      { name: 'sampling_locations', type: 'float32', shape: [1, 7, 2, 3, 3, 2] },
      { name: 'attention_logits', type: 'float32', shape: [1, 7, 2, 9] },
    ], { ranges: LOCATIONS, seed });
    // mmdeploy's model applies a Relu to the attention's result.
    const relu = ({ output }) => ({ output: new ort.Tensor('float32', output.data.map((v) => Math.max(v, 0)), output.dims) });
    await check("mmdeploy's node", mmdeployAttention(sizes), [feeds(5), feeds(6)], { oracle: torchAttention({ ...sizes, shapes: 'dynamic' }), then: relu });
  });

  test('readbacks per run', () => {
    console.log(table.join('\n'));
    assert.equal(table.length, 3);
  });
});
