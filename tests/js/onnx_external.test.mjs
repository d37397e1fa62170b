// gridsample/onnx on models that keep their weights in an external file (model.onnx beside weights.bin), written here and compared with onnxruntime-node running the same model from its path; every way of giving the file, and every way it can be wrong.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { load } from '../../js/node.mjs';
import { InferenceSession, OnnxModelError } from '../../js/onnx.mjs';
import { compareOutputs } from '../../js/onnx/timing.mjs';
import { encodeModel, externalize } from './lib/onnx_model.mjs';
import { random } from './lib/random.mjs';

const QUIET = { logSeverityLevel: 4 };

// X * W (onnxruntime) -> GridSample with the grid G -> + C; AffineGrid(T, S) -> GridSample(X):
// W, G and T are external (G and T are read by gridsample, W by onnxruntime); C and S are not
// (onnxruntime's shape inference reads S, and only from the model), and G is also a graph output.
function spec(initializers) {
  return {
    opset: 20,
    irVersion: 9,
    nodes: [
      { op: 'Mul', inputs: ['X', 'W'], outputs: ['A'] },
      { op: 'GridSample', inputs: ['A', 'G'], outputs: ['B'], attrs: { mode: 'cubic', padding_mode: 'border' } },
      { op: 'Add', inputs: ['B', 'C'], outputs: ['Y'] },
      { op: 'AffineGrid', inputs: ['T', 'S'], outputs: ['grid'], attrs: { align_corners: 1 } },
      { op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Z'] },
    ],
    inputs: [{ name: 'X', dtype: 'float32', dims: [1, 2, 5, 6] }],
    outputs: [
      { name: 'Y', dtype: 'float32', dims: [1, 2, 3, 4] },
      { name: 'Z', dtype: 'float32', dims: [1, 2, 4, 3] },
      { name: 'G', dtype: 'float32', dims: [1, 3, 4, 2] },
    ],
    initializers,
  };
}

const INITIALIZERS = [
  { name: 'W', dtype: 'float32', dims: [1, 2, 1, 1], data: Float32Array.of(0.5, -2) },
  { name: 'G', dtype: 'float32', dims: [1, 3, 4, 2], data: random(24, 7, -1.1, 1.1) },
  { name: 'C', dtype: 'float32', dims: [1], data: Float32Array.of(0.25) },
  { name: 'T', dtype: 'float32', dims: [1, 2, 3], data: Float32Array.of(0.9, -0.2, 0.1, 0.3, 0.8, -0.05) },
  { name: 'S', dtype: 'int64', dims: [4], data: BigInt64Array.of(1n, 2n, 4n, 3n) },
];
const FILE = 'weights.bin';

// The model's bytes and its external file, `change` applied to the external entries first.
function written(change = (initializers) => initializers, location = FILE) {
  const { initializers, data } = externalize(INITIALIZERS, ['W', 'G', 'T'], location);
  return { model: encodeModel(spec(change(initializers))), data };
}

let gs;
let dir;
let want;
const feeds = { X: new ort.Tensor('float32', random(60, 8, -1, 1), [1, 2, 5, 6]) };

// The model and its file in a folder of their own; returns the model's path.
function save(name, { model, data }, location = FILE) {
  const base = mkdtempSync(join(dir, `${name}-`));
  writeFileSync(join(base, 'model.onnx'), model);
  if (data) writeFileSync(join(base, location), data);
  return join(base, 'model.onnx');
}

function assertMatches(got) {
  assert.deepEqual(Object.keys(got), ['Y', 'Z', 'G']);
  for (const [name, { maxAbsDiff }] of Object.entries(compareOutputs(got, want))) {
    assert.deepEqual(got[name].dims, want[name].dims, name);
    assert.ok(maxAbsDiff <= 1e-5, `${name}: max abs diff ${maxAbsDiff}`);
  }
}

async function runs(model, options) {
  const s = await InferenceSession.create(model, { ort, gridsample: gs, ...options });
  try {
    assert.deepEqual(s.plan().parts.map((p) => p.runsOn), ['onnxruntime', 'gridsample', 'onnxruntime']);
    assertMatches(await s.run(feeds));
  } finally {
    await s.release();
  }
}

// A rejection with a one-line OnnxModelError matching `pattern`.
const modelError = (promise, pattern) => assert.rejects(promise, (e) => {
  assert.ok(e instanceof OnnxModelError, `an OnnxModelError, got ${e?.name}: ${e?.message}`);
  assert.match(e.message, pattern);
  assert.doesNotMatch(e.message, /\n/);
  return true;
});

before(async () => {
  gs = await load();
  dir = mkdtempSync(join(tmpdir(), 'gridsample-external-'));
  // The oracle: onnxruntime-node reads the external file beside the model's path itself.
  const oracle = await ort.InferenceSession.create(save('oracle', written()));
  want = await oracle.run(feeds);
  await oracle.release();
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('a model with external data equals onnxruntime-node on it', () => {
  test('given as a path or a file: URL, its file is found beside it', async () => {
    const path = save('beside', written());
    await runs(path);
    await runs(pathToFileURL(path));
  });

  test('given as bytes with options.externalData: bytes, an ArrayBuffer, a Blob, a path', async () => {
    const { model, data } = written();
    const path = save('given', { model, data });
    for (const given of [data, data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength), new Blob([data]), join(path, '..', FILE)]) {
      await runs(model, { externalData: [{ path: FILE, data: given }] });
    }
    // A './' before the location or the path is the same file, as in onnxruntime-web.
    await runs(model, { externalData: [{ path: `./${FILE}`, data }] });
  });

  test('a model without GridSample (one onnxruntime session)', async () => {
    const { initializers, data } = externalize([INITIALIZERS[0]], ['W'], FILE);
    const model = encodeModel({
      opset: 20,
      nodes: [{ op: 'Mul', inputs: ['X', 'W'], outputs: ['A'] }],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 2, 5, 6] }],
      outputs: [{ name: 'A', dtype: 'float32', dims: [1, 2, 5, 6] }],
      initializers,
    });
    const oracle = await ort.InferenceSession.create(save('whole', { model, data }));
    const s = await InferenceSession.create(model, { ort, externalData: [{ path: FILE, data }] });
    assert.deepEqual(Array.from((await s.run(feeds)).A.data), Array.from((await oracle.run(feeds)).A.data));
    await Promise.all([s.release(), oracle.release()]);
  });
});

