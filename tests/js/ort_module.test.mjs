// The onnxruntime-shaped module of gridsample/ort and gridsample/transformers (js/onnx/ort_module.mjs): what it keeps of onnxruntime's, its create() forms, handler.dispose(), and which wasmPaths it sets aside.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { InferenceSession as SplitSession } from '../../js/onnx.mjs';
import { isTransformersCdn, ortModule } from '../../js/onnx/ort_module.mjs';
import { BASIC } from './lib/onnx_examples.mjs';
import { encodeModel } from './lib/onnx_model.mjs';

// The ONNX documentation example with a Relu after it: one onnxruntime part, one of ours.
const MODEL = encodeModel({
  opset: 16,
  nodes: [
    { op: 'GridSample', inputs: ['X', 'grid'], outputs: ['S'], attrs: { mode: 'bilinear' } },
    { op: 'Relu', inputs: ['S'], outputs: ['Y'] },
  ],
  inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }, { name: 'grid', dtype: 'float32', dims: [1, 6, 6, 2] }],
  outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 6, 6] }],
});
const QUIET = { logSeverityLevel: 4 };

const feeds = () => ({
  X: new ort.Tensor('float32', BASIC.x.data, BASIC.x.shape),
  grid: new ort.Tensor('float32', BASIC.grid.data, BASIC.grid.shape),
});

describe('ortModule', () => {
  const shaped = ortModule(ort);

  test("everything but InferenceSession is onnxruntime's own", () => {
    assert.equal(shaped.Tensor, ort.Tensor);
    assert.equal(shaped.env, ort.env);
    assert.notEqual(shaped.InferenceSession, ort.InferenceSession);
    assert.equal(shaped.default, shaped);
    assert.ok(Object.isFrozen(shaped));
    assert.equal(ortModule(shaped), shaped, 'a shaped module is not wrapped twice');
    assert.throws(() => new shaped.InferenceSession(), /InferenceSession\.create/);
  });

  test('create(bytes, options) makes the split session; results are onnxruntime tensors', async () => {
    const session = await shaped.InferenceSession.create(MODEL, QUIET);
    assert.ok(session instanceof SplitSession);
    assert.ok(session instanceof shaped.InferenceSession);
    assert.deepEqual(session.plan().parts.map((p) => p.runsOn), ['gridsample', 'onnxruntime']);
    const { Y } = await session.run(feeds());
    assert.ok(Y instanceof ort.Tensor);
    assert.deepEqual(Array.from(Y.data, (v) => Math.round(v * 100) / 100), BASIC.y);
    await session.release();
  });

  test("onnxruntime's create(buffer, byteOffset, byteLength, options) form", async () => {
    const padded = new Uint8Array(MODEL.length + 24);
    padded.set(MODEL, 16);
    const session = await shaped.InferenceSession.create(padded.buffer, 16, MODEL.length, QUIET);
    assert.deepEqual(session.inputNames, ['X', 'grid']);
    await session.release();
    // byteLength left out: to the end of the buffer.
    const tail = new Uint8Array(MODEL.length + 8);
    tail.set(MODEL, 8);
    const rest = await shaped.InferenceSession.create(tail.buffer, 8, QUIET);
    assert.deepEqual(rest.outputNames, ['Y']);
    await rest.release();
  });

  test('handler.dispose() releases the session and every onnxruntime part', async () => {
    const session = await shaped.InferenceSession.create(MODEL, QUIET);
    await session.handler.dispose();
    await assert.rejects(session.run(feeds()), /released/);
    await session.handler.dispose(); // a second dispose is a no-op, as release()
  });

  test("options.ort is the wrapped module's, whatever the caller passes", async () => {
    const session = await shaped.InferenceSession.create(MODEL, { ...QUIET, ort: 'not a module' });
    assert.ok((await session.run(feeds())).Y instanceof ort.Tensor);
    await session.release();
  });
});

describe('isTransformersCdn', () => {
  test("transformers.js's defaults: 3.x's dist/ prefix, 4.x's onnxruntime-web { mjs, wasm }", () => {
    assert.ok(isTransformersCdn('https://cdn.jsdelivr.net/npm/@huggingface/transformers@3.8.1/dist/'));
    assert.ok(isTransformersCdn({
      mjs: 'https://cdn.jsdelivr.net/npm/onnxruntime-web@1.31.0-dev.20260914-8d85527a0/dist/ort-wasm-simd-threaded.asyncify.mjs',
      wasm: 'https://cdn.jsdelivr.net/npm/onnxruntime-web@1.31.0-dev.20260914-8d85527a0/dist/ort-wasm-simd-threaded.asyncify.wasm',
    }));
  });

  test("the caller's own settings are kept", () => {
    for (const paths of [undefined, '', '/ort/', 'https://example.com/npm/onnxruntime-web@1.30.0/dist/', 'https://cdn.jsdelivr.net/npm/other@1.0.0/dist/', {},
      { mjs: 'https://cdn.jsdelivr.net/npm/onnxruntime-web@1.30.0/dist/a.mjs', wasm: '/local/a.wasm' }]) {
      assert.equal(isTransformersCdn(paths), false, JSON.stringify(paths));
    }
  });
});

describe('gridsample/transformers (js/transformers.mjs, in a process of its own)', () => {
  const MODULE = new URL('../../js/transformers.mjs', import.meta.url).href;
  const ORT_NODE = import.meta.resolve('onnxruntime-node');
  const program = (body) => execFileSync(process.execPath, ['--input-type=module', '-e', body], { encoding: 'utf8' }).trim();

  test('without onnxruntime-node beside it (js/ has none): one line naming the package to install, and no hook', () => {
    const out = program(`import(${JSON.stringify(MODULE)}).then(() => console.log('imported'), (e) => console.log(e.name + ': ' + e.message + ' | hook: ' + (Symbol.for('onnxruntime') in globalThis)));`);
    assert.equal(out, 'MissingPackageError: gridsample/transformers needs the npm package onnxruntime-node: npm install onnxruntime-node | hook: false');
  });

  test('an onnxruntime module already at the hook is the one wrapped; importing twice wraps once', () => {
    const out = program(`const ort = await import(${JSON.stringify(ORT_NODE)});
globalThis[Symbol.for('onnxruntime')] = ort;
const { default: shaped, Tensor } = await import(${JSON.stringify(MODULE)});
const hook = globalThis[Symbol.for('onnxruntime')];
const again = await import(${JSON.stringify(`${MODULE}?again`)});
console.log([hook === shaped, Tensor === ort.Tensor, hook.env === ort.env, hook.InferenceSession !== ort.InferenceSession, again.default === shaped].join(' '));`);
    assert.equal(out, 'true true true true true');
  });
});
