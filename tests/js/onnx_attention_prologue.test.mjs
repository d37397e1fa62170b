// gridsample/onnx's fused attention with the arithmetic that makes its locations (onnx/attention_prologue.mjs, onnx/fused_arguments.mjs, src/kernels/api/location_steps.h): D-FINE's reference boxes and Deformable DETR's offset normaliser computed by the fused node bit for bit as onnxruntime computes them, each step's broadcasting against onnxruntime's Mul, Div, Add and Sub on special values, and the values that keep the arithmetic on onnxruntime.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { stepLocations } from '../../js/onnx/fused_arguments.mjs';
import { v2Attention } from './lib/attention_v2_graphs.mjs';
import { deformableAttention, graph, lcg } from './lib/model_graph.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { SPLIT, tensor } from './lib/onnx_session_checks.mjs';

let gs;
before(async () => {
  gs = await load();
});

const LEVELS = [[4, 6], [2, 3], [1, 5]]; // a 1 x W level
const S = LEVELS.reduce((a, [h, w]) => a + h * w, 0);

// The split session's outputs on `feeds` and its one fused node.
async function split(model, feeds) {
  const s = await InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT });
  const out = await s.run(feeds);
  const nodes = s.plan().parts.flatMap((p) => p.nodes).filter((n) => n.fused);
  await s.release();
  assert.equal(nodes.length, 1);
  return { out, fused: nodes[0].fused };
}

// Every element of `got` has the bits of `want`'s (NaN equal to NaN).
function assertSameBits(got, want, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; ++i) {
    if (!Object.is(got[i], want[i]) && !(Number.isNaN(got[i]) && Number.isNaN(want[i]))) assert.fail(`${what} [${i}]: ${got[i]}, onnxruntime's ${want[i]}`);
  }
}

const replacedNames = (fused) => fused.replaced.map((r) => r.name);
const heapTensor = (dims) => gs.tensor('float32', dims);

