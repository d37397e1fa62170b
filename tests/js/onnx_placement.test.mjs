// gridsample/onnx's placement (onnx/placement.mjs): decided at the first run, before its result is returned, from whole runs of the split and of onnxruntime's placement timed on the caller's feeds; every run of a session gives the same bytes.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { deformableAttention, graph, lcg } from './lib/model_graph.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { assertClose, tensor } from './lib/onnx_session_checks.mjs';
import { TIMED_REASON } from './lib/placement_reasons.mjs';

let gs;
before(async () => {
  gs = await load();
});

const bytesOf = (out) => Object.entries(out).map(([k, t]) => `${k}:${Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('hex')}`).join();
const placements = (s) => s.plan().parts.flatMap((p) => p.nodes.filter((n) => n.placement).map((n) => ({ opType: n.opType, ...n.placement })));
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
const spin = (ms) => {
  for (const end = performance.now() + ms; performance.now() < end;);
};

// Relu -> [AffineGrid ->] GridSample -> Sigmoid: the nodes of ours between two onnxruntime parts.
const between = ({ opset = 20, x, grid, affine = false, mode = 'linear', padding = 'zeros', dtype = 'float32' }) => encodeModel({
  opset,
  nodes: [
    { op: 'Relu', inputs: ['X'], outputs: ['A'] },
    ...(affine ? [{ op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['grid'] }] : []),
    { op: 'GridSample', inputs: ['A', 'grid'], outputs: ['B'], attrs: { mode, padding_mode: padding } },
    { op: 'Sigmoid', inputs: ['B'], outputs: ['Y'] },
  ],
  inputs: [{ name: 'X', dtype, dims: x }, affine ? { name: 'theta', dtype, dims: [x[0], 2, 3] } : { name: 'grid', dtype, dims: grid }],
  initializers: affine ? [{ name: 'size', dtype: 'int64', dims: [4], data: BigInt64Array.from([x[0], x[1], ...grid.slice(1, 3)], BigInt) }] : [],
  outputs: [{ name: 'Y', dtype, dims: [x[0], x[1], ...grid.slice(1, -1)] }],
});

describe('the same session, the same feeds: the same bytes on every run (issue 44, item 5)', () => {
  const model = between({ x: [1, 3, 13, 17], grid: [1, 9, 11, 2], padding: 'border' });
  for (const placement of ['auto', 'onnxruntime', 'gridsample']) {
    test(`placement '${placement}': four runs of Relu -> GridSample -> Sigmoid return identical bytes`, async () => {
      const s = await InferenceSession.create(model, { ort, gridsample: gs, placement });
      // Border padding: onnxruntime's GridSample and ours differ in the last bit here (6e-8
      // after the Sigmoid), so a run on another placement than the others shows.
      const feeds = { X: tensor([1, 3, 13, 17], 5), grid: tensor([1, 9, 11, 2], 6, -1.3, 1.3) };
      const runs = [];
      for (let i = 0; i < 4; ++i) runs.push(bytesOf(await s.run(feeds)));
      for (const [i, b] of runs.entries()) assert.equal(b, runs[0], `run ${i + 1} differs from run 1`);
      await s.release();
    });
  }
});

