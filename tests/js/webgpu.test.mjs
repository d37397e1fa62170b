// gridsample/webgpu in Node on SwiftShader (npm webgpu): every golden case and random hostile grids against the wasm build bit for bit (sign of zero aside), AffineGrid within an ulp, GPU tensors, out and encoder, and the errors.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { createGpu } from '../../js/webgpu/index.mjs';
import { Dispatcher } from '../../js/webgpu/dispatch.mjs';
import { deformableAttentionWgsl } from '../../js/webgpu/deformable_attention_wgsl.mjs';
import { gridSampleLayout, gridSampleWgsl } from '../../js/webgpu/grid_sample_wgsl.mjs';
import { warpWgsl } from '../../js/webgpu/warp_wgsl.mjs';
import { compare, listCases, loadCase } from './lib/cases.mjs';
import { f16ToNumber, numberToF16 } from './lib/halfs.mjs';
import { nodeWebGpu } from './lib/node_webgpu.mjs';
import { prng } from './lib/random.mjs';

const DIR = fileURLToPath(new URL('../cases', import.meta.url));
const setup = await nodeWebGpu();
const skip = setup.skip ?? false;
const wasm = await load({ variant: 'simd' });
const gpu = skip ? null : await createGpu({ device: setup.device, wasm });

// Element i of two outputs of `dtype` differ other than in the sign of zero (NaN equals NaN).
function differences(dtype, a, b) {
  const value = dtype === 'float16' ? (d, i) => f16ToNumber(d[i]) : (d, i) => d[i];
  const out = [];
  for (let i = 0; i < a.length; ++i) {
    const u = value(a, i);
    const v = value(b, i);
    if (!(u === v || (Number.isNaN(u) && Number.isNaN(v)))) out.push(i);
  }
  return out;
}

function assertSame(fn, got, want, what) {
  assert.equal(got.dtype, want.dtype, `${what}: dtype`);
  assert.deepEqual(Array.from(got.shape), Array.from(want.shape), `${what}: shape`);
  const diff = differences(want.dtype, got.data, want.data);
  const i = diff[0];
  assert.equal(diff.length, 0, `${what}: ${diff.length} of ${want.data.length} elements differ from the wasm build, first [${i}]: ${fn} ${got.data[i]} vs wasm ${want.data[i]}`);
}

function caseOptions(c) {
  const a = c.attrs;
  return c.op === 'GridSample'
    ? { mode: a.mode, paddingMode: a.padding_mode, alignCorners: a.align_corners }
    : { alignCorners: a.align_corners };
}

test('the shaders keep no function-scope array (drivers that do not unroll put them in local memory)', () => {
  const shaders = [deformableAttentionWgsl({ valueHalf: false, locHalf: true, weightHalf: false, discrete: false })];
  for (const mode of ['nearest', 'linear', 'cubic']) {
    for (const rank of [1, 2, 3, 5]) shaders.push(gridSampleWgsl({ rank, mode, padding: 'reflection', align: false, xHalf: true, gridHalf: false, layout: 'pairs' }));
    shaders.push(warpWgsl({ source: 'affine', mode, padding: 'zeros', align: false, fill: true, u8: true, rgba: true }));
  }
  // Sized arrays only: the bindings are runtime-sized, the uniforms' arrays of vectors constant-indexed or uniform.
  for (const wgsl of shaders) assert.deepEqual(wgsl.match(/array<(f32|i32|u32|array)[^>]*,/g), null, wgsl.split('\n')[0]);
});

