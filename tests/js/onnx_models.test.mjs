// The example models (web/demo/models) through gridsample/onnx against an oracle: onnxruntime-node running the whole model, or, where it cannot, its parts composed with the plain-JavaScript GridSample of lib/grid_sample_oracle.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { splitModel, subModel } from '../../js/onnx/graph.mjs';
import { decodeModel, loadOnnxReader } from '../../js/onnx/model_proto.mjs';
import { compareOutputs, randomFeeds } from '../../js/onnx/timing.mjs';
import { affineGrid, gridSample } from './lib/grid_sample_oracle.mjs';

const MODELS = new URL('../../web/demo/models/', import.meta.url);
const INDEX = JSON.parse(readFileSync(new URL('index.json', MODELS), 'utf8')).models;
const bytesOf = (file) => new Uint8Array(readFileSync(new URL(file, MODELS)));
const ORT_OPTIONS = { executionProviders: ['cpu'], intraOpNumThreads: 1, logSeverityLevel: 3 };

// Random feeds at the shapes index.json gives, in each input's range.
function feedsFor(model, session, seed) {
  const dims = Object.fromEntries(model.inputs.map((i) => [i.name, i.dims]));
  const ranges = Object.fromEntries(model.inputs.filter((i) => i.range).map((i) => [i.name, i.range]));
  return randomFeeds(ort, session.inputMetadata, { dims, ranges, seed });
}

// The model's onnxruntime parts on onnxruntime-node, its GridSample / AffineGrid nodes on the
// oracle (results rounded to float32, as the nodes' outputs are).
async function composed(bytes, feeds) {
  await loadOnnxReader();
  const proto = decodeModel(bytes, 'oracle');
  const split = splitModel(proto, 'oracle');
  const values = new Map(Object.entries(feeds));
  const types = new Map([...values].map(([n, t]) => [n, t.type]));
  for (const part of split.parts) {
    if (part.runsOn === 'onnxruntime') {
      const session = await ort.InferenceSession.create(subModel(proto, split, part, types), ORT_OPTIONS);
      const out = await session.run(Object.fromEntries(part.inputs.map((n) => [n, values.get(n)])));
      for (const [n, t] of Object.entries(out)) [values.set(n, t), types.set(n, t.type)];
      await session.release();
      continue;
    }
    for (const { node, attrs } of part.nodes) {
      const [a, b] = node.input.map((n) => values.get(n));
      assert.equal(a.type, 'float32', 'the oracle composes float32 models');
      const y = node.opType === 'GridSample' ? gridSample(a, b, attrs) : affineGrid(a, b, attrs);
      values.set(node.output[0], new ort.Tensor('float32', Float32Array.from(y.data), y.dims));
      types.set(node.output[0], 'float32');
    }
  }
  return Object.fromEntries(split.outputs.map((v) => [v.name, values.get(v.name)]));
}

// Target tolerances (issue 12): 1e-4 of the output's scale after convolutions or matrix
// products, 1e-5 for graphs of GridSample alone; float16 outputs within half a float16 unit
// in the last place (onnxruntime samples float16 in float32 and does not round to float16).
function tolerance(model, scale, type) {
  if (type === 'float16' || model.file === 'gridsample_f16.onnx') return scale * 2 ** -11 + 1e-6;
  return (/Conv|MatMul|Gemm/.test(model.ops) ? 1e-4 : 1e-5) * Math.max(1, scale);
}

let gs;
before(async () => {
  gs = await load();
});

describe('example models through the split session', () => {
  for (const model of INDEX) {
    test(`${model.file}: equals ${model.onnxruntimeRuns ? 'onnxruntime-node on the whole model' : 'onnxruntime-node parts + the JavaScript oracle'}`, async (t) => {
      const bytes = bytesOf(model.file);
      const split = await InferenceSession.create(bytes, { ort, gridsample: gs, ...ORT_OPTIONS });
      model.ops = split.plan().parts.flatMap((p) => Object.keys(p.ops)).join(' ');
      const feeds = feedsFor(model, split, 7);
      const got = await split.run(feeds);
      let want;
      if (model.onnxruntimeRuns) {
        const whole = await ort.InferenceSession.create(bytes, ORT_OPTIONS);
        want = await whole.run(feeds);
        await whole.release();
      } else {
        want = await composed(bytes, feeds);
        // onnxruntime alone fails on it, as index.json says.
        const whole = await ort.InferenceSession.create(bytes, { ...ORT_OPTIONS, logSeverityLevel: 4 });
        await assert.rejects(whole.run(feeds), /GridSample/);
        await whole.release();
      }
      for (const [name, { maxAbsDiff, scale }] of Object.entries(compareOutputs(got, want))) {
        const expected = model.outputs.find((o) => o.name === name);
        assert.deepEqual(got[name].dims, expected.dims, `${name} dims`);
        assert.equal(got[name].type, want[name].type, `${name} type`);
        const tol = tolerance(model, scale, got[name].type);
        t.diagnostic(`${name}: max abs diff ${maxAbsDiff.toExponential(2)}, scale ${scale.toPrecision(3)}, tolerance ${tol.toExponential(2)}`);
        assert.ok(maxAbsDiff <= tol, `${model.file} ${name}: max abs diff ${maxAbsDiff} > ${tol} (scale ${scale})`);
        assert.ok(scale > 0, `${name}: an all-zero output would prove nothing`);
      }
      await split.release();
    });
  }
});