describe('external data that is missing or wrong is refused at create(), naming the tensor', () => {
  test('options.externalData itself', async () => {
    const { model } = written();
    await assert.rejects(InferenceSession.create(model, { ort, externalData: FILE }), { name: 'TypeError', message: /options\.externalData: expected an array/ });
    await assert.rejects(InferenceSession.create(model, { ort, externalData: [{ path: FILE, data: 42 }] }),
      { name: 'TypeError', message: /options\.externalData\[0\]\.data: expected a path or URL, a Blob, an ArrayBuffer or a Uint8Array, got number 42/ });
    await assert.rejects(InferenceSession.create(model, { ort, externalData: [{ data: new Uint8Array(4) }] }), { name: 'TypeError', message: /options\.externalData\[0\]\.path: expected/ });
  });

  test('bytes without the file', async () => {
    await modelError(InferenceSession.create(written().model, { ort, gridsample: gs }),
      /^gridsample\/onnx: model "g": initializer "W" keeps its data in "weights\.bin": pass that file as options\.externalData: \[\{ path: "weights\.bin", data \}\]$/);
    await modelError(InferenceSession.create(written().model, { ort, gridsample: gs, externalData: [{ path: 'other.bin', data: new Uint8Array(8) }] }), /initializer "W" keeps its data in "weights\.bin"/);
  });

  test('a file that cannot be read', async () => {
    const path = save('missing', { model: written().model });
    await modelError(InferenceSession.create(path, { ort, gridsample: gs }), /^gridsample\/onnx: "model\.onnx": cannot read the external data file "weights\.bin" \(".*weights\.bin"\): ENOENT/);
    await modelError(InferenceSession.create(written().model, { ort, gridsample: gs, externalData: [{ path: FILE, data: join(dir, 'nowhere.bin') }] }),
      /cannot read the external data file "weights\.bin" \(".*nowhere\.bin"\): ENOENT/);
  });

  test('a file too short for a tensor (onnxruntime-node refuses it too)', async () => {
    const { model, data } = written();
    const short = data.subarray(0, data.length - 4);
    await assert.rejects(ort.InferenceSession.create(save('short', { model, data: short }), QUIET));
    await modelError(InferenceSession.create(model, { ort, gridsample: gs, externalData: [{ path: FILE, data: short }] }),
      /initializer "T" has external data at offset \d+, 24 bytes, past the end of "weights\.bin" \(\d+ bytes\)$/);
  });

  test('a length that does not fit the tensor, an offset past the end, an offset that is not a byte count', async () => {
    const edit = (name, entries) => (initializers) => initializers.map((t) => (t.name === name ? { ...t, external: { ...t.external, ...entries } } : t));
    const cases = [
      [{ length: 20 }, /initializer "G" has external data of length 20 bytes, expected 96 for its type and dimensions$/],
      [{ offset: 4096 }, /initializer "G" has external data at offset 4096, 96 bytes, past the end of "weights\.bin" \(\d+ bytes\)$/],
      [{ offset: -16 }, /initializer "G" external data offset "-16" is not a byte count$/],
      [{ offset: '1e3' }, /initializer "G" external data offset "1e3" is not a byte count$/],
    ];
    for (const [entries, pattern] of cases) {
      const { model, data } = written(edit('G', entries));
      await modelError(InferenceSession.create(model, { ort, gridsample: gs, externalData: [{ path: FILE, data }] }), pattern);
    }
  });

  test('a location outside the model\'s folder is not read', async () => {
    for (const location of ['../weights.bin', '/etc/hostname', 'file:///etc/hostname']) {
      const path = save('outside', { model: written(undefined, location).model });
      await modelError(InferenceSession.create(path, { ort, gridsample: gs }), /initializer "W" keeps its data in ".*", which is not a file beside the model$/);
    }
  });
});

test('with onnxruntime-web, whose parts get the file through its own externalData option', async () => {
  const web = await import('onnxruntime-web');
  web.env.wasm.numThreads = 1;
  const { model, data } = written();
  const s = await InferenceSession.create(model, { ort: web, gridsample: gs, externalData: [{ path: FILE, data }] });
  const got = await s.run({ X: new web.Tensor('float32', feeds.X.data, feeds.X.dims) });
  assertMatches(got);
  await s.release();
});
