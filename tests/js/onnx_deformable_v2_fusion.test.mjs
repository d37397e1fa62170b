// gridsample/onnx's fusion of RT-DETRv2's and D-FINE's deformable_attention_core_func_v2 (issue 45 item 3): each method as torch.onnx exports it runs as one fused node with the options it proves (pointsPerLevel, sampling), equal to onnxruntime running the chain; near misses stay unfused and equal.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { randomFeeds } from '../../js/onnx/timing.mjs';
import { v2Attention, V2_MISSES } from './lib/attention_v2_graphs.mjs';
import { DECODER_LEVELS, dfineBlock } from './lib/deformable_blocks.mjs';
import { graph } from './lib/model_graph.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { assertClose, SPLIT, tensor } from './lib/onnx_session_checks.mjs';

// 'default': as the rank-6 chain (onnx_deformable_fusion.test.mjs), float32 rounding of the
// coordinates and another order of the sum, well under 1e-5.
const ATOL = 1e-5;

let gs;
before(async () => {
  gs = await load();
});

const LEVELS = [[4, 6], [2, 3], [1, 5]]; // a 1 x W level, and levels wider than high
const SIZES = { N: 2, Lq: 5, M: 2, D: 3, points: [3, 6, 3], levels: LEVELS };
const S = LEVELS.reduce((a, [h, w]) => a + h * w, 0);
const Pt = SIZES.points.reduce((a, b) => a + b, 0);

// Locations in [-0.2, 1.2): some outside [0, 1] (padding, and the clamp of 'discrete').
const feeds = (seed) => ({
  value: tensor([SIZES.N, S, SIZES.M, SIZES.D], seed),
  sampling_locations: tensor([SIZES.N, SIZES.Lq, SIZES.M, Pt, 2], seed + 1, -0.2, 1.2),
  attention_logits: tensor([SIZES.N, SIZES.Lq, SIZES.M, Pt], seed + 2, -2, 2),
});

// The split session (placement 'gridsample') and onnxruntime alone (onnxruntime-node, or
// `module`) on the same model and feeds.
async function both(model, f, module = ort) {
  const s = await InferenceSession.create(model, { ort: module, gridsample: gs, ...SPLIT });
  const whole = await module.InferenceSession.create(model);
  const pair = [await s.run(f), await whole.run(f)];
  const plan = s.plan();
  await Promise.all([s.release(), whole.release()]);
  return { plan, pair };
}

const fusedOf = (plan) => plan.parts.flatMap((p) => p.nodes).filter((n) => n.fused);

describe("method 'default' (num_points_list): fused with pointsPerLevel, equal to onnxruntime", () => {
  for (const value of ['dfine', 'rtdetrv2']) {
    test(`${value}'s value layout`, async () => {
      const { plan, pair } = await both(v2Attention({ ...SIZES, value }), feeds(10));
      assert.deepEqual(plan.attention, { fused: 1, notFused: [] });
      const [f] = fusedOf(plan);
      assert.deepEqual(f.fused.options, { pointsPerLevel: [3, 6, 3] });
      assert.deepEqual([f.fused.levels, f.fused.levelStartIndex], [LEVELS, [0, 24, 30]]);
      assert.deepEqual(f.fused.inputs, ['value', 'sampling_locations', 'attention_weights']);
      // The value's permute and split go with the block: only the softmax is left.
      assert.deepEqual(plan.parts.map((p) => p.ops), [{ Softmax: 1 }, { MultiScaleDeformableAttention: 1 }]);
      assertClose(...pair, ATOL);
    });
  }
});

