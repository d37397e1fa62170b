// gridsample/onnx on small graphs: how models split, results equal to onnxruntime-node running the whole model, and every error path.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { load } from '../../js/node.mjs';
import { InferenceSession, OnnxModelError } from '../../js/onnx.mjs';
import { compareOutputs } from '../../js/onnx/timing.mjs';
import { encodeModel } from './lib/onnx_model.mjs';

// Messages of onnxruntime's own failures, which the tests provoke, are not logged as well.
const QUIET = { logSeverityLevel: 4 };
// The split as splitModel makes it, every node of ours on gridsample, whatever it costs: these
// tests are of the split's mechanics (placement has its own, at the end).
const SPLIT = { placement: 'gridsample' };

// Deterministic inputs: a 31-bit LCG, values in [lo, hi).
function random(seed) {
  let s = seed;
  return (lo, hi) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return lo + (hi - lo) * (s / 2147483648);
  };
}

function tensor(dims, seed, lo = -1, hi = 1) {
  const r = random(seed);
  const n = dims.reduce((a, b) => a * b, 1);
  return new ort.Tensor('float32', Float32Array.from({ length: n }, () => r(lo, hi)), dims);
}

// Every output within atol of onnxruntime's (a NaN anywhere fails).
function assertClose(got, want, atol) {
  for (const [name, { maxAbsDiff }] of Object.entries(compareOutputs(got, want))) {
    assert.ok(maxAbsDiff <= atol, `${name}: max abs diff ${maxAbsDiff} > ${atol}`);
  }
}