describe('gridsample/webgpu: every golden case equals the wasm build', { skip }, () => {
  const counts = new Map();
  // Chromium (webgpu_chromium.test.mjs) replays all 521 in every make test; here, the fast
  // loop, a quarter of them and every case of another dtype than float32, or all of them with
  // GRIDSAMPLE_ALL_CASES=1.
  const all = process.env.GRIDSAMPLE_ALL_CASES === '1';
  for (const name of listCases(DIR).filter((n, i) => all || i % 4 === 0 || /^(bf16|f16|f64|i16|i32|u8)_/.test(n))) {
    test(name, async () => {
      const c = loadCase(DIR, name);
      const o = caseOptions(c);
      const wasmOut = c.op === 'GridSample'
        ? wasm.gridSample(c.inputs.X, c.inputs.grid, o)
        : wasm.affineGrid(c.inputs.theta, c.inputs.size.value, o);
      const y = c.op === 'GridSample'
        ? await gpu.gridSample(c.inputs.X, c.inputs.grid, o)
        : await gpu.affineGrid(c.inputs.theta, c.inputs.size.value, o);
      const got = await gpu.read(y);
      y.dispose();
      const onGpu = ['float32', 'float16'].includes(got.dtype) &&
        (c.op === 'AffineGrid' || ['float32', 'float16'].includes(c.inputs.grid.dtype));
      assert.equal(y.ranOn, onGpu ? 'webgpu' : 'wasm');
      const key = `${c.op} rank ${c.op === 'GridSample' ? c.inputs.X.shape.length - 2 : c.inputs.size.value.length - 2} ${got.dtype} ${y.ranOn}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (c.op === 'AffineGrid') {
        // Double-float arithmetic: within one float32 ulp of the double reference.
        const r = compare(c, got);
        assert.ok(r.passed, `${name}: ${JSON.stringify(r)}`);
        const diff = differences(got.dtype, got.data, wasmOut.data);
        for (const i of diff) {
          const ulp = Math.abs(Math.fround(wasmOut.data[i]) - Math.fround(wasmOut.data[i] * (1 + 2 ** -23)));
          assert.ok(Math.abs(got.data[i] - wasmOut.data[i]) <= ulp, `${name}: [${i}] ${got.data[i]} vs ${wasmOut.data[i]}`);
        }
        return;
      }
      assertSame('webgpu', got, wasmOut, name);
      assert.ok(compare(c, got).passed, `${name}: outside the case's tolerance`);
    });
  }
  test('conformance counts per operator, rank, dtype and backend', () => {
    const lines = [...counts].sort().map(([k, v]) => `${k}: ${v}`);
    console.log(`gridsample/webgpu golden cases on ${setup.adapter.info.description}:\n  ${lines.join('\n  ')}`);
    assert.ok(counts.size > 0);
  });
});

// Hostile coordinates: exact pixel centres and edges, halves (nearest ties), just outside,
// huge, non-finite, -0; the rest random in [-1.6, 1.6].
function hostileGrid(random, count) {
  const special = [0, -0, 1, -1, 0.5, -0.5, 1.0000001, -1.0000001, 3, -3, 3.5, -5.25, 7.75, 1e7, -1e7, 3e38, -3e38,
    NaN, Infinity, -Infinity, 1e-30, 2 ** 24 + 2, -(2 ** 25)];
  return Float32Array.from({ length: count }, () =>
    (random() < 0.25 ? special[Math.floor(random() * special.length)] : (random() * 3.2 - 1.6)));
}