describe("near misses of method 'default' stay unfused and equal to onnxruntime", () => {
  for (const miss of ['points', 'levels']) {
    test(`${miss}: ${V2_MISSES[miss]}`, async () => {
      const { plan, pair } = await both(v2Attention({ ...SIZES, miss }), feeds(30));
      assert.equal(plan.attention.fused, 0);
      assert.equal(plan.attention.notFused.length, 1);
      assert.match(plan.attention.notFused[0].why, miss === 'points' ? /level 0's points/ : /not the points after/);
      assert.equal(plan.parts.flatMap((p) => p.nodes).filter((n) => n.opType === 'GridSample').length, 3);
      assertClose(...pair, ATOL);
    });
  }
});

// 'discrete': the chain and the fused node round the same float32 products (x * w + 0.5, one
// multiply and one add each, then truncation) and read the same value elements; the outputs
// differ only by the order of the float32 sum over the points (a few ulps).
const DISCRETE_ATOL = 1e-6;

describe("method 'discrete': fused with pointsPerLevel and sampling 'discrete', equal to onnxruntime", () => {
  for (const value of ['dfine', 'rtdetrv2']) {
    test(`${value}'s value layout`, async () => {
      const { plan, pair } = await both(v2Attention({ ...SIZES, value, method: 'discrete' }), feeds(50));
      assert.deepEqual(plan.attention, { fused: 1, notFused: [] });
      const [f] = fusedOf(plan);
      assert.deepEqual(f.fused.options, { pointsPerLevel: [3, 6, 3], sampling: 'discrete' });
      assert.deepEqual([f.fused.levels, f.fused.levelStartIndex], [LEVELS, [0, 24, 30]]);
      const ops = f.fused.replaced.map((r) => r.opType);
      for (const op of ['Cast', 'Clip', 'Gather', 'Split', 'Concat', 'ReduceSum']) assert.ok(ops.includes(op), `${op} replaced`);
      assert.deepEqual(plan.parts.map((p) => p.ops), [{ Softmax: 1 }, { MultiScaleDeformableAttention: 1 }]);
      assertClose(...pair, DISCRETE_ATOL);
    });
  }
});

describe("near misses of method 'discrete' stay unfused and equal to onnxruntime", () => {
  const WHY = { points: /not x \+ y \* 6 of level 0's points/, levels: /not the points after/, rounding: /other than \+ 0\.5/, clamp: /clamped to \[0,2\], not \[0, h - 1\]/ };
  for (const [miss, why] of Object.entries(WHY)) {
    test(`${miss}: ${V2_MISSES[miss]}`, async () => {
      const { plan, pair } = await both(v2Attention({ ...SIZES, method: 'discrete', miss }), feeds(70));
      assert.equal(plan.attention.fused, 0);
      assert.equal(plan.attention.notFused.length, 1);
      assert.match(plan.attention.notFused[0].why, why);
      assertClose(...pair, DISCRETE_ATOL);
    });
  }

  test('a level narrower than high stays unfused (the chain clamps its columns to h - 1 and reads past its rows)', async () => {
    const model = v2Attention({ ...SIZES, levels: [[4, 6], [3, 2], [1, 5]], method: 'discrete' });
    const s = await InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT });
    assert.equal(s.plan().attention.fused, 0);
    assert.match(s.plan().attention.notFused[0].why, /level 1 is 3 x 2, narrower than high/);
    await s.release();
  });
});

describe("the value's split, read by every layer (D-FINE's decoder)", () => {
  test('two layers reading one split: both fused on the value; the split, which neither block takes, is then read by nothing and dropped', async () => {
    const { plan, pair } = await both(v2Attention({ ...SIZES, layers: 2 }), feeds(90));
    assert.deepEqual(plan.attention, { fused: 2, notFused: [] });
    for (const f of fusedOf(plan)) assert.equal(f.fused.inputs[0], 'value');
    assert.deepEqual(plan.parts.map((p) => p.ops), [{ Softmax: 2 }, { MultiScaleDeformableAttention: 2 }]);
    assertClose(...pair, ATOL);
  });
});

describe("D-FINE's decoder block at its real size (issue 45's decoder block, bench row decoder_block_dfine)", () => {
  test('the projections and softmax stay on onnxruntime-web, the rest (the locations\' arithmetic too) is one fused node, equal to onnxruntime-web alone', async () => {
    ortWeb.env.wasm.numThreads = 1;
    const { bytes, inputs } = dfineBlock(DECODER_LEVELS, 300, 'decoder block');
    const f = randomFeeds(ortWeb, inputs.map(({ name, dtype, dims }) => ({ name, type: dtype, shape: dims })), {
      ranges: Object.fromEntries(inputs.map((i) => [i.name, i.range])), seed: 110,
    });
    const { plan, pair } = await both(bytes, f, ortWeb);
    assert.deepEqual(plan.attention, { fused: 1, notFused: [] });
    const [fused] = fusedOf(plan);
    assert.deepEqual([fused.fused.levels, fused.fused.options], [DECODER_LEVELS, { pointsPerLevel: [4, 4, 4] }]);
    assert.deepEqual(plan.parts.map((p) => p.runsOn), ['onnxruntime', 'gridsample']);
    assert.deepEqual(plan.parts[0].ops, { MatMul: 2, Add: 2, Reshape: 2, Unsqueeze: 1, Slice: 2, Softmax: 1 });
    assert.deepEqual(fused.fused.locationSteps.map((st) => st.op), ['Mul', 'Mul', 'Mul', 'Add']);
    assertClose(...pair, ATOL);
  });
});

test('a Concat of lookups (Gather by a computed index, not of a slice of one value) is no attention chain', async () => {
  const g = graph();
  g.f32('table', [4, 3], Array.from({ length: 12 }, (_, i) => i));
  const looked = ['a', 'b'].map((x) => g.node('Gather', ['table', g.node('Add', [`ids_${x}`, g.i64(`one_${x}`, [], [1])], `idx_${x}`)], `row_${x}`, { axis: 0 }));
  g.node('Concat', looked, 'output', { axis: -1 });
  const model = encodeModel({
    opset: 16, nodes: g.nodes, initializers: g.initializers,
    inputs: ['a', 'b'].map((x) => ({ name: `ids_${x}`, dtype: 'int64', dims: [2] })),
    outputs: [{ name: 'output', dtype: 'float32', dims: [2, 6] }],
  });
  const s = await InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT });
  assert.equal(s.plan().attention, undefined);
  await s.release();
});