// A rejection with an OnnxModelError whose message matches and is one line.
const modelError = (promise, pattern) => assert.rejects(promise, (e) => {
  assert.ok(e instanceof OnnxModelError, `an OnnxModelError, got ${e?.name}: ${e?.message}`);
  assert.match(e.message, pattern);
  assert.doesNotMatch(e.message, /[\r\n\u2028\u2029]/, 'one line');
  return true;
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

const runsOn = (session) => session.plan().parts.map((p) => `${p.runsOn}:${Object.entries(p.ops).map(([op, n]) => `${op}${n > 1 ? `x${n}` : ''}`).join('+')}`);

let gs;
before(async () => {
  gs = await load();
});

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

describe('errors name the model, the node and what was expected', () => {
  const grid1 = (opset, attrs = {}, extra = {}) => encodeModel({
    opset,
    nodes: [{ op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Y'], attrs }],
    inputs: [{ name: 'X', dtype: 'float32', dims: ['N', 1, 4, 4] }, { name: 'grid', dtype: 'float32', dims: ['N', 2, 2, 2] }],
    outputs: [{ name: 'Y', dtype: 'float32', dims: ['N', 1, 2, 2] }],
    name: 'one_node',
    ...extra,
  });
  const rejects = (promise, pattern) => assert.rejects(promise, (e) => {
    assert.match(e.message, pattern);
    assert.doesNotMatch(e.message, /\n/, 'one line');
    return true;
  });

  test('options', async () => {
    await rejects(InferenceSession.create(grid1(20)), /options: expected an object with at least \{ ort \}, got nothing/);
    await rejects(InferenceSession.create(grid1(20), {}), /options\.ort: expected the onnxruntime module .* got nothing/);
    await rejects(InferenceSession.create(grid1(20), { ort: { Tensor: ort.Tensor } }), /options\.ort: expected the onnxruntime module/);
    await rejects(InferenceSession.create(grid1(20), { ort, gridsample: {} }), /options\.gridsample: expected a module from gridsample's load\(\)/);
    await rejects(InferenceSession.create(grid1(20), { ort, subgraphs: 'skip' }), /options\.subgraphs: expected "error" or "onnxruntime", got "skip"/);
    await rejects(InferenceSession.create(42, { ort }), /model: expected a Uint8Array, an ArrayBuffer, a URL or a path, got number 42/);
  });

  test('files that are not models', async () => {
    await rejects(InferenceSession.create('/nonexistent/model.onnx', { ort }), /^gridsample\/onnx: "model\.onnx": cannot read "\/nonexistent\/model\.onnx": ENOENT/);
    const r = random(1);
    const junk = Uint8Array.from({ length: 4096 }, () => Math.floor(r(0, 256)));
    await rejects(InferenceSession.create(junk, { ort }), /^gridsample\/onnx: the model: not a valid ONNX model/);
    await rejects(InferenceSession.create(new Uint8Array(0), { ort }), /not a valid ONNX model \(it has no graph\)/);
    const truncated = grid1(20).subarray(0, 40);
    await rejects(InferenceSession.create(truncated, { ort }), /not a valid ONNX model/);
  });

  test('opsets and attributes', async () => {
    await rejects(InferenceSession.create(grid1(15), { ort, gridsample: gs, ...SPLIT }), /model "one_node": node "n0" \(GridSample\): GridSample needs opset 16 or later; the model imports opset 15/);
    await rejects(InferenceSession.create(grid1(30), { ort, gridsample: gs, ...SPLIT }), /node "n0" \(GridSample\): the model imports opset 30; gridsample\/onnx knows GridSample up to opset 24/);
    await rejects(InferenceSession.create(grid1(20, { mode: 'bilinear' }), { ort, gridsample: gs, ...SPLIT }), /mode "bilinear" is not one of GridSample-20's "linear", "nearest", "cubic" \("bilinear" is GridSample-16's spelling\)/);
    await rejects(InferenceSession.create(grid1(16, { mode: 'cubic' }), { ort, gridsample: gs, ...SPLIT }), /GridSample-16's "bilinear", "nearest", "bicubic" \("cubic" is GridSample-20's spelling\)/);
    await rejects(InferenceSession.create(grid1(20, { padding_mode: 'wrap' }), { ort, gridsample: gs, ...SPLIT }), /padding_mode "wrap" is not one of "zeros", "border", "reflection"/);
    await rejects(InferenceSession.create(grid1(20, { align_corners: 2 }), { ort, gridsample: gs, ...SPLIT }), /align_corners must be 0 or 1, got 2/);
    await rejects(InferenceSession.create(grid1(20, { antialias: 1 }), { ort, gridsample: gs, ...SPLIT }), /unknown attribute "antialias" \(GridSample-20 has mode, padding_mode, align_corners\)/);
    const affine16 = encodeModel({
      opset: 18,
      nodes: [{ op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['grid'] }],
      inputs: [{ name: 'theta', dtype: 'float32', dims: [1, 2, 3] }, { name: 'size', dtype: 'int64', dims: [4] }],
      outputs: [{ name: 'grid', dtype: 'float32', dims: [1, 2, 2, 2] }],
    });
    await rejects(InferenceSession.create(affine16, { ort, gridsample: gs, ...SPLIT }), /node "n0" \(AffineGrid\): AffineGrid needs opset 20 or later; the model imports opset 18/);
  });

  test('graphs that are not well formed', async () => {
    const dangling = encodeModel({
      opset: 20,
      nodes: [{ op: 'GridSample', inputs: ['X', 'nowhere'], outputs: ['Y'] }],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 2, 2] }],
    });
    await rejects(InferenceSession.create(dangling, { ort, gridsample: gs, ...SPLIT }), /node "n0" \(GridSample\) reads "nowhere", which no node, graph input or initializer provides/);
    const cycle = encodeModel({
      opset: 20,
      nodes: [
        { op: 'Add', inputs: ['X', 'B'], outputs: ['A'] },
        { op: 'GridSample', inputs: ['A', 'grid'], outputs: ['B'] },
      ],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 2, 2] }, { name: 'grid', dtype: 'float32', dims: [1, 2, 2, 2] }],
      outputs: [{ name: 'B', dtype: 'float32', dims: [1, 1, 2, 2] }],
    });
    await rejects(InferenceSession.create(cycle, { ort, gridsample: gs, ...SPLIT }), /the graph has a cycle/);
  });

  test('a GridSample inside an If body fails, unless left to onnxruntime', async () => {
    const body = (name) => ({
      node: [{ opType: 'GridSample', input: ['X', 'grid'], output: [`${name}_y`], name: `${name}_gs` }],
      name,
      output: [{ name: `${name}_y`, type: { tensorType: { elemType: 1 } } }],
    });
    const model = encodeModel({
      opset: 20,
      nodes: [{ op: 'If', inputs: ['cond'], outputs: ['Y'], attrs: { then_branch: { g: body('then') }, else_branch: { g: body('else') } } }],
      inputs: [
        { name: 'cond', dtype: 'bool', dims: [] },
        { name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }, { name: 'grid', dtype: 'float32', dims: [1, 2, 2, 2] },
      ],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 2, 2] }],
    });
    await rejects(InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT }), /node "then_gs" \(GridSample\) in the "then_branch" body of node "n0" \(If\): gridsample\/onnx splits the main graph only.*subgraphs: 'onnxruntime'/);
    const s = await InferenceSession.create(model, { ort, gridsample: gs, subgraphs: 'onnxruntime', ...SPLIT });
    assert.deepEqual(runsOn(s), ['onnxruntime:If']);
    const feeds = { cond: new ort.Tensor('bool', [true], []), X: tensor([1, 1, 4, 4], 1), grid: tensor([1, 2, 2, 2], 2) };
    const whole = await ort.InferenceSession.create(model);
    assert.deepEqual((await s.run(feeds)).Y.data, (await whole.run(feeds)).Y.data);
    await Promise.all([s.release(), whole.release()]);
  });

  describe('run', () => {
    let s;
    const feeds = () => ({ X: tensor([1, 1, 4, 4], 1), grid: tensor([1, 2, 2, 2], 2) });
    before(async () => {
      s = await InferenceSession.create(grid1(20), { ort, gridsample: gs, ...SPLIT });
    });
    after(() => s.release());

    test('feeds', async () => {
      await rejects(s.run({ X: tensor([1, 1, 4, 4], 1) }), /^gridsample\/onnx: model "one_node": run: input "grid" is missing \(expected float32 \[N, 2, 2, 2\]\)/);
      await rejects(s.run({ ...feeds(), extra: tensor([1], 1) }), /run: feeds: "extra" is not an input of the model; its inputs are "X", "grid"/);
      await rejects(s.run({ ...feeds(), X: new ort.Tensor('int32', new Int32Array(16), [1, 1, 4, 4]) }), /input "X": expected float32 \[N, 1, 4, 4\], got int32 \[1, 1, 4, 4\]/);
      await rejects(s.run({ ...feeds(), X: tensor([1, 1, 4, 5], 1) }), /input "X": expected float32 \[N, 1, 4, 4\], got float32 \[1, 1, 4, 5\]/);
      await rejects(s.run({ ...feeds(), X: [1, 2, 3] }), /input "X": expected float32 \[N, 1, 4, 4\], got an array/);
      await rejects(s.run(null), /run: feeds: expected an object \{ inputName: ort\.Tensor \}, got null/);
      await rejects(s.run(feeds(), ['nope']), /fetches: "nope" is not an output of the model; its outputs are "Y"/);
    });

    test('a node that fails names the node and its inputs; the session stays usable', async () => {
      // N differs between X and grid: the declared shapes allow it, GridSample does not.
      await rejects(s.run({ X: tensor([2, 1, 4, 4], 1), grid: tensor([1, 2, 2, 2], 2) }),
        /^gridsample\/onnx: model "one_node": node "n0" \(GridSample\), opset 20, inputs "X": float32 \[2, 1, 4, 4\], "grid": float32 \[1, 2, 2, 2\]: .*batch/i);
      const { Y } = await s.run(feeds());
      assert.deepEqual(Y.dims, [1, 1, 2, 2]);
    });

    test('a released session refuses to run', async () => {
      const t = await InferenceSession.create(grid1(20), { ort, gridsample: gs, ...SPLIT });
      await t.release();
      await t.release(); // twice is fine
      await rejects(t.run(feeds()), /run: the session was released/);
    });
  });

  test('errors are OnnxModelError', async () => {
    await assert.rejects(InferenceSession.create(grid1(15), { ort, gridsample: gs, ...SPLIT }), OnnxModelError);
  });
});