describe("placement 'auto': the faster of the split and onnxruntime's placement, from whole runs timed on the first feeds", () => {
  // onnxruntime-node with its sessions counted (made, released, alive at most at once);
  // `failOn`: the creations (counted from 1) that throw; `slow(session)`: sessions whose runs
  // take 5 ms longer (true), or only their first n runs 1 ms longer (a number n).
  const counting = ({ failOn = [], slow = () => false } = {}) => {
    const counts = { created: 0, released: 0, mostAlive: 0 };
    let tries = 0;
    const wrapped = {
      ...ort,
      InferenceSession: {
        async create(...args) {
          if (failOn.includes(++tries)) throw new Error('out of memory (a test double)');
          const session = await ort.InferenceSession.create(...args);
          counts.created += 1;
          counts.mostAlive = Math.max(counts.mostAlive, counts.created - counts.released);
          const release = session.release.bind(session);
          session.release = () => { counts.released += 1; return release(); };
          const slowed = slow(session);
          if (slowed) {
            const run = session.run.bind(session);
            let runs = 0;
            session.run = async (...a) => {
              if (slowed === true || ++runs <= slowed) await sleep(slowed === true ? 5 : 1);
              return run(...a);
            };
          }
          return session;
        },
      },
    };
    return { counts, ort: wrapped };
  };
  const feedsOf = (x, grid, seed) => ({ X: tensor(x, seed), grid: tensor(grid, seed + 1, -1.2, 1.2) });
  const x = [1, 2, 8, 8];
  const grid = [1, 8, 8, 2];

  test('the first run times both placements, keeps the faster and returns its result; plan() reports the medians', async () => {
    const model = between({ x, grid });
    const { counts, ort: counted } = counting();
    const s = await InferenceSession.create(model, { ort: counted, gridsample: gs });
    const whole = await ort.InferenceSession.create(model);
    assert.equal(counts.created, 2);
    assert.match(placements(s)[0].why, /placement "auto" decides at the first run/);
    assert.deepEqual(s.plan().placement, { option: 'auto', decided: false, measured: null });
    const feeds = feedsOf(x, grid, 3);
    const first = await s.run(feeds, { profile: true });
    assertClose(first, await whole.run(feeds), 1e-6);
    const { placement } = s.plan();
    assert.equal(placement.decided, true);
    // The first run's profile is of the split's run, and carries the decision.
    assert.deepEqual(s.lastProfile.parts.map((q) => q.runsOn), ['onnxruntime', 'gridsample', 'onnxruntime']);
    assert.deepEqual(s.lastProfile.placement, placement);
    const { split, onnxruntime } = placement.measured;
    for (const m of [split, onnxruntime]) assert.ok(m.runs >= 1 && m.runs <= 1000 && m.median > 0 && m.p90 >= m.median, JSON.stringify(m));
    const [p] = placements(s);
    assert.equal(p.runsOn, onnxruntime.median <= split.median ? 'onnxruntime' : 'gridsample');
    assert.match(p.why, new RegExp(`^${TIMED_REASON}$`));
    // One placement at a time: the split's sessions were released before the merged one was made.
    assert.equal(counts.mostAlive, 2);
    assert.deepEqual(s.plan().counts.onnxruntimeSessions, p.runsOn === 'onnxruntime' ? 1 : 2);
    assert.equal(bytesOf(await s.run(feeds)), bytesOf(first));
    await Promise.all([s.release(), whole.release()]);
    assert.equal(counts.created, counts.released);
  });

  test('the measured times decide, not an estimate: a slower onnxruntime session keeps the split, a slower gridsample moves the node', async () => {
    const model = between({ x, grid });
    const feeds = feedsOf(x, grid, 5);
    const whole = await ort.InferenceSession.create(model);
    const want = await whole.run(feeds);
    // The merged session is the one that reads the grid.
    const { ort: slowOrt } = counting({ slow: (session) => session.inputNames.includes('grid') });
    const kept = await InferenceSession.create(model, { ort: slowOrt, gridsample: gs });
    assertClose(await kept.run(feeds), want, 1e-6);
    assert.equal(placements(kept)[0].runsOn, 'gridsample');
    const measured = kept.plan().placement.measured;
    assert.ok(measured.onnxruntime.median >= 5 && measured.split.median < measured.onnxruntime.median, JSON.stringify(measured));
    assert.equal(kept.plan().counts.gridsampleNodes, 1);
    const slowGs = { ...gs, gridSample: (...a) => { spin(5); return gs.gridSample(...a); } };
    const moved = await InferenceSession.create(model, { ort, gridsample: slowGs });
    assertClose(await moved.run(feeds), want, 1e-6);
    assert.equal(placements(moved)[0].runsOn, 'onnxruntime');
    assert.ok(moved.plan().placement.measured.split.median >= 5, JSON.stringify(moved.plan().placement.measured));
    assert.equal(moved.plan().counts.gridsampleNodes, 0);
    await Promise.all([kept.release(), moved.release(), whole.release()]);
  });

  test("a split slow only in its first runs (code still warming up) is timed again before onnxruntime's placement wins", async () => {
    const model = between({ x, grid });
    const feeds = feedsOf(x, grid, 9);
    const want = await (await ort.InferenceSession.create(model)).run(feeds);
    // The split's first timing is of 12 calls (its first run, 2 untimed, 9 timed): each 10 ms
    // slower, as a fresh process's first runs are; the merged session 5 ms slower throughout.
    let calls = 0;
    const warming = { ...gs, gridSample: (...a) => { if (++calls <= 12) spin(10); return gs.gridSample(...a); } };
    const { counts, ort: slowOrt } = counting({ slow: (session) => session.inputNames.includes('grid') });
    const s = await InferenceSession.create(model, { ort: slowOrt, gridsample: warming });
    assertClose(await s.run(feeds), want, 1e-6);
    const { split, onnxruntime, firstSplit } = s.plan().placement.measured;
    assert.ok(firstSplit?.median >= 10 && onnxruntime.median >= 5 && split.median < onnxruntime.median, JSON.stringify(s.plan().placement.measured));
    const [p] = placements(s);
    assert.equal(p.runsOn, 'gridsample');
    assert.match(p.why, / ms split \(timed again after onnxruntime's runs; \S+ ms in its first\), /);
    assert.equal(counts.mostAlive, 2, 'one placement at a time');
    await s.release();
    assert.equal(counts.created, counts.released);
  });

  test('a model of microseconds is timed over 30 ms of runs per placement: onnxruntime slow only in its first 20 runs still wins', async () => {
    // The split 0.3 ms slower in every run; the merged session 1 ms slower in its first 20, as
    // code still warming up is (9 timed runs after 3 untimed ones would see only those).
    const model = between({ x, grid });
    const feeds = feedsOf(x, grid, 11);
    const slowGs = { ...gs, gridSample: (...a) => { spin(0.3); return gs.gridSample(...a); } };
    const { counts, ort: warming } = counting({ slow: (session) => session.inputNames.includes('grid') && 20 });
    const s = await InferenceSession.create(model, { ort: warming, gridsample: slowGs });
    assertClose(await s.run(feeds), await (await ort.InferenceSession.create(model)).run(feeds), 1e-6);
    const { split, onnxruntime } = s.plan().placement.measured;
    assert.ok(onnxruntime.runs > 20 && onnxruntime.median < 0.3 && split.median >= 0.3, JSON.stringify(s.plan().placement.measured));
    assert.equal(placements(s)[0].runsOn, 'onnxruntime');
    await s.release();
    assert.equal(counts.created, counts.released);
  });

  test('a slow model is decided from one timed run of each', async () => {
    const model = between({ x, grid });
    const slowGs = { ...gs, gridSample: (...a) => { spin(210); return gs.gridSample(...a); } };
    const s = await InferenceSession.create(model, { ort, gridsample: slowGs });
    await s.run(feedsOf(x, grid, 7));
    const { split, onnxruntime } = s.plan().placement.measured;
    assert.equal(split.runs, 1);
    assert.ok(split.median >= 210 && onnxruntime.runs > 1, 'the fast placement gets more runs');
    assert.equal(placements(s)[0].runsOn, 'onnxruntime');
    await s.release();
  });

  test('a constant our nodes read from the wasm heap (1 MiB or more) keeps the split untimed: timing both would hold it twice', async () => {
    // X (an initializer) -> GridSample -> Relu; X 1x4x256xW float32: 1 MiB at W = 256 (copied into
    // the wasm heap at create()), 4 KiB less at W = 255 (a JavaScript copy, timed as before).
    const constantX = (w) => encodeModel({
      opset: 20,
      nodes: [{ op: 'GridSample', inputs: ['X', 'grid'], outputs: ['B'] }, { op: 'Relu', inputs: ['B'], outputs: ['Y'] }],
      inputs: [{ name: 'grid', dtype: 'float32', dims: grid }],
      initializers: [{ name: 'X', dtype: 'float32', dims: [1, 4, 256, w], data: tensor([1, 4, 256, w], 17).data }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 4, 8, 8] }],
    });
    const feeds = { grid: tensor(grid, 19, -1.2, 1.2) };
    for (const [w, timed] of [[256, false], [255, true]]) {
      const model = constantX(w);
      const { counts, ort: counted } = counting();
      const s = await InferenceSession.create(model, { ort: counted, gridsample: gs });
      const whole = await ort.InferenceSession.create(model);
      assertClose(await s.run(feeds), await whole.run(feeds), 1e-6);
      const [p] = placements(s);
      if (timed) {
        assert.ok(s.plan().placement.measured && counts.created >= 2, `W = ${w}: both placements timed`);
      } else {
        assert.deepEqual([p.runsOn, s.plan().placement.measured, counts.created], ['gridsample', null, 1], `W = ${w}: the merged session never made`);
        assert.equal(p.why, 'placement \'auto\' kept it on gridsample untimed: timing the other placement would hold "X" (1 MiB) twice, '
          + "in gridsample's wasm heap and in onnxruntime's");
      }
      await Promise.all([s.release(), whole.release()]);
    }
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
    const small = [1, 1, 4, 4];
    const model = between({ x: small, grid: [1, 4, 4, 2] });
    const { counts, ort: failing } = counting({ failOn: [3] });
    const s = await InferenceSession.create(model, { ort: failing, gridsample: gs });
    const whole = await ort.InferenceSession.create(model);
    const feeds = feedsOf(small, [1, 4, 4, 2], 13);
    assertClose(await s.run(feeds), await whole.run(feeds), 1e-6);
    const [p] = placements(s);
    assert.equal(p.runsOn, 'gridsample');
    assert.match(p.why, /^onnxruntime could not take it: .*out of memory \(a test double\)/);
    assertClose(await s.run(feeds), await whole.run(feeds), 1e-6);
    await Promise.all([s.release(), whole.release()]);
    assert.deepEqual(counts, { created: 4, released: 4, mostAlive: 2 }, 'the split made, released, and made again');
  });

  test('options.placement is checked', async () => {
    await assert.rejects(InferenceSession.create(between({ x: [1, 1, 2, 2], grid: [1, 2, 2, 2] }), { ort, placement: 'fast' }),
      /^TypeError: InferenceSession\.create: options\.placement: expected "auto" or "gridsample" or "onnxruntime", got "fast"$/);
  });
});