describe('gridsample/webgpu: random hostile grids equal the wasm build bit for bit', { skip }, () => {
  const random = prng(28);
  const shapes = [
    [[2, 3, 9], [2, 7, 1]], // 1-D
    [[1, 2, 5, 6], [1, 4, 5, 2]], [[2, 1, 1, 4], [2, 3, 3, 2]], [[1, 3, 2, 3], [1, 6, 2, 2]], // 2-D, size 1 and small axes
    [[1, 2, 4, 5, 6], [1, 3, 2, 4, 3]], [[1, 1, 2, 1, 3], [1, 2, 2, 2, 3]], // 3-D
    [[1, 2, 3, 2, 3, 4], [1, 2, 2, 2, 3, 4]], // 4-D
    [[1, 2, 2, 3, 2, 1, 3], [1, 2, 1, 2, 1, 2, 5]], // 5-D: linear and cubic loop over outer axes
    // Layouts (gridSampleLayout): float16 'pairs' over two batch items (even point counts above,
    // 'words' for the odd ones); channels in groups (3 of 7, 7, 6; 3 of 6, 6, 5). The store code
    // they exercise is the same in every mode and padding: each mode and padding once.
    [[2, 3, 4, 5], [2, 2, 3, 2], 'layout'], [[1, 20, 4, 5], [1, 3, 2, 2], 'layout'], [[2, 17, 3, 3], [2, 1, 3, 2], 'layout'],
  ];
  const layoutCombos = new Set(['linear zeros', 'nearest border', 'cubic reflection']);
  for (const [xShape, gShape, layout] of shapes) {
    for (const mode of ['linear', 'nearest', 'cubic']) {
      for (const paddingMode of ['zeros', 'border', 'reflection']) {
        if (layout && !layoutCombos.has(`${mode} ${paddingMode}`)) continue;
        test(`x ${xShape} grid ${gShape} ${mode} ${paddingMode}`, async () => {
          const xCount = xShape.reduce((a, b) => a * b, 1);
          const gCount = gShape.reduce((a, b) => a * b, 1);
          const x32 = Float32Array.from({ length: xCount }, () => random() * 8 - 4);
          const g32 = hostileGrid(random, gCount);
          const x16 = Uint16Array.from(x32, numberToF16);
          const g16 = Uint16Array.from(g32, numberToF16);
          // float32 with both aligns; the float16 pairs one align each (each pipeline compiled
          // on SwiftShader costs time, and they share every rule but the loads and stores).
          for (const alignCorners of [false, true]) {
            const o = { mode, paddingMode, alignCorners };
            for (const [X, G] of [
              [{ data: x32, shape: xShape }, { data: g32, shape: gShape }],
              ...(alignCorners ? [[{ data: x16, shape: xShape, dtype: 'float16' }, { data: g16, shape: gShape, dtype: 'float16' }]] : []),
              ...(alignCorners ? [] : [[{ data: x16, shape: xShape, dtype: 'float16' }, { data: g32, shape: gShape }]]),
            ]) {
              const y = await gpu.gridSample(X, G, o);
              assertSame('webgpu', await gpu.read(y), wasm.gridSample(X, G, o),
                `${JSON.stringify(o)} x ${X.dtype ?? 'float32'} grid ${G.dtype ?? 'float32'}`);
              y.dispose();
            }
          }
        });
      }
    }
  }

  test('the shapes above run every layout of the GridSample shader', () => {
    const layouts = new Set();
    for (const [[n, c], gShape] of shapes) {
      const outSpatial = gShape.slice(1, -1).reduce((a, b) => a * b, 1);
      for (const dtype of ['float32', 'float16']) {
        const { layout, groups } = gridSampleLayout({ n, c, outSpatial, dtype });
        layouts.add(`${dtype} ${layout}${groups > 1 ? ' in groups' : ''}`);
      }
    }
    assert.deepEqual([...layouts].sort(), ['float16 pairs', 'float16 pairs in groups', 'float16 words', 'float32 points', 'float32 points in groups']);
    // 2^16 points or more take one invocation each; fewer split 64 channels in 8 groups (issue
    // 46's feature maps, 8x64x64x64 sampled at 64x64); an odd point count of float16, words.
    assert.deepEqual(gridSampleLayout({ n: 1, c: 64, outSpatial: 1 << 16, dtype: 'float32' }), { layout: 'points', groups: 1, invocations: 1 << 16 });
    assert.deepEqual(gridSampleLayout({ n: 8, c: 64, outSpatial: 4096, dtype: 'float32' }), { layout: 'points', groups: 8, invocations: 8 * 4096 * 8 });
    assert.deepEqual(gridSampleLayout({ n: 8, c: 64, outSpatial: 4096, dtype: 'float16' }), { layout: 'pairs', groups: 8, invocations: 8 * 2048 * 8 });
    assert.deepEqual(gridSampleLayout({ n: 8, c: 8, outSpatial: 1200, dtype: 'float32' }), { layout: 'points', groups: 1, invocations: 8 * 1200 });
    assert.deepEqual(gridSampleLayout({ n: 2, c: 3, outSpatial: 5, dtype: 'float16' }), { layout: 'words', groups: 1, invocations: 15 });
  });

  test('a non-finite coordinate gives +0 bits in every mode and padding, whatever X holds', async () => {
    const x = { data: new Float32Array([1, 2, 3, 4, 5, 6, 7, 8, 9]), shape: [1, 1, 3, 3] };
    const grid = { data: new Float32Array([NaN, 0, 0, Infinity, -Infinity, -Infinity, 0.2, NaN]), shape: [1, 1, 4, 2] };
    for (const mode of ['linear', 'nearest', 'cubic']) {
      for (const paddingMode of ['zeros', 'border', 'reflection']) {
        const y = await gpu.read(await gpu.gridSample(x, grid, { mode, paddingMode }));
        assert.deepEqual(Array.from(new Uint32Array(y.data.buffer)), [0, 0, 0, 0], `${mode} ${paddingMode}`);
      }
    }
  });
});

