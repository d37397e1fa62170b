// gridsample/onnx's fusion of multi-scale deformable attention (onnx/fuse_attention.mjs, issue 45 item 3): the chains exporters write run as one fused node where the proof holds, equal to onnxruntime running the chain; near misses stay unfused; mmdeploy's node runs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { MISSES, mmdeployAttention, torchAttention } from './lib/attention_graphs.mjs';
import { deformableAttention, graph, lcg } from './lib/model_graph.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { assertClose, SPLIT, tensor } from './lib/onnx_session_checks.mjs';

// The fused node samples at x * W - 0.5 where the chain computes 2 * x - 1 and GridSample
// unnormalizes it, each rounded in float32, and sums the L * P products in another order:
// outputs of magnitude up to 1 (values in [-1, 1), weights a softmax) differ by a few float32
// ulps of the coordinates times the values' slope, well under 1e-5.
const ATOL = 1e-5;

let gs;
before(async () => {
  gs = await load();
});

const LEVELS = [[4, 6], [2, 3], [1, 5]]; // a 1 x W level
const SIZES = { Lq: 7, M: 2, D: 3, P: 3, levels: LEVELS };
const S = (levels, extra = 0) => levels.reduce((a, [h, w]) => a + h * w, 0) + extra;

// Feeds of torchAttention / mmdeployAttention: locations in [-0.2, 1.2) (some outside [0, 1]).
function feeds({ N, Lq, M, D, P, levels }, seed, extraRows = 0) {
  const L = levels.length;
  return {
    value: tensor([N, S(levels, extraRows), M, D], seed),
    sampling_locations: tensor([N, Lq, M, L, P, 2], seed + 1, -0.2, 1.2),
    attention_logits: tensor([N, Lq, M, L * P], seed + 2, -2, 2),
  };
}

const fusedNodes = (s) => s.plan().parts.flatMap((p) => p.nodes).filter((n) => n.fused);

// The split session (placement 'gridsample') and onnxruntime alone on the same model and feeds.
async function both(model, runs) {
  const s = await InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT });
  const whole = await ort.InferenceSession.create(model);
  const pairs = [];
  for (const f of runs) pairs.push([await s.run(f), await whole.run(f)]);
  const plan = s.plan();
  await Promise.all([s.release(), whole.release()]);
  return { plan, pairs };
}

describe('fused: equal to onnxruntime running the chain', () => {
  test("model_graph.mjs's RT-DETR block (N = 1): one fused node in place of the chain", async () => {
    const g = graph();
    const [Q, dim] = [9, 8];
    deformableAttention(g, lcg(5), { levels: LEVELS, heads: 2, points: 3, dim, queries: Q });
    const model = encodeModel({
      opset: 16, nodes: g.nodes, initializers: g.initializers,
      inputs: [{ name: 'query', dtype: 'float32', dims: [1, Q, dim] }, { name: 'reference_points', dtype: 'float32', dims: [1, Q, 1, 2] }, { name: 'value', dtype: 'float32', dims: [1, S(LEVELS), dim] }],
      outputs: [{ name: 'output', dtype: 'float32', dims: [1, Q, dim] }],
    });
    const f = { query: tensor([1, Q, dim], 1), reference_points: tensor([1, Q, 1, 2], 2, -0.1, 1.1), value: tensor([1, S(LEVELS), dim], 3) };
    const { plan, pairs } = await both(model, [f]);
    const fused = plan.parts.flatMap((p) => p.nodes).filter((n) => n.fused);
    assert.equal(fused.length, 1);
    assert.deepEqual(plan.attention, { fused: 1, notFused: [] });
    assert.equal(fused[0].opType, 'MultiScaleDeformableAttention');
    assert.deepEqual(fused[0].fused.levels, LEVELS);
    assert.deepEqual(fused[0].fused.levelStartIndex, [0, 24, 30]);
    // The locations' arithmetic (offsets / [W, H] + reference points) goes with it (onnx_attention_prologue.test.mjs).
    assert.deepEqual(fused[0].fused.inputs, ['value_heads', 'offsets', 'attn_softmax', 'offset_normalizer', 'ref']);
    const ops = fused[0].fused.replaced.map((r) => r.opType);
    assert.equal(ops.filter((op) => op === 'GridSample').length, 3);
    for (const op of ['Split', 'Concat', 'Mul', 'ReduceSum', 'Sub']) assert.ok(ops.includes(op), `${op} replaced`);
    assert.ok(!plan.parts.some((p) => p.nodes.some((n) => n.opType === 'GridSample')), 'no GridSample left');
    assertClose(...pairs[0], ATOL);
  });

  for (const [shapes, split, N] of [['constant', 'Split', 2], ['constant', 'Slice', 1], ['dynamic', 'Split', 2]]) {
    test(`transformers' multi_scale_deformable_attention as torch.onnx exports it: ${shapes} shapes, ${split}, N = ${N}`, async () => {
      const model = torchAttention({ ...SIZES, N, shapes, split });
      const runs = shapes === 'dynamic'
        ? [feeds({ ...SIZES, N }, 10), feeds({ ...SIZES, N: 1, Lq: 4 }, 20)] // one session: every batch and query count
        : [feeds({ ...SIZES, N }, 10)];
      const { plan, pairs } = await both(model, runs);
      assert.deepEqual(plan.attention, { fused: 1, notFused: [] });
      // The Shape computations of the reshape targets go with the chain: nothing is left but the softmax.
      assert.deepEqual(plan.parts.map((p) => p.ops), [{ Softmax: 1 }, { MultiScaleDeformableAttention: 1 }]);
      for (const pair of pairs) assertClose(...pair, ATOL);
    });
  }
});