describe('runs called together queue, as onnxruntime-web runs them (issue 26)', () => {
  // Relu, GridSample, Sigmoid: three parts; and Relu, Sigmoid: one onnxruntime session.
  const split = encodeModel({
    opset: 20,
    nodes: [
      { op: 'Relu', inputs: ['X'], outputs: ['A'] },
      { op: 'GridSample', inputs: ['A', 'grid'], outputs: ['B'] },
      { op: 'Sigmoid', inputs: ['B'], outputs: ['Y'] },
    ],
    inputs: [{ name: 'X', dtype: 'float32', dims: ['N', 2, 4, 5] }, { name: 'grid', dtype: 'float32', dims: ['N', 3, 3, 2] }],
    outputs: [{ name: 'Y', dtype: 'float32', dims: ['N', 2, 3, 3] }],
  });
  const whole = encodeModel({
    opset: 20,
    nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['A'] }, { op: 'Sigmoid', inputs: ['A'], outputs: ['Y'] }],
    inputs: [{ name: 'X', dtype: 'float32', dims: ['N', 2, 4, 5] }, { name: 'grid', dtype: 'float32', dims: ['N', 3, 3, 2] }],
    outputs: [{ name: 'Y', dtype: 'float32', dims: ['N', 2, 4, 5] }],
  });
  // Run i has batch size i and its own values: a run given another's feeds shows.
  const feedsFor = (i) => ({ X: tensor([i, 2, 4, 5], 100 + i), grid: tensor([i, 3, 3, 2], 200 + i, -1.2, 1.2) });

  for (const [what, model] of [['a split model', split], ['a model without GridSample', whole]]) {
    test(`${what}: five runs called together all run, each on its own feeds`, async () => {
      const s = await InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT });
      const oracle = await ort.InferenceSession.create(model);
      const feeds = [1, 2, 3, 4, 5].map(feedsFor);
      const got = await Promise.all(feeds.map((f) => s.run(f)));
      for (const [i, f] of feeds.entries()) assertClose(got[i], await oracle.run(f), 1e-5);
      await Promise.all([s.release(), oracle.release()]);
    });
  }

  test('a run that fails does not stop the next; a run reads its feeds when called', async () => {
    const s = await InferenceSession.create(split, { ort, gridsample: gs, ...SPLIT });
    const oracle = await ort.InferenceSession.create(split);
    const feeds = feedsFor(1);
    const first = { ...feeds };
    const mismatched = { X: tensor([2, 2, 4, 5], 7), grid: tensor([1, 3, 3, 2], 8) }; // GridSample refuses N 2 against 1
    const runs = [s.run(feeds), s.run(mismatched)];
    feeds.X = tensor([1, 2, 4, 5], 9); // the caller reuses its object for the next call
    runs.push(s.run(feeds));
    const [a, b, c] = await Promise.allSettled(runs);
    assertClose(a.value, await oracle.run(first), 1e-5);
    await modelError(Promise.reject(b.reason), /node "n1" \(GridSample\), opset 20, inputs "A": float32 \[2, 2, 4, 5\], "grid": float32 \[1, 3, 3, 2\]: .*batch/);
    assertClose(c.value, await oracle.run(feeds), 1e-5);
    await Promise.all([s.release(), oracle.release()]);
  });

  test('release() while runs wait: the run in progress finishes, the waiting ones reject, later calls reject', async () => {
    const s = await InferenceSession.create(split, { ort, gridsample: gs, ...SPLIT });
    const oracle = await ort.InferenceSession.create(split);
    const feeds = feedsFor(2);
    const running = s.run(feeds);
    const waiting = Promise.allSettled([s.run(feeds), s.run(feeds)]);
    const released = s.release();
    assertClose(await running, await oracle.run(feeds), 1e-5);
    for (const { reason } of await waiting) await modelError(Promise.reject(reason), /run: the session was released before this run started$/);
    await released;
    await s.release();
    await modelError(s.run(feeds), /run: the session was released$/);
    await oracle.release();
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

describe('errors are one-line OnnxModelErrors (issue 26)', () => {
  test('names from the model are quoted with JSON escapes', async () => {
    const model = encodeModel({
      opset: 20,
      nodes: [{ op: 'GridSample', name: 'warp\n"x"', inputs: ['X', 'grid'], outputs: ['Y'], attrs: { mode: 'bi\nlinear' } }],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }, { name: 'grid', dtype: 'float32', dims: [1, 2, 2, 2] }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 2, 2] }],
      name: 'g\r\nh',
    });
    await modelError(InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT }),
      /^gridsample\/onnx: model "g\\r\\nh": node "warp\\n\\"x\\"" \(GridSample\): mode "bi\\nlinear" is not one of/);
  });

  test("an operator whose name is an Object property ('toString') is onnxruntime's, not ours", async () => {
    const model = encodeModel({
      opset: 20,
      nodes: [{ op: 'toString', inputs: ['X', 'X'], outputs: ['Y'] }],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 2, 3] }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 2, 2, 2] }],
    });
    await assert.rejects(ort.InferenceSession.create(model, QUIET), /No Op registered for toString/);
    await modelError(InferenceSession.create(model, { ort, gridsample: gs, ...QUIET }),
      /onnxruntime could not create the session of the whole model .*No Op registered for toString/);
  });

  // Reshape to a size the feed does not have fails inside onnxruntime; its message quotes the
  // node's name, line break and all.
  const reshape = (withGridSample) => encodeModel({
    opset: 20,
    nodes: [
      { op: 'Reshape', name: 're\nshape', inputs: ['X', 'S'], outputs: ['R'] },
      withGridSample ? { op: 'GridSample', inputs: ['R', 'grid'], outputs: ['Y'] } : { op: 'Relu', inputs: ['R'], outputs: ['Y'] },
    ],
    inputs: [{ name: 'X', dtype: 'float32', dims: [16] }, { name: 'S', dtype: 'int64', dims: [4] }, { name: 'grid', dtype: 'float32', dims: [1, 2, 2, 2] }],
    outputs: [{ name: 'Y', dtype: 'float32', dims: null }],
  });
  const reshapeFeeds = (size) => ({
    X: tensor([16], 1), S: new ort.Tensor('int64', BigInt64Array.from(size, BigInt), [4]), grid: tensor([1, 2, 2, 2], 2),
  });

  for (const [what, withGridSample, pattern] of [
    ['a part of a split model', true, /onnxruntime failed in part 1 \(1 node from node "re\\nshape" \(Reshape\)\): .*cannot be reshaped/],
    ['a model without GridSample', false, /onnxruntime failed: .*cannot be reshaped/],
  ]) {
    const outDims = withGridSample ? [1, 1, 2, 2] : [1, 1, 4, 4];
    test(`onnxruntime failing in ${what}: its text is the cause`, async () => {
      const s = await InferenceSession.create(reshape(withGridSample), { ort, gridsample: gs, ...QUIET });
      const run = s.run(reshapeFeeds([1, 1, 5, 5]));
      await modelError(run, pattern);
      const cause = await run.catch((e) => e.cause);
      assert.match(cause.message, /Name:'re\nshape'.*cannot be reshaped/s, "onnxruntime's own error");
      assert.deepEqual((await s.run(reshapeFeeds([1, 1, 4, 4]))).Y.dims, outDims, 'the session is still usable');
      await s.release();
    });

    test(`a feed whose data does not fit its type or dims, headed to ${what}, is refused before onnxruntime sees it`, async () => {
      const s = await InferenceSession.create(reshape(withGridSample), { ort, gridsample: gs, ...SPLIT });
      const feeds = reshapeFeeds([1, 1, 4, 4]);
      const plain = (type, dims, data) => ({ type, dims, data });
      await modelError(s.run({ ...feeds, X: plain('float32', [16], new Float32Array(10)) }), /run: input "X": float32 \[16\] has 16 elements, but its data holds 10$/);
      await modelError(s.run({ ...feeds, X: plain('float32', [16], new Int32Array(16)) }), /run: input "X": its data must be a Float32Array for float32, got an Int32Array$/);
      await modelError(s.run({ ...feeds, X: plain('float32', [-16], new Float32Array(16)) }), /run: input "X": expected float32 \[16\], got dimensions \[-16\]$/);
      assert.deepEqual((await s.run({ ...feeds, X: plain('float32', [16], new Float32Array(16)) })).Y.dims, outDims, 'a plain object that fits runs');
      await s.release();
    });
  }
});