describe('gridsample/webgpu: AffineGrid', { skip }, () => {
  test('random thetas, 2-D and 3-D, both aligns, float32 and float16: within one ulp of the double reference', async () => {
    const random = prng(11);
    let exact = 0;
    let total = 0;
    for (const size of [[2, 1, 5, 7], [1, 3, 1, 9], [1, 1, 4, 3, 5], [2, 2, 1, 6, 1], [1, 1, 33, 65]]) {
      const r = size.length - 2;
      const count = size[0] * r * (r + 1);
      const theta = Float32Array.from({ length: count }, () => (random() * 4 - 2) * (random() < 0.1 ? 1e5 : 1));
      for (const alignCorners of [false, true]) {
        for (const half of [false, true]) {
          const T = half ? { data: Uint16Array.from(theta, numberToF16), shape: [size[0], r, r + 1], dtype: 'float16' } : { data: theta, shape: [size[0], r, r + 1] };
          const got = await gpu.read(await gpu.affineGrid(T, size, { alignCorners }));
          const want = wasm.affineGrid(T, size, { alignCorners });
          const value = half ? (d, i) => f16ToNumber(d[i]) : (d, i) => d[i];
          for (let i = 0; i < want.data.length; ++i) {
            const a = value(got.data, i);
            const b = value(want.data, i);
            total += 1;
            if (a === b || (Number.isNaN(a) && Number.isNaN(b))) { exact += 1; continue; }
            const ulp = half ? Math.abs(b) * 2 ** -10 : Math.abs(b) * 2 ** -23;
            assert.ok(Math.abs(a - b) <= ulp, `${size} align ${alignCorners} ${half ? 'float16' : 'float32'} [${i}]: ${a} vs ${b}`);
          }
        }
      }
    }
    console.log(`AffineGrid on the GPU: ${exact} of ${total} values equal the wasm build's bits`);
    assert.ok(exact >= total * 0.999, `${exact} of ${total} exact`);
  });
});