describe('the oracle itself', () => {
  // The composition agrees with onnxruntime on models it can run: the oracle and the
  // composition are right where they can be checked.
  for (const file of ['stn28.onnx', 'flow_warp.onnx', 'deformable_attention.onnx']) {
    test(`${file}: onnxruntime-node parts + oracle equal onnxruntime-node`, async () => {
      const model = INDEX.find((m) => m.file === file);
      const bytes = bytesOf(file);
      const whole = await ort.InferenceSession.create(bytes, ORT_OPTIONS);
      const feeds = feedsFor(model, whole, 11);
      const want = await whole.run(feeds);
      const got = await composed(bytes, feeds);
      for (const [name, { maxAbsDiff, scale }] of Object.entries(compareOutputs(got, want))) {
        assert.ok(maxAbsDiff <= 1e-4 * Math.max(1, scale), `${file} ${name}: ${maxAbsDiff}`);
      }
      await whole.release();
    });
  }

  test('its 1-D GridSample equals its 2-D one on a single row (zeros, border, reflection)', () => {
    // 1-D GridSample equals 2-D with H = 1 and y = 0 (align 0 puts y = 0 on the row's centre).
    const x = { data: Float32Array.from({ length: 10 }, (_, i) => (i * 37) % 11 - 5), dims: [1, 2, 5] };
    const coords = [-2.3, -1, -0.61, 0, 0.37, 1, 1.9];
    const g1 = { data: Float32Array.from(coords), dims: [1, 7, 1] };
    const g2 = { data: Float32Array.from(coords.flatMap((c) => [c, 0])), dims: [1, 1, 7, 2] };
    for (const paddingMode of ['zeros', 'border', 'reflection']) {
      const a = gridSample(x, g1, { mode: 'linear', paddingMode });
      const b = gridSample({ data: x.data, dims: [1, 2, 1, 5] }, g2, { mode: 'linear', paddingMode });
      assert.deepEqual(Array.from(a.data), Array.from(b.data), paddingMode);
    }
  });
});

describe('the ONNX reader', () => {
  // Protobuf by hand (wire format: tag = field << 3 | wire type), independent of any reader:
  // varints below 128 and length-delimited fields shorter than 128 bytes.
  const text = (s) => [...new TextEncoder().encode(s)];
  const field = (no, payload) => [(no << 3) | 2, payload.length, ...payload];
  const varint = (no, v) => [no << 3, v];
  const float32Input = (name) => field(11, [...field(1, text(name)), ...field(2, field(1, varint(1, 1)))]);

  test('a node\'s fields newer than its onnx.proto (ONNX 1.16\'s NodeProto.metadata_props) reach the sub-model', async () => {
    await loadOnnxReader();
    const metadata = field(9, [...field(1, text('k')), ...field(2, text('v'))]);
    const relu = field(1, [...field(1, text('x')), ...field(2, text('r')), ...field(4, text('Relu')), ...metadata]);
    const gs = field(1, [...field(1, text('r')), ...field(1, text('grid')), ...field(2, text('y')), ...field(4, text('GridSample'))]);
    const graph = field(7, [...relu, ...gs, ...field(2, text('g')), ...float32Input('x'), ...float32Input('grid'), ...field(12, field(1, text('y')))]);
    const bytes = new Uint8Array([...varint(1, 8), ...field(8, varint(2, 20)), ...graph]);
    const proto = decodeModel(bytes, 'metadata');
    const split = splitModel(proto, 'metadata');
    assert.deepEqual(split.parts.map((p) => p.runsOn), ['onnxruntime', 'gridsample']);
    const sub = subModel(proto, split, split.parts[0], new Map([['x', 'float32']]));
    assert.ok(Buffer.from(sub).includes(Buffer.from(metadata)), 'the sub-model dropped the node\'s metadata_props');
  });
});
