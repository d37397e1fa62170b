// gridsample/onnx's error paths: options, files, opsets, attributes and graphs refused at create() with one-line OnnxModelErrors naming the model and the node; failing runs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';

import { load } from '../../js/node.mjs';
import { InferenceSession, OnnxModelError } from '../../js/onnx.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { modelError, QUIET, random, runsOn, SPLIT, tensor } from './lib/onnx_session_checks.mjs';

ortWeb.env.wasm.numThreads = 1; // no worker threads in the test process

let gs;
before(async () => {
  gs = await load();
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

    test("fetches [] is refused in onnxruntime's own words, as onnxruntime-node and onnxruntime-web refuse it", async () => {
      for (const runtime of [ort, ortWeb]) {
        const own = await runtime.InferenceSession.create(grid1(20));
        const ownFeeds = { X: new runtime.Tensor('float32', tensor([1, 1, 4, 4], 1).data, [1, 1, 4, 4]), grid: new runtime.Tensor('float32', tensor([1, 2, 2, 2], 2).data, [1, 2, 2, 2]) };
        await assert.rejects(own.run(ownFeeds, []), { name: 'TypeError', message: "'fetches' cannot be an empty array." });
        await own.release();
      }
      await assert.rejects(s.run(feeds(), []), OnnxModelError);
      await rejects(s.run(feeds(), []), /^gridsample\/onnx: model "one_node": run: 'fetches' cannot be an empty array\.$/);
      await rejects(s.run(feeds(), [], {}), /run: 'fetches' cannot be an empty array\.$/);
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