describe('attributes and input types onnxruntime refuses are refused at create() (issue 26)', () => {
  const gridSample = (attrs, gridType = 'float32') => encodeModel({
    opset: 20,
    nodes: [{ op: 'GridSample', name: 'gs', inputs: ['X', 'grid'], outputs: ['Y'], attrs }],
    inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }, { name: 'grid', dtype: gridType, dims: [1, 2, 2, 2] }],
    outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 2, 2] }],
  });
  const affineGrid = (size) => encodeModel({
    opset: 20,
    nodes: [{ op: 'AffineGrid', name: 'ag', inputs: ['theta', 'size'], outputs: ['grid'] }],
    inputs: [{ name: 'theta', dtype: 'float32', dims: [1, 2, 3] }, ...(size.data ? [] : [size])],
    outputs: [{ name: 'grid', dtype: 'float32', dims: [1, 2, 2, 2] }],
    initializers: size.data ? [size] : [],
  });
  const cases = [
    ['mode stored as INTS', gridSample({ mode: { ints: [1] } }), /Mismatched attribute type in 'gs : mode'/,
      /node "gs" \(GridSample\): attribute "mode" is INTS; GridSample-20 takes STRING$/],
    ['align_corners stored as FLOAT', gridSample({ align_corners: { f: 1 } }), /Mismatched attribute type in 'gs : align_corners'/,
      /attribute "align_corners" is FLOAT; GridSample-20 takes INT$/],
    ['mode given twice', gridSample([['mode', 'nearest'], ['mode', 'cubic']]), /Attribute 'mode' appeared multiple times/,
      /node "gs" \(GridSample\): attribute "mode" appears more than once$/],
    ['a STRING attribute holding an INT', gridSample({ padding_mode: { raw: { type: 3, i: 1 } } }), /type field and data field mismatch in attribute padding_mode/,
      /attribute "padding_mode" says it is STRING but holds INT$/],
    ['an int32 grid', gridSample({}, 'int32'), /Type 'tensor\(int32\)' of input parameter \(grid\) of operator \(GridSample\) in node \(gs\) is invalid/,
      /node "gs" \(GridSample\): input "grid" is int32; GridSample-20 takes float16 or float32 or float64$/],
    ['a float32 AffineGrid size (initializer)', affineGrid({ name: 'size', dtype: 'float32', dims: [4], data: Float32Array.of(1, 1, 2, 2) }),
      /Type 'tensor\(float\)' of input parameter \(size\) of operator \(AffineGrid\) in node \(ag\) is invalid/,
      /node "ag" \(AffineGrid\): input "size" is float32; AffineGrid-20 takes int64$/],
    ['a float32 AffineGrid size (graph input)', affineGrid({ name: 'size', dtype: 'float32', dims: [4] }),
      /Type 'tensor\(float\)' of input parameter \(size\) of operator \(AffineGrid\) in node \(ag\) is invalid/,
      /input "size" is float32; AffineGrid-20 takes int64$/],
  ];
  for (const [what, model, onnxruntimeSays, weSay] of cases) {
    test(what, async () => {
      await assert.rejects(ort.InferenceSession.create(model, QUIET), onnxruntimeSays);
      await modelError(InferenceSession.create(model, { ort, gridsample: gs, ...SPLIT }), weSay);
    });
  }
});

