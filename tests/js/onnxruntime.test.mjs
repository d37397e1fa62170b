// Interop with the real onnxruntime-web: its tensors pass straight in and our results equal its GridSample / AffineGrid.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-web';

import { load, simdSupported } from '../../js/node.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { f16ToNumber, numberToF16 } from './lib/halfs.mjs';

ort.env.wasm.numThreads = 1; // no worker threads in the test process

// Deterministic inputs: a 31-bit LCG, values in [lo, hi).
function random(seed) {
  let s = seed;
  return (lo, hi) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return lo + (hi - lo) * (s / 2147483648);
  };
}

const symbolic = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

// GridSample plus Identity copies of both inputs, so that the tensors we sample are ones the
// session produced. Symbolic dims: one session serves any shape.
async function gridSampleSession(opset, rank, dtype, attrs) {
  const n = rank + 2;
  const model = encodeModel({
    opset,
    nodes: [
      { op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Y'], attrs },
      { op: 'Identity', inputs: ['X'], outputs: ['X_copy'] },
      { op: 'Identity', inputs: ['grid'], outputs: ['grid_copy'] },
    ],
    inputs: [{ name: 'X', dtype, dims: symbolic('x', n) }, { name: 'grid', dtype, dims: symbolic('g', n) }],
    outputs: [
      { name: 'Y', dtype, dims: symbolic('y', n) },
      { name: 'X_copy', dtype, dims: symbolic('x', n) },
      { name: 'grid_copy', dtype, dims: symbolic('g', n) },
    ],
  });
  return ort.InferenceSession.create(model, { executionProviders: ['wasm'] });
}

function maxAbsDiff(a, b) {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(Number(a[i]) - Number(b[i]));
    if (!(d <= worst)) worst = d; // NaN propagates as a failure
  }
  return worst;
}

// DESIGN.md tolerances (float32): nearest 1e-6, linear 1e-5, cubic 3e-5 (2-D).
const ATOL = { linear: 1e-5, bilinear: 1e-5, nearest: 1e-6, cubic: 3e-5, bicubic: 3e-5 };

// onnxruntime implements GridSample as we do (per-tap padding, half-to-even nearest, cubic +
// border as PyTorch) for these; it has no cubic for 3-D inputs, so those are left out.
const GRID_CASES = [];
for (const [opset, rank, modes] of [
  [16, 2, ['bilinear', 'nearest', 'bicubic']],
  [20, 2, ['linear', 'nearest', 'cubic']],
  [20, 3, ['linear', 'nearest']],
]) {
  for (const mode of modes) {
    for (const padding of ['zeros', 'border', 'reflection']) {
      for (const align of [0, 1]) GRID_CASES.push({ opset, rank, mode, padding, align });
    }
  }
}

const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());
const modules = {};
before(async () => {
  for (const v of variants) modules[v] = await load({ variant: v });
});

