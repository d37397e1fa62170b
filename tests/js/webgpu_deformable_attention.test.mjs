// gpu.multiScaleDeformableAttention in Node on SwiftShader (npm webgpu): against the exporters' chain computed with the wasm package's gs.gridSample per level (within float32 rounding) and the wasm build's own call (bit for bit), non-finite locations on the bits, GPU tensors, out, encoder, a two-dimensional dispatch, the wasm fallback and the CPU call's errors before any GPU work.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { createGpu } from '../../js/webgpu/index.mjs';
import { argumentsOf, assertMatchesChain, assertSameBits, chain, makeCase } from './lib/deformable_attention_chain.mjs';
import { nodeWebGpu } from './lib/node_webgpu.mjs';

const setup = await nodeWebGpu();
const skip = setup.skip ?? false;
const wasm = await load({ variant: 'simd' });

/**
 * The device, seen through a Proxy that counts the GPU objects made (`made`) and may report a
 * smaller maxComputeWorkgroupsPerDimension (so that a small call dispatches a 2-D grid).
 */
function watchedDevice(device, { maxGroups } = {}) {
  const made = { count: 0 };
  const proxy = new Proxy(device, {
    get(target, key) {
      if (key === 'limits' && maxGroups) {
        return new Proxy(target.limits, { get: (l, k) => (k === 'maxComputeWorkgroupsPerDimension' ? maxGroups : l[k]) });
      }
      const v = target[key];
      if (typeof v !== 'function') return v;
      return (...args) => {
        if (/^create/.test(key)) made.count += 1;
        return v.apply(target, args);
      };
    },
  });
  return { device: proxy, made };
}

const watched = skip ? null : watchedDevice(setup.device);
const gpu = skip ? null : await createGpu({ device: watched.device, wasm });

// Shapes that reach every path of the kernel: 1x1, 1xW and Hx1 levels, N = 2, several heads and
// points, D below, at, and not a multiple of the kernel's group of 8 channels (a group then
// spans two heads' rows), odd D with a float16 output (its u32 words span two heads),
// locations outside [0, 1] and non-finite ones.
const CASES = {
  'three levels (4x6, 2x3, 1x1), N = 2, D = 11, P = 3': { N: 2, Lq: 5, M: 3, D: 11, P: 3, seed: 11 },
  '1x1, 1xW and Hx1 levels, D = 4': { N: 2, Lq: 7, M: 3, D: 4, P: 3, levels: [[1, 1], [1, 7], [5, 1]], seed: 12 },
  'one 1x1 level, one point, one channel': { Lq: 3, M: 1, D: 1, P: 1, levels: [[1, 1]], seed: 13 },
  'four levels, 8 heads of 32 channels, 4 points': { Lq: 40, M: 8, D: 32, P: 4, levels: [[16, 20], [8, 10], [4, 5], [2, 3]], seed: 14 },
  'locations far outside [0, 1]': { Lq: 9, M: 2, D: 9, levels: [[5, 4], [3, 2]], locations: [-3, 4], seed: 15 },
  'NaN, +-Inf and +-1e30 locations sample 0': { N: 2, Lq: 8, M: 2, D: 16, P: 3, levels: [[4, 4], [2, 2]], special: true, seed: 16 },
  'float16 value and output, D = 5': { N: 2, Lq: 6, M: 3, D: 5, P: 2, levels: [[5, 7], [3, 4]], dtype: 'float16', seed: 17 },
  'float16 locations and weights, float32 value': { Lq: 6, M: 2, D: 12, P: 2, levels: [[5, 7], [1, 3]], coordinates: 'float16', special: true, seed: 18 },
  'float16 value, locations and weights, D = 3': { Lq: 6, M: 2, D: 3, P: 2, levels: [[5, 7], [3, 4]], dtype: 'float16', coordinates: 'float16', seed: 19 },
  'no queries (Lq = 0)': { N: 2, Lq: 0, M: 2, D: 3, seed: 20 },
  'no points (P = 0): zeros': { Lq: 3, M: 2, D: 3, P: 0, seed: 21 },
};