describe('placement: a node onnxruntime runs goes back into its part when it saves less than the boundary costs (onnx/placement.mjs)', () => {
  // Relu -> [AffineGrid ->] GridSample -> Sigmoid: the nodes of ours between two onnxruntime parts.
  const between = ({ opset = 20, x, grid, affine = false, mode = 'linear', dtype = 'float32' }) => encodeModel({
    opset,
    nodes: [
      { op: 'Relu', inputs: ['X'], outputs: ['A'] },
      ...(affine ? [{ op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['grid'] }] : []),
      { op: 'GridSample', inputs: ['A', 'grid'], outputs: ['B'], attrs: { mode } },
      { op: 'Sigmoid', inputs: ['B'], outputs: ['Y'] },
    ],
    inputs: [{ name: 'X', dtype, dims: x }, affine ? { name: 'theta', dtype, dims: [x[0], 2, 3] } : { name: 'grid', dtype, dims: grid }],
    initializers: affine ? [{ name: 'size', dtype: 'int64', dims: [4], data: BigInt64Array.from([x[0], x[1], ...grid.slice(1, 3)], BigInt) }] : [],
    outputs: [{ name: 'Y', dtype, dims: [x[0], x[1], ...grid.slice(1, -1)] }],
  });
  // onnxruntime-node with its sessions counted (made, released); `failAfter`: creations that
  // succeed before the rest throw.
  const counting = (failAfter = Infinity) => {
    const counts = { created: 0, released: 0 };
    const wrapped = {
      ...ort,
      InferenceSession: {
        async create(...args) {
          if (counts.created >= failAfter) throw new Error('out of memory (a test double)');
          const session = await ort.InferenceSession.create(...args);
          counts.created += 1;
          const release = session.release.bind(session);
          session.release = () => { counts.released += 1; return release(); };
          return session;
        },
      },
    };
    return { counts, ort: wrapped };
  };
  const placements = (s) => s.plan().parts.flatMap((p) => p.nodes.filter((n) => n.placement).map((n) => ({ opType: n.opType, ...n.placement })));
  const feedsOf = (x, grid, seed) => ({ X: tensor(x, seed), grid: tensor(grid, seed + 1, -1.2, 1.2) });

  test('a small GridSample between two parts: split on the first run, one onnxruntime session from the second; outputs as onnxruntime alone', async () => {
    const x = [1, 2, 8, 8];
    const grid = [1, 8, 8, 2];
    const model = between({ x, grid });
    const { counts, ort: counted } = counting();
    const s = await InferenceSession.create(model, { ort: counted, gridsample: gs });
    const whole = await ort.InferenceSession.create(model);
    assert.equal(counts.created, 2);
    assert.match(placements(s)[0].why, /placement "auto" decides at the first run/);
    const feeds = feedsOf(x, grid, 3);
    const want = await whole.run(feeds);
    assertClose(await s.run(feeds), want, 1e-6);
    const [p] = placements(s);
    assert.equal(p.runsOn, 'onnxruntime');
    assert.match(p.why, /^onnxruntime runs it; its part saves an estimated .* ms per run, the part's boundary costs .* ms$/);
    assert.deepEqual(s.plan().counts, { onnxruntimeSessions: 1, onnxruntimeNodes: 3, gridsampleNodes: 0, unusedNodes: 0 });
    assert.deepEqual(counts, { created: 3, released: 2 }, 'the merged session made, the two split ones released');
    await s.run(feeds, { profile: true });
    assert.deepEqual(s.lastProfile.parts.map((q) => q.runsOn), ['onnxruntime']);
    assertClose(await s.run(feeds), want, 0);
    await Promise.all([s.release(), whole.release()]);
    assert.deepEqual(counts, { created: 3, released: 3 });
  });

  test('a large GridSample stays on gridsample, with its estimate', async () => {
    const x = [1, 8, 64, 64];
    const grid = [1, 128, 128, 2];
    const s = await InferenceSession.create(between({ x, grid }), { ort, gridsample: gs });
    await s.run(feedsOf(x, grid, 5));
    const [p] = placements(s);
    assert.equal(p.runsOn, 'gridsample');
    assert.match(p.why, /^its part saves an estimated (\S+) ms per run, the part's boundary costs (\S+) ms$/);
    const [, saved, boundary] = p.why.match(/estimated (\S+) ms .* costs (\S+) ms/).map(Number);
    assert.ok(saved > boundary, p.why);
    assert.equal(s.plan().counts.gridsampleNodes, 1);
    await s.release();
  });

  test("placement 'gridsample' and 'onnxruntime' force either way; a part of AffineGrid + GridSample moves whole", async () => {
    const x = [1, 8, 64, 64];
    const grid = [1, 128, 128, 2];
    const model = between({ x, grid, affine: true });
    const feeds = { X: tensor(x, 7), theta: new ort.Tensor('float32', Float32Array.of(0.9, 0.1, 0, -0.1, 0.9, 0), [1, 2, 3]) };
    const whole = await ort.InferenceSession.create(model);
    const want = await whole.run(feeds);
    const forced = await InferenceSession.create(model, { ort, gridsample: gs, placement: 'onnxruntime' });
    assertClose(await forced.run(feeds), want, 1e-5);
    assert.deepEqual(placements(forced).map((p) => [p.opType, p.runsOn, p.why]),
      [['AffineGrid', 'onnxruntime', "placement 'onnxruntime'"], ['GridSample', 'onnxruntime', "placement 'onnxruntime'"]]);
    assert.equal(forced.plan().counts.onnxruntimeSessions, 1);
    assertClose(await forced.run(feeds), want, 0);
    const small = between({ x: [1, 1, 4, 4], grid: [1, 4, 4, 2] });
    const kept = await InferenceSession.create(small, { ort, gridsample: gs, placement: 'gridsample' });
    await kept.run(feedsOf([1, 1, 4, 4], [1, 4, 4, 2], 9));
    assert.deepEqual(placements(kept).map((p) => [p.runsOn, p.why]), [['gridsample', "placement 'gridsample'"]]);
    assert.equal(kept.plan().counts.onnxruntimeSessions, 2);
    await Promise.all([forced.release(), kept.release(), whole.release()]);
  });

  test("what onnxruntime cannot run as gridsample does stays on gridsample, even with placement 'onnxruntime'", async () => {
    const cases = [
      ['1-D (3-D X)', between({ x: [1, 1, 4], grid: [1, 3, 1] }), { X: tensor([1, 1, 4], 1), grid: tensor([1, 3, 1], 2) }, /onnxruntime runs 4-D and 5-D GridSample only, X is 3-D/],
      ['5-D cubic', between({ x: [1, 1, 2, 2, 2], grid: [1, 2, 2, 2, 3], mode: 'cubic' }), { X: tensor([1, 1, 2, 2, 2], 3), grid: tensor([1, 2, 2, 2, 3], 4) }, /onnxruntime has no 5-D cubic GridSample/],
      ['GridSample-16 on 5-D', between({ opset: 16, x: [1, 1, 2, 2, 2], grid: [1, 2, 2, 2, 3], mode: 'bilinear' }), { X: tensor([1, 1, 2, 2, 2], 5), grid: tensor([1, 2, 2, 2, 3], 6) }, /GridSample-16 is 4-D only/],
    ];
    for (const [what, model, feeds, why] of cases) {
      const s = await InferenceSession.create(model, { ort, gridsample: gs, placement: 'onnxruntime' });
      await s.run(feeds);
      const [p] = placements(s);
      assert.equal(p.runsOn, 'gridsample', what);
      assert.match(p.why, why, what);
      await s.run(feeds);
      await s.release();
    }
    // AffineGrid with align_corners 1 and a size-1 axis: onnxruntime's base coordinate is -1, ours 0.
    const size1 = encodeModel({
      opset: 20,
      nodes: [{ op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['grid'], attrs: { align_corners: 1 } }, { op: 'Relu', inputs: ['grid'], outputs: ['Y'] }],
      inputs: [{ name: 'theta', dtype: 'float32', dims: [1, 2, 3] }],
      initializers: [{ name: 'size', dtype: 'int64', dims: [4], data: BigInt64Array.of(1n, 1n, 1n, 5n) }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 5, 2] }],
    });
    const s = await InferenceSession.create(size1, { ort, gridsample: gs, placement: 'onnxruntime' });
    const theta = { theta: new ort.Tensor('float32', Float32Array.of(1, 0, 0, 0, 1, 0.5), [1, 2, 3]) };
    const first = await s.run(theta);
    assert.match(placements(s)[0].why, /a size-1 axis with align_corners=1/);
    assertClose(await s.run(theta), first, 0);
    assert.equal(first.Y.data[1], 0.5, 'y of the one row is theta\'s offset (PyTorch), not -1 + 0.5');
    await s.release();
  });

  test('onnxruntime failing to make the merged session leaves the split, and says so', async () => {
    const x = [1, 1, 4, 4];
    const grid = [1, 4, 4, 2];
    const model = between({ x, grid });
    const { counts, ort: failing } = counting(2);
    const s = await InferenceSession.create(model, { ort: failing, gridsample: gs });
    const whole = await ort.InferenceSession.create(model);
    const feeds = feedsOf(x, grid, 13);
    assertClose(await s.run(feeds), await whole.run(feeds), 1e-6);
    const [p] = placements(s);
    assert.equal(p.runsOn, 'gridsample');
    assert.match(p.why, /^onnxruntime could not take it: .*out of memory \(a test double\)/);
    assertClose(await s.run(feeds), await whole.run(feeds), 1e-6);
    await Promise.all([s.release(), whole.release()]);
    assert.deepEqual(counts, { created: 2, released: 2 });
  });

  test('options.placement is checked', async () => {
    await assert.rejects(InferenceSession.create(between({ x: [1, 1, 2, 2], grid: [1, 2, 2, 2] }), { ort, placement: 'fast' }),
      /^TypeError: InferenceSession\.create: options\.placement: expected "auto" or "gridsample" or "onnxruntime", got "fast"$/);
  });
});