describe('the deformable-attention block of an RT-DETR / D-FINE decoder layer (value Split per level, GridSample, Concat, Mul, ReduceSum)', () => {
  // model_graph.mjs's MSDeformAttn at test sizes, as transformers' PyTorch code exports it (opset 16).
  const LEVELS = [[8, 8], [4, 4], [2, 2]];
  const [Q, D] = [10, 16];
  const g = graph();
  deformableAttention(g, lcg(44), { levels: LEVELS, heads: 2, points: 3, dim: D, queries: Q });
  const LEN = LEVELS.reduce((a, [h, w]) => a + h * w, 0);
  const model = encodeModel({
    opset: 16,
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [
      { name: 'query', dtype: 'float32', dims: [1, Q, D] },
      { name: 'reference_points', dtype: 'float32', dims: [1, Q, 1, 2] },
      { name: 'value', dtype: 'float32', dims: [1, LEN, D] },
    ],
    outputs: [{ name: 'output', dtype: 'float32', dims: [1, Q, D] }],
  });
  const feeds = { query: tensor([1, Q, D], 1), reference_points: tensor([1, Q, 1, 2], 2, 0, 1), value: tensor([1, LEN, D], 3) };

  for (const placement of ['auto', 'gridsample', 'onnxruntime']) {
    test(`placement '${placement}': equal to onnxruntime alone, the same bytes on every run`, async () => {
      // Unfused: the placement of the chain's GridSample nodes (onnx_deformable_fusion.test.mjs has the fused node's).
      const s = await InferenceSession.create(model, { ort, gridsample: gs, placement, fuseAttention: false });
      assert.equal(s.plan().parts.filter((p) => p.runsOn === 'gridsample').length, 1, 'the three GridSample nodes are one part');
      const whole = await ort.InferenceSession.create(model);
      const first = await s.run(feeds);
      assertClose(first, await whole.run(feeds), 1e-5);
      for (let i = 0; i < 2; ++i) assert.equal(bytesOf(await s.run(feeds)), bytesOf(first));
      const on = placements(s).map((p) => p.runsOn);
      assert.deepEqual(on, Array(3).fill(placement === 'auto' ? on[0] : placement));
      await Promise.all([s.release(), whole.release()]);
    });
  }
});