describe('GridSample: onnxruntime-web tensors in, same values as onnxruntime-web out', () => {
  for (const c of GRID_CASES) {
    const name = `opset ${c.opset} ${c.rank}-D ${c.mode} ${c.padding} align_corners=${c.align}`;
    test(name, async () => {
      const session = await gridSampleSession(c.opset, c.rank, 'float32', {
        mode: c.mode, padding_mode: c.padding, align_corners: c.align,
      });
      const rnd = random(1000 + GRID_CASES.indexOf(c));
      const xShape = c.rank === 2 ? [2, 3, 5, 7] : [2, 3, 4, 5, 6];
      const gShape = c.rank === 2 ? [2, 4, 6, 2] : [2, 3, 4, 5, 3];
      const count = (s) => s.reduce((a, b) => a * b, 1);
      // Grid beyond [-1, 1] so that every padding rule is exercised.
      const x = Float32Array.from({ length: count(xShape) }, () => rnd(-1, 1));
      const g = Float32Array.from({ length: count(gShape) }, () => rnd(-1.3, 1.3));
      const r = await session.run({ X: new ort.Tensor('float32', x, xShape), grid: new ort.Tensor('float32', g, gShape) });
      assert.ok(r.X_copy instanceof ort.Tensor && r.grid_copy instanceof ort.Tensor);
      for (const gs of Object.values(modules)) {
        const ours = gs.gridSample(r.X_copy, r.grid_copy, { mode: c.mode, paddingMode: c.padding, alignCorners: c.align });
        assert.deepEqual(ours.shape, [...r.Y.dims]);
        assert.equal(ours.dtype, r.Y.type);
        const d = maxAbsDiff(ours.data, r.Y.data);
        assert.ok(d <= ATOL[c.mode], `${gs.backend}: max |ours - onnxruntime| = ${d} > ${ATOL[c.mode]}`);
      }
      await session.release();
    });
  }

  test('float64 tensors', async () => {
    const session = await gridSampleSession(20, 2, 'float64', { mode: 'linear', padding_mode: 'border', align_corners: 0 });
    const rnd = random(7);
    const x = Float64Array.from({ length: 2 * 2 * 6 * 5 }, () => rnd(-10, 10));
    const g = Float64Array.from({ length: 2 * 3 * 4 * 2 }, () => rnd(-1.2, 1.2));
    const r = await session.run({ X: new ort.Tensor('float64', x, [2, 2, 6, 5]), grid: new ort.Tensor('float64', g, [2, 3, 4, 2]) });
    for (const gs of Object.values(modules)) {
      const ours = gs.gridSample(r.X_copy, r.grid_copy, { mode: 'linear', paddingMode: 'border' });
      assert.ok(ours.data instanceof Float64Array);
      assert.ok(maxAbsDiff(ours.data, r.Y.data) <= 1e-12, gs.backend);
    }
    await session.release();
  });

  test('a result written into an onnxruntime Tensor (out) feeds the next session', async () => {
    const session = await gridSampleSession(16, 2, 'float32', { mode: 'bilinear', padding_mode: 'zeros', align_corners: 0 });
    const rnd = random(99);
    const x = new ort.Tensor('float32', Float32Array.from({ length: 1 * 2 * 8 * 8 }, () => rnd(0, 1)), [1, 2, 8, 8]);
    const g = new ort.Tensor('float32', Float32Array.from({ length: 1 * 8 * 8 * 2 }, () => rnd(-1, 1)), [1, 8, 8, 2]);
    const first = await session.run({ X: x, grid: g });
    const gs = Object.values(modules)[0];
    const out = new ort.Tensor('float32', new Float32Array(2 * 64), [1, 2, 8, 8]);
    assert.equal(gs.gridSample(first.X_copy, first.grid_copy, { out }), out);
    assert.ok(maxAbsDiff(out.data, first.Y.data) <= 1e-5);
    // Sampling our output again in onnxruntime and in gridsample agrees too.
    const second = await session.run({ X: out, grid: g });
    assert.ok(maxAbsDiff(gs.gridSample(out, g).data, second.Y.data) <= 1e-5);
    await session.release();
  });

  test('float16 tensors from a session (type "float16", Uint16Array data)', async () => {
    // onnxruntime's CPU GridSample has no float16 kernel: compare with its float32 result,
    // within what float16 storage of X and of the result allows.
    const cast = encodeModel({
      opset: 16,
      nodes: [{ op: 'Cast', inputs: ['X'], outputs: ['X16'], attrs: { to: 10 } }, { op: 'Cast', inputs: ['grid'], outputs: ['grid16'], attrs: { to: 10 } }],
      inputs: [{ name: 'X', dtype: 'float32', dims: symbolic('x', 4) }, { name: 'grid', dtype: 'float32', dims: symbolic('g', 4) }],
      outputs: [{ name: 'X16', dtype: 'float16', dims: symbolic('x', 4) }, { name: 'grid16', dtype: 'float16', dims: symbolic('g', 4) }],
    });
    const caster = await ort.InferenceSession.create(cast, { executionProviders: ['wasm'] });
    const reference = await gridSampleSession(16, 2, 'float32', { mode: 'bilinear', padding_mode: 'border', align_corners: 1 });
    const rnd = random(5);
    // Values and coordinates exactly representable in float16, so both runs see the same inputs.
    const x = Float32Array.from({ length: 1 * 3 * 6 * 6 }, () => f16ToNumber(numberToF16(rnd(-4, 4))));
    const g = Float32Array.from({ length: 1 * 5 * 5 * 2 }, () => Math.round(rnd(-1.1, 1.1) * 256) / 256);
    const feeds = { X: new ort.Tensor('float32', x, [1, 3, 6, 6]), grid: new ort.Tensor('float32', g, [1, 5, 5, 2]) };
    const halves = await caster.run(feeds);
    assert.equal(halves.X16.type, 'float16');
    const want = (await reference.run(feeds)).Y.data;
    for (const gs of Object.values(modules)) {
      const y = gs.gridSample(halves.X16, halves.grid16, { mode: 'bilinear', paddingMode: 'border', alignCorners: 1 });
      assert.equal(y.dtype, 'float16');
      const got = Array.from(y.data, f16ToNumber);
      // One float16 rounding of results up to |4|: half an ulp of 4 is 2^-9.
      assert.ok(maxAbsDiff(got, want) <= 2 ** -9, gs.backend);
    }
    await caster.release();
    await reference.release();
  });
});

