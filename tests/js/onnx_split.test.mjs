// gridsample/onnx on small graphs: how models split, results equal to onnxruntime-node running the whole model, and results that are the caller's own.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { assertClose, QUIET, runsOn, SPLIT, tensor } from './lib/onnx_session_checks.mjs';

let gs;
before(async () => {
  gs = await load();
});

// The split session's outputs against onnxruntime-node's own session on the whole model.
async function assertMatchesOnnxruntime(model, feeds, atol = 1e-5) {
  const split = await InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT });
  const whole = await ort.InferenceSession.create(model);
  const got = await split.run(feeds);
  const want = await whole.run(feeds);
  assert.deepEqual(Object.keys(got), whole.outputNames);
  for (const name of whole.outputNames) {
    assert.ok(got[name] instanceof ort.Tensor, `${name} is an onnxruntime tensor`);
    assert.equal(got[name].type, want[name].type, name);
    assert.deepEqual(got[name].dims, want[name].dims, name);
  }
  assertClose(got, want, atol);
  await whole.release();
  return split;
}

describe('splitting', () => {
  test('a model without GridSample or AffineGrid is one onnxruntime session', async () => {
    const model = encodeModel({
      opset: 20,
      nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }, { op: 'Sigmoid', inputs: ['Y'], outputs: ['Z'] }],
      inputs: [{ name: 'X', dtype: 'float32', dims: ['N', 3] }],
      outputs: [{ name: 'Z', dtype: 'float32', dims: ['N', 3] }],
    });
    const s = await assertMatchesOnnxruntime(model, { X: tensor([2, 3], 1) });
    assert.deepEqual(s.plan().counts, { onnxruntimeSessions: 1, onnxruntimeNodes: 2, gridsampleNodes: 0, unusedNodes: 0 });
    assert.deepEqual(s.inputMetadata, [{ name: 'X', isTensor: true, type: 'float32', shape: ['N', 3] }]);
    await s.run({ X: tensor([4, 3], 2) }, { profile: true });
    assert.equal(s.lastProfile.parts.length, 1);
    await s.release();
  });

  // X -> Relu -> A; GridSample(A, grid) -> B (an output, and read later); Sigmoid(B) -> C;
  // GridSample(C, grid) -> D; Add(D, A) -> E. grid feeds both GridSamples and a Neg node;
  // the initializer k feeds an onnxruntime node and a GridSample (as its X through Mul).
  const CHAIN = {
    opset: 20,
    nodes: [
      { op: 'Relu', inputs: ['X'], outputs: ['A'] },
      { op: 'GridSample', inputs: ['A', 'grid'], outputs: ['B'], attrs: { mode: 'linear', padding_mode: 'border' } },
      { op: 'Sigmoid', inputs: ['B'], outputs: ['C'] },
      { op: 'Neg', inputs: ['grid'], outputs: ['grid_neg'] },
      { op: 'GridSample', inputs: ['C', 'grid_neg'], outputs: ['D'], attrs: { mode: 'cubic', padding_mode: 'reflection', align_corners: 1 } },
      { op: 'Mul', inputs: ['X', 'k'], outputs: ['Xk'] },
      { op: 'GridSample', inputs: ['Xk', 'grid'], outputs: ['F'], attrs: { mode: 'nearest' } },
      { op: 'Add', inputs: ['D', 'A'], outputs: ['E'] },
    ],
    inputs: [{ name: 'X', dtype: 'float32', dims: ['N', 2, 'H', 'W'] }, { name: 'grid', dtype: 'float32', dims: ['N', 'H', 'W', 2] }],
    outputs: [
      { name: 'E', dtype: 'float32', dims: ['N', 2, 'H', 'W'] },
      { name: 'B', dtype: 'float32', dims: ['N', 2, 'H', 'W'] },
      { name: 'F', dtype: 'float32', dims: ['N', 2, 'H', 'W'] },
      { name: 'A', dtype: 'float32', dims: ['N', 2, 'H', 'W'] },
    ],
    initializers: [{ name: 'k', dtype: 'float32', dims: [1], data: new Float32Array([0.5]) }],
  };

  test('shared values, outputs from every kind of part, dynamic dims: equal to onnxruntime', async () => {
    const model = encodeModel(CHAIN);
    const s = await assertMatchesOnnxruntime(model, { X: tensor([1, 2, 5, 7], 3), grid: tensor([1, 5, 7, 2], 4, -1.3, 1.3) }, 3e-5);
    // Another shape through the same session: dynamic dimensions stay dynamic.
    const whole = await ort.InferenceSession.create(model);
    const feeds = { X: tensor([2, 2, 3, 4], 5), grid: tensor([2, 3, 4, 2], 6, -1.3, 1.3) };
    assertClose(await s.run(feeds), await whole.run(feeds), 3e-5);
    assert.deepEqual(runsOn(s), [
      'onnxruntime:Relu+Neg+Mul', 'gridsample:GridSamplex2', 'onnxruntime:Sigmoid', 'gridsample:GridSample', 'onnxruntime:Add',
    ]);
    const [p1, p2, p3, p4, p5] = s.plan().parts;
    assert.deepEqual([p1.inputs, p1.outputs], [['X', 'grid'], ['A', 'grid_neg', 'Xk']]);
    assert.deepEqual([p2.inputs, p2.outputs], [['A', 'grid', 'Xk'], ['B', 'F']]);
    assert.deepEqual([p3.inputs, p3.outputs], [['B'], ['C']]);
    assert.deepEqual([p4.inputs, p4.outputs], [['C', 'grid_neg'], ['D']]);
    assert.deepEqual([p5.inputs, p5.outputs], [['D', 'A'], ['E']]);
    assert.deepEqual(s.plan().counts, { onnxruntimeSessions: 3, onnxruntimeNodes: 5, gridsampleNodes: 3, unusedNodes: 0 });
    // fetches limit the outputs, as in onnxruntime.
    assert.deepEqual(Object.keys(await s.run(feeds, ['F'])), ['F']);
    await s.run(feeds, { profile: true });
    assert.deepEqual(s.lastProfile.parts.map((p) => p.runsOn), ['onnxruntime', 'gridsample', 'onnxruntime', 'gridsample', 'onnxruntime']);
    assert.ok(s.lastProfile.parts.every((p) => p.ms >= 0 && p.ms <= s.lastProfile.ms));
    // io (what each node read and wrote) is a gridsample part's alone: onnxruntime's parts have no such key.
    assert.deepEqual(s.lastProfile.parts.map((p) => Object.keys(p).includes('io')), [false, true, false, true, false]);
    await Promise.all([s.release(), whole.release()]);
  });

  test('onnxruntime without outputMetadata (onnxruntime-node 1.21, which transformers.js 3.x pins): a part fed by an earlier one is made at the first run', async () => {
    const model = encodeModel({
      opset: 16,
      nodes: [
        { op: 'Relu', inputs: ['X'], outputs: ['A'] },
        { op: 'GridSample', inputs: ['A', 'grid'], outputs: ['B'], attrs: { mode: 'bilinear' } },
        { op: 'Sigmoid', inputs: ['B'], outputs: ['Y'] },
      ],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 2, 5, 7] }, { name: 'grid', dtype: 'float32', dims: [1, 3, 4, 2] }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 2, 3, 4] }],
    });
    // onnxruntime as 1.21 is: sessions without outputMetadata; those made and released counted.
    const counts = { created: 0, released: 0 };
    const older = {
      ...ort,
      InferenceSession: {
        async create(...args) {
          const session = await ort.InferenceSession.create(...args);
          counts.created += 1;
          return {
            inputNames: session.inputNames,
            outputNames: session.outputNames,
            run: (...a) => session.run(...a),
            release: () => { counts.released += 1; return session.release(); },
          };
        },
      },
    };
    const s = await InferenceSession.create(model, { ort: older, ...QUIET, ...SPLIT });
    assert.equal(counts.created, 1, 'the Sigmoid part cannot be made before the GridSample part has a result type');
    const whole = await ort.InferenceSession.create(model);
    const feeds = { X: tensor([1, 2, 5, 7], 11), grid: tensor([1, 3, 4, 2], 12, -1.2, 1.2) };
    assertClose(await s.run(feeds), await whole.run(feeds), 1e-6);
    assert.equal(counts.created, 2);
    assertClose(await s.run(feeds), await whole.run(feeds), 1e-6);
    assert.equal(counts.created, 2, 'made once');
    await Promise.all([s.release(), whole.release()]);
    assert.deepEqual(counts, { created: 2, released: 2 });
  });

  test('a GridSample result that only onnxruntime reads stays in one heap tensor, sized by the library and reused across runs', async () => {
    const model = encodeModel({
      opset: 20,
      nodes: [
        { op: 'GridSample', inputs: ['X', 'grid'], outputs: ['B'] },
        { op: 'Sigmoid', inputs: ['B'], outputs: ['C'] },
      ],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 2, 'H', 'W'] }, { name: 'grid', dtype: 'float32', dims: [1, 'Ho', 'Wo', 2] }],
      outputs: [{ name: 'C', dtype: 'float32', dims: [1, 2, 'Ho', 'Wo'] }],
    });
    const own = await load(); // a module of its own: its heap holds this session's tensors only
    const empty = own.heapUsed();
    const s = await InferenceSession.create(model, { ort, gridsample: own, ...SPLIT });
    const whole = await ort.InferenceSession.create(model);
    const feeds = (ho, wo, seed) => ({ X: tensor([1, 2, 4, 6], seed), grid: tensor([1, ho, wo, 2], seed + 1, -1.2, 1.2) });
    const f1 = feeds(5, 7, 11);
    assertClose(await s.run(f1), await whole.run(f1), 1e-5);
    const held = own.heapUsed();
    assert.ok(held >= empty + 2 * 5 * 7 * 4, `B (2 x 5 x 7 float32) is kept in the heap: ${held - empty} bytes held`);
    const f2 = feeds(5, 7, 21);
    assertClose(await s.run(f2), await whole.run(f2), 1e-5);
    assert.equal(own.heapUsed(), held, 'the same shape reuses the tensor');
    const f3 = feeds(9, 3, 31);
    assertClose(await s.run(f3), await whole.run(f3), 1e-5);
    assert.ok(own.heapUsed() >= empty + 2 * 9 * 3 * 4 && own.heapUsed() < held + 2 * 9 * 3 * 4, 'another shape replaces it');
    await Promise.all([s.release(), whole.release()]);
    assert.equal(own.heapUsed(), empty, 'release() frees it');
  });

  test('GridSample nodes that become ready together run in one part; nodes that nothing reads are dropped', async () => {
    // Three levels as in deformable attention: one onnxruntime part computes the grids, the
    // three GridSample nodes form one gridsample part, the sum is the last part. Exp(X) is read by nothing.
    const model = encodeModel({
      opset: 16,
      nodes: [
        ...[0, 1, 2].map((l) => ({ op: 'Tanh', inputs: [`off${l}`], outputs: [`grid${l}`] })),
        ...[0, 1, 2].map((l) => ({ op: 'GridSample', inputs: [`v${l}`, `grid${l}`], outputs: [`s${l}`], attrs: { mode: 'bilinear' } })),
        { op: 'Exp', inputs: ['v0'], outputs: ['unused'] },
        { op: 'Sum', inputs: ['s0', 's1', 's2'], outputs: ['Y'] },
      ],
      inputs: [
        ...[8, 4, 2].map((h, l) => ({ name: `v${l}`, dtype: 'float32', dims: [2, 3, h, h] })),
        ...[0, 1, 2].map((l) => ({ name: `off${l}`, dtype: 'float32', dims: [2, 5, 4, 2] })),
      ],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [2, 3, 5, 4] }],
    });
    const feeds = Object.fromEntries([
      ...[8, 4, 2].map((h, l) => [`v${l}`, tensor([2, 3, h, h], 10 + l)]),
      ...[0, 1, 2].map((l) => [`off${l}`, tensor([2, 5, 4, 2], 20 + l, -2, 2)]),
    ]);
    const s = await assertMatchesOnnxruntime(model, feeds);
    assert.deepEqual(runsOn(s), ['onnxruntime:Tanhx3', 'gridsample:GridSamplex3', 'onnxruntime:Sum']);
    assert.equal(s.plan().counts.unusedNodes, 1);
    await s.release();
  });

  test('AffineGrid + GridSample of a spatial transformer; an initializer size and a graph output taken from a feed', async () => {
    const model = encodeModel({
      opset: 20,
      nodes: [
        { op: 'Tanh', inputs: ['theta_raw'], outputs: ['theta'] },
        { op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['grid'], attrs: { align_corners: 1 } },
        { op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Y'], attrs: { mode: 'linear' } },
      ],
      inputs: [{ name: 'X', dtype: 'float32', dims: [2, 3, 9, 11] }, { name: 'theta_raw', dtype: 'float32', dims: [2, 2, 3] }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [2, 3, 6, 5] }, { name: 'grid', dtype: 'float32', dims: [2, 6, 5, 2] }, { name: 'X', dtype: 'float32', dims: [2, 3, 9, 11] }],
      initializers: [{ name: 'size', dtype: 'int64', dims: [4], data: BigInt64Array.from([2n, 3n, 6n, 5n]) }],
    });
    const s = await assertMatchesOnnxruntime(model, { X: tensor([2, 3, 9, 11], 7), theta_raw: tensor([2, 2, 3], 8) });
    assert.deepEqual(runsOn(s), ['onnxruntime:Tanh', 'gridsample:AffineGrid+GridSample']);
    await s.release();
  });

  test('empty batches and outputs, size-1 axes, non-finite values pass through every part', async () => {
    const model = encodeModel({
      opset: 20,
      nodes: [
        { op: 'Relu', inputs: ['X'], outputs: ['A'] },
        { op: 'GridSample', inputs: ['A', 'grid'], outputs: ['B'] },
        { op: 'Sigmoid', inputs: ['B'], outputs: ['C'] },
      ],
      inputs: [{ name: 'X', dtype: 'float32', dims: ['N', 2, 'H', 'W'] }, { name: 'grid', dtype: 'float32', dims: ['N', 'h', 'w', 2] }],
      outputs: [{ name: 'C', dtype: 'float32', dims: ['N', 2, 'h', 'w'] }],
      name: 'edges',
    });
    const s = await InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT });
    const filled = (dims, v) => new ort.Tensor('float32', new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(v), dims);
    // A non-finite grid coordinate samples 0 (DESIGN.md section 2), so C = sigmoid(0).
    for (const [x, grid, dims] of [
      [[0, 2, 3, 3], [0, 4, 4, 2], [0, 2, 4, 4]],
      [[1, 2, 1, 1], [1, 4, 4, 2], [1, 2, 4, 4]],
      [[1, 2, 3, 3], [1, 0, 4, 2], [1, 2, 0, 4]],
    ]) {
      const { C } = await s.run({ X: filled(x, NaN), grid: filled(grid, Infinity) });
      assert.deepEqual(C.dims, dims);
      assert.ok(C.data.every((v) => v === 0.5), `${x} / ${grid}`);
    }
    await assert.rejects(s.run({ X: filled([1, 2, 0, 3], 1), grid: filled([1, 2, 2, 2], 0) }),
      /node "n1" \(GridSample\), opset 20, inputs "A": float32 \[1, 2, 0, 3\], "grid": float32 \[1, 2, 2, 2\]: .*a spatial dimension is 0/);
    await s.release();
  });

  test("opset 16's bilinear / bicubic and opset 22 run as onnxruntime runs them", async () => {
    for (const [opset, mode] of [[16, 'bilinear'], [16, 'bicubic'], [16, 'nearest'], [22, 'linear'], [22, 'cubic']]) {
      const model = encodeModel({
        opset,
        nodes: [{ op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Y'], attrs: { mode, padding_mode: 'border' } }],
        inputs: [{ name: 'X', dtype: 'float32', dims: [1, 2, 6, 5] }, { name: 'grid', dtype: 'float32', dims: [1, 4, 3, 2] }],
        outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 2, 4, 3] }],
      });
      const s = await assertMatchesOnnxruntime(model, { X: tensor([1, 2, 6, 5], 30), grid: tensor([1, 4, 3, 2], 31, -1.2, 1.2) }, 3e-5);
      assert.equal(s.plan().parts[0].nodes[0].version, opset, `${opset} ${mode}`);
      await s.release();
    }
  });
});

