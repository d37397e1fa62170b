// gridsample/onnx sessions across runs: runs called together queue as onnxruntime-web runs them, and placement moves a node back into onnxruntime's part when that saves more than the boundary costs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { assertClose, modelError, SPLIT, tensor } from './lib/onnx_session_checks.mjs';

let gs;
before(async () => {
  gs = await load();
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

describe('attributes read as onnxruntime reads them (issue 44)', () => {
  // AffineGrid, then GridSample (rank 2), and a second GridSample on the input grid: each
  // align_corners a non-zero value other than 1, which onnxruntime reads as true.
  const model = (affine, sample) => encodeModel({
    opset: 20,
    nodes: [
      { op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['G'], attrs: { align_corners: affine } },
      { op: 'GridSample', inputs: ['X', 'G'], outputs: ['Y'], attrs: { align_corners: sample } },
      { op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Z'], attrs: { align_corners: sample, mode: 'cubic', padding_mode: 'reflection' } },
    ],
    inputs: [
      { name: 'X', dtype: 'float32', dims: [1, 2, 5, 7] }, { name: 'theta', dtype: 'float32', dims: [1, 2, 3] },
      { name: 'size', dtype: 'int64', dims: [4] }, { name: 'grid', dtype: 'float32', dims: [1, 3, 4, 2] },
    ],
    outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 2, 4, 6] }, { name: 'Z', dtype: 'float32', dims: [1, 2, 3, 4] }],
  });
  const feeds = {
    X: tensor([1, 2, 5, 7], 31), theta: new ort.Tensor('float32', Float32Array.of(0.9, -0.3, 0.1, 0.2, 1.1, -0.2), [1, 2, 3]),
    size: new ort.Tensor('int64', BigInt64Array.of(1n, 2n, 4n, 6n), [4]), grid: tensor([1, 3, 4, 2], 32, -1.3, 1.3),
  };

  for (const [affine, sample] of [[2, 2], [-1, -1], [7, -1]]) {
    test(`align_corners ${affine} (AffineGrid) and ${sample} (GridSample) run as onnxruntime runs them: as 1`, async () => {
      const s = await InferenceSession.create(model(affine, sample), { ort, gridsample: gs, ...SPLIT });
      assert.ok(s.plan().parts.some((p) => p.runsOn === 'gridsample'), 'GridSample runs on gridsample');
      const oracle = await ort.InferenceSession.create(model(affine, sample));
      const want = await oracle.run(feeds);
      assertClose(await s.run(feeds), want, 1e-5);
      // And align_corners 0 gives another picture: the attribute was read, not ignored.
      const zero = await ort.InferenceSession.create(model(0, 0));
      const other = await zero.run(feeds);
      assert.ok(other.Y.data.some((v, i) => Math.abs(v - want.Y.data[i]) > 1e-3) && other.Z.data.some((v, i) => Math.abs(v - want.Z.data[i]) > 1e-3));
      await Promise.all([s.release(), oracle.release(), zero.release()]);
    });
  }
});
