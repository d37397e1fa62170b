// gridsample/onnx sessions across runs: runs called together queue as onnxruntime-web runs them, and attributes are read as onnxruntime reads them (placement has its own file, onnx_placement.test.mjs).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { assertClose, modelError, SPLIT, tensor } from './lib/onnx_session_checks.mjs';

ortWeb.env.wasm.numThreads = 1; // no worker threads in the test process

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

  // onnxruntime-web writes its defaults (logSeverityLevel, ...) into the run options it is given:
  // each part gets an object of the run's own, so frozen options work and the caller's stay as given.
  test('run options: none, frozen or reused, on onnxruntime-web; the caller\'s object is left as it was', async () => {
    const s = await InferenceSession.create(split, { ort: ortWeb, gridsample: gs, ...SPLIT });
    const own = await ortWeb.InferenceSession.create(split);
    const webFeeds = (i) => Object.fromEntries(Object.entries(feedsFor(i)).map(([k, t]) => [k, new ortWeb.Tensor('float32', t.data, t.dims)]));
    const want = await own.run(webFeeds(2));
    const frozen = Object.freeze({ tag: 'frozen' });
    const reused = { tag: 'reused', profile: false };
    for (const options of [undefined, frozen, reused, reused]) {
      assertClose(await s.run(webFeeds(2), options), want, 1e-6);
    }
    assert.deepEqual(reused, { tag: 'reused', profile: false });
    await s.release();
    await own.release();
  });

  // onnxruntime reads run options only after fetches: a session run whole on onnxruntime (a model
  // without GridSample, or one whose placement left every node there) given options but no
  // fetches once dropped them. onnxruntime-web ends a run whose options say terminate.
  for (const [what, model, placement] of [['a model without GridSample', whole, 'auto'], ['a split model placed whole on onnxruntime', split, 'onnxruntime']]) {
    test(`${what}: run options reach onnxruntime-web with or without fetches`, async () => {
      const s = await InferenceSession.create(model, { ort: ortWeb, gridsample: gs, placement });
      const own = await ortWeb.InferenceSession.create(model);
      const webFeeds = Object.fromEntries(Object.entries(feedsFor(1)).map(([k, t]) => [k, new ortWeb.Tensor('float32', t.data, t.dims)]));
      const want = await own.run(webFeeds);
      assertClose(await s.run(webFeeds), want, 1e-6); // the first run decides placement
      await assert.rejects(own.run(webFeeds, { terminate: true }), /terminate flag/);
      await modelError(s.run(webFeeds, { terminate: true }), /onnxruntime failed.*terminate flag/);
      await modelError(s.run(webFeeds, ['Y'], { terminate: true, profile: true }), /onnxruntime failed.*terminate flag/);
      assertClose(await s.run(webFeeds, { profile: true }), want, 1e-6);
      assert.equal(s.plan().counts.onnxruntimeSessions, 1);
      await s.release();
      await own.release();
    });
  }
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