describe('the fused node computes the locations as onnxruntime does: the same bits as the split where onnxruntime computes them', () => {
  // D-FINE's MSDeformableAttention (attention_v2_graphs.mjs's queryProjections): offsets times
  // each level's 1 / points, times the box's width and height, times 0.5, plus its centre.
  test("D-FINE's reference boxes: Mul by the point scale, by the box size, by 0.5, then Add of the centre", async () => {
    const sizes = { N: 2, Lq: 5, M: 2, D: 4, points: [2, 3, 2], levels: LEVELS, query: { dim: 8, seed: 3 } };
    const locDims = [2, 5, 2, 7, 2];
    const feeds = { value: tensor([2, S, 2, 4], 1), query: tensor([2, 5, 8], 2, -3, 3), reference_points: tensor([2, 5, 1, 4], 3, -0.1, 1.1) };
    const fused = await split(v2Attention(sizes), feeds);
    assert.deepEqual(fused.fused.locationSteps.map((s) => [s.op, s.first]), [['Mul', false], ['Mul', false], ['Mul', false], ['Add', true]]);
    assert.deepEqual(fused.fused.inputs.slice(0, 3), ['value', 'offsets', 'attention_weights']);
    assert.deepEqual(fused.fused.inputs.slice(4), ['reference_wh', fused.fused.locationSteps[2].operand, 'reference_xy']);
    for (const name of ['offsets_per_point/Mul', 'offsets_by_box/Mul', 'offsets_scaled/Mul', 'sampling_locations/Add']) assert.ok(replacedNames(fused.fused).includes(name), name);
    // The locations also a graph output: onnxruntime computes them, the chain is fused all the same.
    const oracle = await split(v2Attention({ ...sizes, alsoOutput: [{ name: 'sampling_locations', dims: locDims }] }), feeds);
    assert.equal(oracle.fused.locationSteps, undefined);
    assert.equal(oracle.fused.inputs[1], 'sampling_locations');
    assertSameBits(fused.out.output.data, oracle.out.output.data, 'output');
    // A step's result read elsewhere (a graph output of its declared dimensions): the steps after it only.
    const partial = await split(v2Attention({ ...sizes, alsoOutput: [{ name: 'offsets_by_box', dims: locDims }] }), feeds);
    assert.equal(partial.fused.inputs[1], 'offsets_by_box');
    assert.deepEqual(partial.fused.locationSteps.map((s) => s.op), ['Mul', 'Add']);
    assertSameBits(partial.out.output.data, oracle.out.output.data, 'output, two steps fused');
  });

  // model_graph.mjs's MSDeformAttn: reference points plus offsets divided by each level's [W, H].
  test("Deformable DETR's offset normaliser: Div by each level's [W, H], then Add of the reference points", async () => {
    const block = (alsoOutput) => {
      const g = graph();
      deformableAttention(g, lcg(5), { levels: LEVELS, heads: 2, points: 3, dim: 8, queries: 9 });
      return encodeModel({
        opset: 16, nodes: g.nodes, initializers: g.initializers,
        inputs: [{ name: 'query', dtype: 'float32', dims: [1, 9, 8] }, { name: 'reference_points', dtype: 'float32', dims: [1, 9, 1, 2] }, { name: 'value', dtype: 'float32', dims: [1, S, 8] }],
        outputs: [{ name: 'output', dtype: 'float32', dims: [1, 9, 8] }, ...alsoOutput],
      });
    };
    const feeds = { query: tensor([1, 9, 8], 4, -3, 3), reference_points: tensor([1, 9, 1, 2], 5, -0.1, 1.1), value: tensor([1, S, 8], 6) };
    const fused = await split(block([]), feeds);
    assert.deepEqual(fused.fused.locationSteps, [{ op: 'Div', operand: 'offset_normalizer', first: false }, { op: 'Add', operand: 'ref', first: true }]);
    const oracle = await split(block([{ name: 'sampling_locations', dtype: 'float32', dims: [1, 9, 2, 3, 3, 2] }]), feeds);
    assert.equal(oracle.fused.locationSteps, undefined);
    assertSameBits(fused.out.output.data, oracle.out.output.data, 'output');
  });
});