describe('gpu.multiScaleDeformableAttention: the exporters\' chain and the wasm build', { skip }, () => {
  for (const [name, sizes] of Object.entries(CASES)) {
    test(name, async () => {
      const c = makeCase(sizes);
      const y = await gpu.multiScaleDeformableAttention(...argumentsOf(c));
      assert.equal(y.location, 'gpu-buffer');
      assert.equal(y.ranOn, 'webgpu');
      const got = await gpu.read(y);
      y.dispose();
      // The chain (lib/deformable_attention_chain.mjs): per level and head gs.gridSample at
      // 2 * loc - 1 (bilinear, zeros, align 0), weights times samples summed in float64. Its
      // bound is float32 rounding only, per term |weight| * max |value| * 2^-24 times
      // (L * P + 8 + 4 max(H_l, W_l)): the kernel's float32 sum of L * P terms, each sample's
      // four taps rounded, and the pixel position u * W - 0.5 against the chain's
      // ((2 u - 1 + 1) * W - 1) / 2 (2 u - 1 rounds, up to 2 max(H, W) 2^-24 pixels, times
      // a slope of at most 2 max |value| a pixel); a float16 output adds half its ulp.
      assertMatchesChain(got, chain(wasm, c), c, name);
      // The wasm build sums in the same order; SwiftShader neither fuses nor reassociates.
      assertSameBits(got, wasm.multiScaleDeformableAttention(...argumentsOf(c)), name);
    });
  }

  test('a non-finite location gives +0 bits whatever the value holds (float32 and float16)', async () => {
    for (const dtype of ['float32', 'float16']) {
      const c = makeCase({ N: 1, Lq: 4, M: 2, D: 6, P: 3, dtype, seed: 22 });
      c.value.data.fill(dtype === 'float32' ? NaN : 0x7e00);
      const odd = [NaN, Infinity, -Infinity];
      c.samplingLocations.data = Float32Array.from(c.samplingLocations.data, (v, i) => (i % 4 === 0 ? v : odd[i % 3]));
      const loc = c.samplingLocations.data;
      for (let i = 0; i < loc.length; i += 2) if (Number.isFinite(loc[i]) && Number.isFinite(loc[i + 1])) loc[i + 1] = NaN;
      const got = await gpu.read(await gpu.multiScaleDeformableAttention(...argumentsOf(c)));
      const bits = dtype === 'float32' ? new Uint32Array(got.data.buffer) : got.data;
      assert.ok(bits.length > 0 && bits.every((b) => b === 0), `${dtype}: ${Array.from(bits.slice(0, 8))}`);
    }
  });

  test('22,223 queries x 8 heads x 32 channels (711,136 invocations): every element, cheap levels', async () => {
    const c = makeCase({ Lq: 22223, M: 8, D: 32, P: 1, levels: [[2, 2], [1, 1]], seed: 23 });
    const got = await gpu.read(await gpu.multiScaleDeformableAttention(...argumentsOf(c)));
    assertSameBits(got, wasm.multiScaleDeformableAttention(...argumentsOf(c)), 'Lq 22223');
  });
});