describe('near misses stay unfused and equal to onnxruntime', () => {
  for (const [miss, what] of Object.entries(MISSES)) {
    test(`${miss}: ${what}`, async () => {
      const split = miss === 'gap' ? 'Slice' : 'Split';
      const model = torchAttention({ ...SIZES, N: 1, split, miss });
      const extra = miss === 'gap' || miss === 'split' ? 1 : 0;
      const { plan, pairs } = await both(model, [feeds({ ...SIZES, N: 1 }, 30, extra)]);
      assert.equal(plan.attention.fused, 0);
      assert.equal(plan.attention.notFused.length, 1, 'the chain is reported, with why');
      assert.match(plan.attention.notFused[0].why, /\S/);
      assert.equal(plan.parts.flatMap((p) => p.nodes).filter((n) => n.opType === 'GridSample').length, 3);
      assertClose(...pairs[0], ATOL);
    });
  }

  test('a dynamic-shape chain whose value is transposed wrongly stays unfused', async () => {
    const model = torchAttention({ ...SIZES, N: 2, shapes: 'dynamic', miss: 'weights' });
    const { plan, pairs } = await both(model, [feeds({ ...SIZES, N: 2 }, 40)]);
    assert.equal(plan.attention.fused, 0);
    assertClose(...pairs[0], ATOL);
  });
});

describe('switching the fusion off, and placement', () => {
  test("fuseAttention: false runs the chain's GridSample nodes; placement 'onnxruntime' leaves the chain to onnxruntime", async () => {
    const model = torchAttention({ ...SIZES, N: 1 });
    const f = feeds({ ...SIZES, N: 1 }, 50);
    const whole = await ort.InferenceSession.create(model);
    const want = await whole.run(f);
    const off = await InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT, fuseAttention: false });
    assert.equal(fusedNodes(off).length, 0);
    assert.equal(off.plan().attention, undefined, 'not looked for');
    assertClose(await off.run(f), want, ATOL);
    const left = await InferenceSession.create(model, { ort, gridsample: gs, placement: 'onnxruntime' });
    assert.equal(fusedNodes(left).length, 1, 'fused until the first run');
    assertClose(await left.run(f), want, ATOL);
    assert.equal(fusedNodes(left).length, 0);
    const gridSamples = left.plan().parts.flatMap((p) => p.nodes).filter((n) => n.opType === 'GridSample');
    assert.equal(gridSamples.length, 3);
    for (const n of gridSamples) assert.deepEqual([n.placement.runsOn, /fused attention/.test(n.placement.why)], ['onnxruntime', true]);
    await Promise.all([whole.release(), off.release(), left.release()]);
  });

  test("placement 'auto' times the fused node against its chain on onnxruntime and says so", async () => {
    const model = torchAttention({ ...SIZES, N: 1 });
    const f = feeds({ ...SIZES, N: 1 }, 70);
    const whole = await ort.InferenceSession.create(model);
    const s = await InferenceSession.create(model, { ort, gridsample: gs });
    assertClose(await s.run(f), await whole.run(f), ATOL);
    const plan = s.plan();
    assert.ok(plan.placement.decided && plan.placement.measured);
    const placed = plan.parts.flatMap((p) => p.nodes).filter((n) => n.placement);
    assert.ok(placed.length === 1 || placed.length === 3, `${placed.length} nodes of ours`);
    for (const n of placed) assert.match(n.placement.why, /placement 'auto' timed whole runs/);
    if (placed.length === 3) for (const n of placed) assert.match(n.placement.why, /^its fused attention's placement/);
    assertClose(await s.run(f), await whole.run(f), ATOL);
    await Promise.all([s.release(), whole.release()]);
  });
});

describe("mmdeploy's MMCVMultiScaleDeformableAttention", () => {
  test('runs on gridsample, equal to onnxruntime running the chain on the same data', async () => {
    const sizes = { ...SIZES, N: 2 };
    const f = feeds(sizes, 60);
    const chain = await ort.InferenceSession.create(torchAttention({ ...sizes, shapes: 'dynamic' }));
    const { output } = await chain.run(f);
    const relu = new ort.Tensor('float32', output.data.map((v) => Math.max(v, 0)), output.dims);
    const s = await InferenceSession.create(mmdeployAttention(sizes), { ort, gridsample: gs });
    const node = s.plan().parts.flatMap((p) => p.nodes).find((n) => n.opType === 'MMCVMultiScaleDeformableAttention');
    assert.deepEqual([node.domain, node.placement.runsOn], ['mmdeploy', 'gridsample']);
    assertClose(await s.run(f), { output: relu }, ATOL);
    assert.match(node.placement.why ?? s.plan().parts[1].nodes[0].placement.why, /./);
    assert.match(s.plan().parts.flatMap((p) => p.nodes).find((n) => n.domain).placement.why, /onnxruntime has no MMCVMultiScaleDeformableAttention/);
    await Promise.all([chain.release(), s.release()]);
  });
});