describe("stepLocations (the library's, src/kernels/api/location_steps.h): each step broadcast as onnxruntime broadcasts, in float32", () => {
  const SPECIAL = [NaN, Infinity, -Infinity, 0, -0, 1e-40, -1e-45, 1.17549435e-38, 3e38, -3.4e38, 1, -1, 0.1, 3, 1 / 3, 16777217, -2.5e-20];
  const values = (n, seed) => {
    const r = lcg(seed);
    return Float32Array.from({ length: n }, (_, i) => (i % 3 === 0 ? SPECIAL[Math.floor(r() * SPECIAL.length)] : (r() * 2 - 1) * 10 ** Math.floor(r() * 8 - 4)));
  };
  const F = [2, 3, 4, 2];
  // Each op both ways round, every broadcast rank: a scalar, trailing axes, a middle axis of 1, the full shape.
  const STEPS = [
    ['Mul', false, [4, 1]], ['Sub', true, [3, 1, 2]], ['Div', false, []], ['Div', true, F], ['Add', false, [1, 3, 1, 1]],
    ['Sub', false, [2]], ['Add', true, [1, 1, 4, 1]], ['Mul', true, [2, 1, 4, 2]],
  ];

  test('six kinds of step on NaN, infinities, signed zeros, subnormals and values near float32\'s limits: onnxruntime-node\'s bits', async () => {
    const g = graph();
    const operands = STEPS.map(([, , dims], i) => ({ name: `o${i}`, dims, data: values(dims.reduce((a, b) => a * b, 1), 20 + i) }));
    let v = 'offsets';
    const outputs = STEPS.map(([op, first], i) => {
      v = g.node(op, first ? [`o${i}`, v] : [v, `o${i}`], `step${i}`);
      return { name: v, dtype: 'float32', dims: F };
    });
    const model = encodeModel({
      opset: 16, nodes: g.nodes,
      inputs: [{ name: 'offsets', dtype: 'float32', dims: F }, ...operands.map(({ name, dims }) => ({ name, dtype: 'float32', dims }))],
      outputs,
    });
    const offsets = { type: 'float32', dims: F, data: values(48, 10) };
    const session = await ort.InferenceSession.create(model);
    const feeds = { offsets: new ort.Tensor('float32', offsets.data, F) };
    for (const o of operands) feeds[o.name] = new ort.Tensor('float32', o.data, o.dims);
    const results = await session.run(feeds);
    await session.release();
    // After each step, onnxruntime's result of the steps so far.
    const steps = STEPS.map(([op, first], i) => ({ op, operand: `o${i}`, first }));
    const seen = { nan: 0, subnormal: 0, infinite: 0, negativeZero: 0 };
    STEPS.forEach((_, k) => {
      const want = results[`step${k}`].data;
      const got = stepLocations(gs, steps.slice(0, k + 1), offsets, operands.slice(0, k + 1).map((o) => ({ type: 'float32', dims: o.dims, data: o.data })), heapTensor);
      assert.deepEqual(got.dims, F);
      assertSameBits(got.data, want, `after step ${k + 1} (${STEPS[k][0]})`);
      got.dispose();
      for (const x of want) {
        if (Number.isNaN(x)) seen.nan += 1;
        else if (!Number.isFinite(x)) seen.infinite += 1;
        else if (Object.is(x, -0)) seen.negativeZero += 1;
        else if (x !== 0 && Math.abs(x) < 1.1754943508222875e-38) seen.subnormal += 1;
      }
    });
    for (const [kind, count] of Object.entries(seen)) assert.ok(count > 0, `no ${kind} result among the steps' (${JSON.stringify(seen)})`);
    // The offsets are left as they were.
    assertSameBits(offsets.data, values(48, 10), 'offsets');
  });

  test('an operand that does not broadcast into the offsets: a one-line error naming it, the module usable after; empty offsets give empty locations', () => {
    const offsets = { type: 'float32', dims: F, data: values(48, 30) };
    const step = [{ op: 'Mul', operand: 'x', first: false }];
    for (const dims of [[3], [4, 2, 2], [1, 2, 3, 4, 2], [2, 1, 4, 1, 1], new Array(40).fill(1)]) {
      const operand = { type: 'float32', dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)) };
      assert.throws(() => stepLocations(gs, step, offsets, [operand], heapTensor), {
        name: 'RangeError',
        message: dims.length > 32 ? "multiScaleDeformableAttention: operand 1 of the locations' arithmetic has 40 dimensions, more than the offsets'"
          : `multiScaleDeformableAttention: operand 1 of the locations' arithmetic (Mul) is [${dims.join(', ')}], which does not broadcast into the sampling offsets' [2, 3, 4, 2]`,
      });
    }
    assert.throws(() => stepLocations(gs, step, offsets, [{ type: 'float32', dims: [4, 2], data: new Float32Array(7) }], heapTensor), {
      name: 'RangeError', message: "multiScaleDeformableAttention: operand 1 of the locations' arithmetic holds 7 values for dimensions [4, 2]",
    });
    const twice = stepLocations(gs, [{ op: 'Add', operand: 'x', first: true }], offsets, [offsets], heapTensor);
    assertSameBits(twice.data, offsets.data.map((v) => v + v), 'offsets + offsets after the errors');
    twice.dispose();
    const none = { type: 'float32', dims: [2, 0, 4, 2], data: new Float32Array(0) };
    const empty = stepLocations(gs, step, none, [{ type: 'float32', dims: [4, 1], data: new Float32Array(4) }], heapTensor);
    assert.deepEqual([empty.dims, empty.data.length], [[2, 0, 4, 2], 0]);
    empty.dispose();
    assert.throws(() => stepLocations(gs, step, none, [{ type: 'float32', dims: [3], data: new Float32Array(3) }], heapTensor), /is \[3\], which does not broadcast into the sampling offsets' \[2, 0, 4, 2\]$/);
  });
});