describe('AffineGrid: onnxruntime-web', () => {
  // Size-1 spatial axes with align_corners=1 are left out: onnxruntime follows the ONNX
  // reference there (base coordinate -1), gridsample follows PyTorch (0), as DESIGN.md says.
  const CASES = [];
  for (const align of [0, 1]) {
    for (const size of [[2, 3, 4, 5], [1, 1, 7, 3], [2, 1, 3, 4, 5], [1, 2, 2, 6, 3]]) CASES.push({ align, size });
    for (const size of [[1, 1, 1, 5], [2, 3, 4, 1], [1, 1, 1, 1, 4]]) if (align === 0) CASES.push({ align, size });
  }
  for (const { align, size } of CASES) {
    test(`size [${size}] align_corners=${align}, then GridSample on that grid`, async () => {
      const r3 = size.length === 5;
      const thetaDims = [size[0], r3 ? 3 : 2, r3 ? 4 : 3];
      const spatial = size.slice(2);
      const model = encodeModel({
        opset: 20,
        nodes: [
          { op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['grid'], attrs: { align_corners: align } },
          { op: 'Identity', inputs: ['theta'], outputs: ['theta_copy'] },
        ],
        inputs: [{ name: 'theta', dtype: 'float32', dims: thetaDims }, { name: 'size', dtype: 'int64', dims: [size.length] }],
        outputs: [
          { name: 'grid', dtype: 'float32', dims: [size[0], ...spatial, spatial.length] },
          { name: 'theta_copy', dtype: 'float32', dims: thetaDims },
        ],
      });
      const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'] });
      const rnd = random(size.reduce((a, b) => a * 7 + b, align));
      const theta = Float32Array.from({ length: thetaDims.reduce((a, b) => a * b) }, () => rnd(-1, 1));
      const sizeTensor = new ort.Tensor('int64', BigInt64Array.from(size, BigInt), [size.length]);
      const r = await session.run({ theta: new ort.Tensor('float32', theta, thetaDims), size: sizeTensor });
      for (const gs of Object.values(modules)) {
        // theta from the session, size as onnxruntime's int64 tensor.
        const grid = gs.affineGrid(r.theta_copy, sizeTensor, { alignCorners: align });
        assert.deepEqual(grid.shape, [...r.grid.dims]);
        assert.ok(maxAbsDiff(grid.data, r.grid.data) <= 2e-6, `${gs.backend}: affineGrid`);
        // onnxruntime's grid straight into gridSample.
        const x = { data: Float32Array.from({ length: size.reduce((a, b) => a * b) }, (_, i) => Math.sin(i)), shape: size };
        const viaOrt = gs.gridSample(x, r.grid, { alignCorners: align });
        const viaOurs = gs.gridSample(x, grid, { alignCorners: align });
        assert.ok(maxAbsDiff(viaOrt.data, viaOurs.data) <= 1e-5, `${gs.backend}: gridSample on both grids`);
      }
      await session.release();
    });
  }
});