describe('results are the caller\'s (issue 26)', () => {
  test('an initializer or a feed returned as a graph output is a copy of its own in every run, as onnxruntime returns it', async () => {
    // K is GridSample's grid and a graph output; the feed X is GridSample's X and a graph output.
    const model = encodeModel({
      opset: 20,
      nodes: [{ op: 'GridSample', inputs: ['X', 'K'], outputs: ['Y'], attrs: { align_corners: 1 } }],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 3, 3] }],
      outputs: [
        { name: 'Y', dtype: 'float32', dims: [1, 1, 1, 3] },
        { name: 'K', dtype: 'float32', dims: [1, 1, 3, 2] },
        { name: 'X', dtype: 'float32', dims: [1, 1, 3, 3] },
      ],
      initializers: [{ name: 'K', dtype: 'float32', dims: [1, 1, 3, 2], data: Float32Array.of(-1, -1, 0, 0.5, 1, 1) }],
    });
    const s = await InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT });
    const oracle = await ort.InferenceSession.create(model);
    const feeds = { X: tensor([1, 1, 3, 3], 5) };
    const x = Array.from(feeds.X.data);
    const want = await oracle.run(feeds);
    const first = await s.run(feeds);
    assertClose(first, want, 1e-6);
    first.K.data.fill(999);
    first.X.data.fill(999);
    assert.deepEqual(Array.from(feeds.X.data), x, 'the feed is not changed through a result');
    const second = await s.run(feeds);
    assert.deepEqual(Array.from(second.K.data), Array.from(want.K.data));
    assertClose(second, want, 1e-6);
    await Promise.all([s.release(), oracle.release()]);
  });
});