describe('gridsample/webgpu: GPU tensors, out and encoder', { skip }, () => {
  const x = { data: Float32Array.from({ length: 2 * 4 * 5 }, (_, i) => i), shape: [1, 2, 4, 5] };
  const grid = { data: Float32Array.from({ length: 3 * 3 * 2 }, (_, i) => (i % 5) / 3 - 0.7), shape: [1, 3, 3, 2] };
  const want = wasm.gridSample(x, grid, { mode: 'cubic' });

  test('GPU tensors in, a chain without reads, and an onnxruntime-shaped tensor', async () => {
    const xg = gpu.upload(x);
    const gg = gpu.upload(grid);
    const y = await gpu.gridSample(xg, gg, { mode: 'cubic' });
    assert.equal(y.location, 'gpu-buffer');
    assert.deepEqual(Array.from(y.dims), [1, 2, 3, 3]);
    assertSame('webgpu', await gpu.read(y), want, 'GPU inputs');
    // onnxruntime-web's Tensor in 'gpu-buffer': {location, gpuBuffer, dims, type}, its buffer larger than the data.
    const big = setup.device.createBuffer({ size: 4096, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    setup.device.queue.writeBuffer(big, 0, x.data);
    const ortLike = { location: 'gpu-buffer', gpuBuffer: big, dims: x.shape, type: 'float32' };
    assertSame('webgpu', await gpu.read(await gpu.gridSample(ortLike, gg, { mode: 'cubic' })), want, 'onnxruntime tensor');
    for (const t of [xg, gg, y]) t.dispose();
    big.destroy();
  });

  test('out: written in place; encoder: recorded, run when the caller submits', async () => {
    const out = gpu.upload({ data: new Float32Array(18).fill(NaN), shape: [1, 2, 3, 3] });
    const r = await gpu.gridSample(x, grid, { mode: 'cubic', out });
    assert.equal(r, out);
    assertSame('webgpu', await gpu.read(out), want, 'out');
    const out2 = gpu.upload({ data: new Float32Array(18).fill(NaN), shape: [1, 2, 3, 3] });
    const encoder = setup.device.createCommandEncoder();
    await gpu.gridSample(x, grid, { mode: 'cubic', out: out2, encoder });
    assert.ok((await gpu.read(out2)).data.every(Number.isNaN), 'nothing runs before the caller submits');
    setup.device.queue.submit([encoder.finish()]);
    assertSame('webgpu', await gpu.read(out2), want, 'encoder');
    out.dispose();
    out2.dispose();
  });

  test('other dtypes run on the wasm module, say so, and give its result', async () => {
    const xd = { data: Float64Array.from(x.data), shape: x.shape };
    const y = await gpu.gridSample(xd, grid, { mode: 'cubic' });
    assert.equal(y.ranOn, 'wasm');
    const got = await gpu.read(y);
    assert.deepEqual(Array.from(got.data), Array.from(wasm.gridSample(xd, grid, { mode: 'cubic' }).data));
    await assert.rejects(gpu.gridSample(xd, grid, { encoder: setup.device.createCommandEncoder() }),
      { name: 'TypeError', message: /options\.encoder: float64 runs on the wasm module/ });
  });

  test('the dispatch grid: as few rows as the limit allows, as even as they can be; every invocation runs once', async () => {
    const grids = new Dispatcher({ limits: { maxComputeWorkgroupsPerDimension: 65535 } });
    const wg = (invocations) => { const { x, y } = grids.groups('t', invocations); return [x, y]; };
    // A 2048x2048 RGBA warp: 65,536 workgroups in 2 rows of 32,768 (was 65,535 and 65,535).
    assert.deepEqual(wg(2048 * 2048), [32768, 2]);
    assert.deepEqual(wg(65535 * 64), [65535, 1]);
    assert.deepEqual(wg(1), [1, 1]);
    assert.deepEqual(wg(0), [1, 1]);
    const random = prng(46);
    for (let i = 0; i < 1000; ++i) {
      const invocations = Math.floor(random() * 2 ** 30);
      const [x, y] = wg(invocations);
      const total = Math.ceil(invocations / 64);
      assert.ok(x <= 65535 && x * y >= total && x * y - total < y, `${invocations}: ${x} x ${y}`);
    }
    assert.throws(() => grids.groups('gridSample', 65535 * 65535 * 64 + 1), /exceed this GPU's dispatch limit/);
    // On the GPU, a limit of 7 workgroups per dimension: 20 workgroups in 3 rows of 7, 7, 6.
    const limited = new Proxy(setup.device, {
      get(target, key) {
        if (key === 'limits') return new Proxy(target.limits, { get: (l, k) => (k === 'maxComputeWorkgroupsPerDimension' ? 7 : l[k]) });
        const v = target[key];
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const small = await createGpu({ device: limited, wasm });
    const xs = { data: Float32Array.from({ length: 2 * 6 * 7 }, (_, i) => i % 13), shape: [1, 2, 6, 7] };
    const gs = { data: Float32Array.from({ length: 40 * 32 * 2 }, (_, i) => Math.sin(i) * 1.1), shape: [1, 40, 32, 2] };
    assertSame('webgpu', await small.read(await small.gridSample(xs, gs)), wasm.gridSample(xs, gs), '20 workgroups, 3 rows');
  });

  test('empty outputs are empty GPU tensors of the right shape', async () => {
    const y = await gpu.gridSample(x, { data: new Float32Array(0), shape: [1, 0, 3, 2] });
    assert.deepEqual(Array.from(y.dims), [1, 2, 0, 3]);
    assert.equal((await gpu.read(y)).data.length, 0);
  });
});

describe('gridsample/webgpu: errors', { skip }, () => {
  const x = { data: new Float32Array(16), shape: [1, 1, 4, 4] };
  const grid = { data: new Float32Array(8), shape: [1, 2, 2, 2] };

  test('bad shapes and options: the wasm API\'s messages', async () => {
    const bad = { data: new Float32Array(12), shape: [1, 2, 2, 3] };
    const wasmError = (() => { try { wasm.gridSample(x, bad); } catch (e) { return e; } })();
    await assert.rejects(gpu.gridSample(x, bad), { name: wasmError.name, message: wasmError.message });
    await assert.rejects(gpu.gridSample(x, grid, { mode: 'bilinearr' }), { name: 'RangeError', message: /options\.mode: expected/ });
    await assert.rejects(gpu.gridSample(x, grid, { encoderr: 1 }), { name: 'TypeError' });
    await assert.rejects(gpu.affineGrid({ data: new Float32Array(6), shape: [1, 3, 2] }, [1, 1, 4, 4]), { name: 'RangeError', message: /theta/ });
    await assert.rejects(gpu.gridSample({ data: new Int32Array(16), shape: [1, 1, 4, 4] }, { data: new Int32Array(8), shape: [1, 2, 2, 2] }),
      { name: 'TypeError', message: /grid/ });
  });

  test('GPU tensors: too small, without STORAGE, disposed, out aliasing an input', async () => {
    const small = setup.device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE });
    await assert.rejects(gpu.gridSample({ buffer: small, dims: [1, 1, 4, 4], dtype: 'float32' }, grid),
      { name: 'RangeError', message: /has 16 bytes, shape \[1, 1, 4, 4\] of float32 needs 64/ });
    const mappable = setup.device.createBuffer({ size: 64, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    await assert.rejects(gpu.gridSample({ buffer: mappable, dims: [1, 1, 4, 4], dtype: 'float32' }, grid),
      { name: 'TypeError', message: /lacks STORAGE usage/ });
    const xg = gpu.upload(x);
    await assert.rejects(gpu.gridSample(xg, grid, { out: xg }), { name: 'RangeError', message: /options\.out: expected shape \[1, 1, 2, 2\]/ });
    const y = await gpu.gridSample(xg, grid);
    await assert.rejects(gpu.gridSample(xg, grid, { out: { buffer: xg.buffer, dims: [1, 1, 2, 2], dtype: 'float32' } }),
      { name: 'RangeError', message: /its GPUBuffer is x's/ });
    y.dispose();
    await assert.rejects(gpu.read(y), { name: 'TypeError', message: /disposed/ });
    for (const b of [small, mappable]) b.destroy();
    xg.dispose();
  });

  test('a GPU validation error is thrown, not passed over in silence, naming the argument', async () => {
    const doomed = setup.device.createBuffer({ size: 64, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
    doomed.destroy();
    await assert.rejects(gpu.gridSample({ buffer: doomed, dims: [1, 1, 4, 4], dtype: 'float32' }, grid),
      { name: 'TypeError', message: /^gridSample: x: its GPUBuffer was destroyed$/ });
    // The instance still works.
    assert.equal((await gpu.read(await gpu.gridSample(x, grid))).data.length, 4);
  });

  test('a tensor larger than one binding: a RangeError before any GPU work', async () => {
    const limit = setup.device.limits.maxStorageBufferBindingSize;
    const elements = limit / 4 + 4;
    const big = setup.device.createBuffer({ size: elements * 4, usage: GPUBufferUsage.STORAGE });
    await assert.rejects(gpu.gridSample({ buffer: big, dims: [1, 1, 1, elements], dtype: 'float32' }, grid),
      { name: 'RangeError', message: new RegExp(`^gridSample: x takes ${elements * 4} bytes, more than this GPU binds at once \\(maxStorageBufferBindingSize ${limit}\\)`) });
    big.destroy();
  });

  test('calls made together (Promise.all) each get their own result and errors', async () => {
    const random = prng(5);
    const xs = { data: Float32Array.from({ length: 2 * 6 * 7 }, () => random() * 2 - 1), shape: [1, 2, 6, 7] };
    const gs = { data: Float32Array.from({ length: 5 * 4 * 2 }, () => random() * 2.4 - 1.2), shape: [1, 5, 4, 2] };
    const calls = [];
    for (const mode of ['linear', 'nearest', 'cubic']) {
      for (const paddingMode of ['zeros', 'border', 'reflection']) calls.push({ mode, paddingMode });
    }
    const bad = { data: new Float32Array(12), shape: [1, 2, 2, 3] };
    const results = await Promise.allSettled([...calls.map((o) => gpu.gridSample(xs, gs, o)), gpu.gridSample(xs, bad), ...calls.map((o) => gpu.gridSample(xs, gs, o))]);
    assert.equal(results[calls.length].status, 'rejected');
    for (const [i, r] of results.entries()) {
      if (i === calls.length) continue;
      const o = calls[i < calls.length ? i : i - calls.length - 1];
      assert.equal(r.status, 'fulfilled');
      assertSame('webgpu', await gpu.read(r.value), wasm.gridSample(xs, gs, o), JSON.stringify(o));
      r.value.dispose();
    }
  });

  test('device loss: every later call says so', async () => {
    const own = await (await setup.gpu.requestAdapter()).requestDevice();
    const lost = await createGpu({ device: own, wasm });
    own.destroy();
    await own.lost;
    await assert.rejects(lost.gridSample(x, grid), { message: /^gridSample: the GPU device was lost \(destroyed/ });
    await assert.rejects(lost.affineGrid({ data: new Float32Array(6), shape: [1, 2, 3] }, [1, 1, 2, 2]), { message: /device was lost/ });
  });

  test('createGpu: a device that is not one', async () => {
    await assert.rejects(createGpu({ device: {}, wasm }), { name: 'TypeError', message: /options\.device: expected a GPUDevice/ });
    await assert.rejects(createGpu({ wasm: {} }), { name: 'TypeError', message: /options\.wasm/ });
  });
});