describe('gpu.multiScaleDeformableAttention: GPU tensors, out, encoder, dispatch, fallback', { skip }, () => {
  const c = makeCase({ N: 2, Lq: 9, M: 2, D: 7, P: 2, levels: [[4, 5], [2, 2], [1, 3]], seed: 30 });
  const [value, shapes, starts, loc, weights] = argumentsOf(c);
  const want = wasm.multiScaleDeformableAttention(value, shapes, starts, loc, weights);

  test('GPU tensors in (ours and an onnxruntime-shaped one, its buffer larger than the data)', async () => {
    const [vg, lg, wg] = [value, loc, weights].map((t) => gpu.upload({ data: t.data, shape: t.dims, dtype: t.type }));
    assertSameBits(await gpu.read(await gpu.multiScaleDeformableAttention(vg, shapes, starts, lg, wg)), want, 'GPU inputs');
    const big = setup.device.createBuffer({ size: value.data.byteLength + 4096, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    setup.device.queue.writeBuffer(big, 0, value.data);
    const ortLike = { location: 'gpu-buffer', gpuBuffer: big, dims: value.dims, type: 'float32' };
    assertSameBits(await gpu.read(await gpu.multiScaleDeformableAttention(ortLike, shapes, starts, lg, weights)), want, 'onnxruntime tensor');
    for (const t of [vg, lg, wg]) t.dispose();
    big.destroy();
  });

  test('out: written in place; encoder: recorded, run when the caller submits', async () => {
    const blank = () => gpu.upload({ data: new Float32Array(want.data.length).fill(NaN), shape: want.shape });
    const out = blank();
    assert.equal(await gpu.multiScaleDeformableAttention(value, shapes, starts, loc, weights, { out }), out);
    assertSameBits(await gpu.read(out), want, 'out');
    const out2 = blank();
    const encoder = setup.device.createCommandEncoder();
    await gpu.multiScaleDeformableAttention(value, shapes, starts, loc, weights, { out: out2, encoder });
    assert.ok((await gpu.read(out2)).data.every(Number.isNaN), 'nothing runs before the caller submits');
    setup.device.queue.submit([encoder.finish()]);
    assertSameBits(await gpu.read(out2), want, 'encoder');
    out.dispose();
    out2.dispose();
  });

  test('a two-dimensional workgroup grid (a device reporting 2 workgroups a dimension)', async () => {
    const small = await createGpu({ device: watchedDevice(setup.device, { maxGroups: 2 }).device, wasm });
    // 2 * 40 * 2 * 10 = 1600 elements, 200 invocations: 4 workgroups of 64 as 2 x 2, 56 idle.
    const d = makeCase({ N: 2, Lq: 40, M: 2, D: 10, P: 2, levels: [[3, 3], [1, 2]], seed: 31 });
    const got = await small.read(await small.multiScaleDeformableAttention(...argumentsOf(d)));
    assertSameBits(got, wasm.multiScaleDeformableAttention(...argumentsOf(d)), '2-D grid');
    await assert.rejects(small.multiScaleDeformableAttention(...argumentsOf(makeCase({ Lq: 300, M: 8, D: 32, P: 1, levels: [[1, 1]] })))
      , { name: 'RangeError', message: /^multiScaleDeformableAttention: 9600 invocations exceed this GPU's dispatch limit/ });
  });

  test('bfloat16 runs on the wasm module, says so, and gives its result', async () => {
    const bf = { data: Uint16Array.from(new Uint32Array(Float32Array.from(value.data).buffer), (u) => u >>> 16), dims: value.dims, type: 'bfloat16' };
    const y = await gpu.multiScaleDeformableAttention(bf, shapes, starts, loc, weights);
    assert.equal(y.ranOn, 'wasm');
    assertSameBits(await gpu.read(y), wasm.multiScaleDeformableAttention(bf, shapes, starts, loc, weights), 'bfloat16');
    await assert.rejects(gpu.multiScaleDeformableAttention(bf, shapes, starts, loc, weights, { encoder: setup.device.createCommandEncoder() }),
      { name: 'TypeError', message: /options\.encoder: bfloat16 runs on the wasm module/ });
  });
});

describe('gpu.multiScaleDeformableAttention: errors', { skip }, () => {
  const c = makeCase({ Lq: 2, M: 2, D: 3, P: 2, levels: [[2, 3], [1, 1]], seed: 40 });
  const args = argumentsOf(c);
  const f32 = (n, dims) => ({ data: new Float32Array(n), dims });
  // One argument replaced (index into the call's arguments, the value); the GPU call's message
  // is the CPU call's but where the GPU takes more (options.encoder).
  const BAD = {
    'an int32 value': [0, { data: new Int32Array(2 * 7 * 3), dims: [1, 7, 2, 3] }],
    'float64 locations': [3, { data: new Float64Array(2 * 2 * 2 * 2 * 2), dims: [1, 2, 2, 2, 2, 2] }],
    'uint8 weights': [4, { data: new Uint8Array(16), dims: [1, 2, 2, 2, 2] }],
    'value of rank 3': [0, f32(42, [7, 2, 3])],
    'S not the sum of H * W': [0, f32(48, [1, 8, 2, 3])],
    'a level start that disagrees': [2, { data: BigInt64Array.from([0n, 5n]), dims: [2], type: 'int64' }],
    'a level of height 0': [1, { data: BigInt64Array.from([0n, 3n, 7n, 1n]), dims: [2, 2], type: 'int64' }],
    'levelStartIndex of another length': [2, { data: BigInt64Array.from([0n]), dims: [1], type: 'int64' }],
    'float levels': [1, { data: Float32Array.from([2, 3, 1, 1]), dims: [2, 2], type: 'float32' }],
    'levels on the GPU': [1, { location: 'gpu-buffer', gpuBuffer: null, dims: [2, 2], type: 'int64' }],
    'locations of another L': [3, f32(16, [1, 2, 2, 1, 2, 2])],
    'weights of another P': [4, f32(12, [1, 2, 2, 2, 3])],
    'an unknown option': [5, { threads: 2 }],
    'out of another dtype': [5, { out: { data: new Uint16Array(12), dims: [1, 2, 6], type: 'float16' } }],
  };

  for (const [name, [i, bad]] of Object.entries(BAD)) {
    test(`${name}: the CPU call's error, before any GPU work`, async () => {
      const a = [...args, undefined];
      a[i] = bad;
      const cpu = (() => { try { wasm.multiScaleDeformableAttention(...a); } catch (e) { return e; } return null; })();
      assert.ok(cpu, 'the CPU call refuses it');
      if (i === 5 && bad.out) a[5] = { out: gpu.upload({ data: bad.out.data, shape: bad.out.dims, dtype: bad.out.type }) };
      const before = watched.made.count;
      await assert.rejects(gpu.multiScaleDeformableAttention(...a), (e) => {
        assert.equal(e.name, cpu.name);
        assert.equal(e.message, cpu.message.replace('expected out', 'expected out, encoder'));
        return true;
      });
      assert.equal(watched.made.count, before, 'no GPU object made');
    });
  }

  test('device loss: a later call says so', async () => {
    const own = await (await setup.gpu.requestAdapter()).requestDevice();
    const lost = await createGpu({ device: own, wasm });
    own.destroy();
    await own.lost;
    await assert.rejects(lost.multiScaleDeformableAttention(...args), { message: /^multiScaleDeformableAttention: the GPU device was lost \(destroyed/ });
  });

  test('GPU tensors: too small, out aliasing an input', async () => {
    const small = setup.device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE });
    await assert.rejects(gpu.multiScaleDeformableAttention({ buffer: small, dims: [1, 7, 2, 3], dtype: 'float32' }, ...args.slice(1)),
      { name: 'RangeError', message: /^multiScaleDeformableAttention: value: its GPUBuffer has 16 bytes, shape \[1, 7, 2, 3\] of float32 needs 168/ });
    const vg = gpu.upload({ data: c.value.data, shape: c.value.dims });
    await assert.rejects(gpu.multiScaleDeformableAttention(vg, ...args.slice(1), { out: { buffer: vg.buffer, dims: [1, 2, 6], dtype: 'float32' } }),
      { name: 'RangeError', message: /options\.out: its GPUBuffer is value's/ });
    vg.dispose();
    small.destroy();
  });
});
