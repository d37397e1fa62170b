// Hostile use of gridsample/webgpu in Node on SwiftShader (issue 46 item 6): calls that throw mid-call leave no error scope open and no buffer alive, GPU refusals name the argument at fault, and calls right after device.destroy() reject.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { createGpu } from '../../js/webgpu/index.mjs';
import { nodeWebGpu } from './lib/node_webgpu.mjs';

const setup = await nodeWebGpu();
const skip = setup.skip ?? false;
const wasm = await load({ variant: 'simd' });
const U = skip ? null : GPUBufferUsage;

/** Asserts that `promise` rejects with a `type` whose one-line message matches `pattern`. */
async function rejectsWith(promise, type, pattern) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.name, type.name, `${e.name}: ${e.message}`);
    assert.match(e.message, pattern);
    assert.ok(!e.message.includes('\n'), `one-line message: ${e.message}`);
    return true;
  });
}

/**
 * `device` seen through a Proxy that keeps the buffers created through it in `alive` until
 * their destroy() (GPUBuffer.prototype.destroy watched; restore() puts it back); after
 * sabotage(), its next createCommandEncoder() gives an encoder whose beginComputePass() throws.
 */
function watchedBuffers(device) {
  const alive = new Set();
  let sabotaged = false;
  const destroy = GPUBuffer.prototype.destroy;
  GPUBuffer.prototype.destroy = function watched() {
    alive.delete(this);
    return destroy.call(this);
  };
  const proxy = new Proxy(device, {
    get(target, key) {
      const v = target[key];
      if (typeof v !== 'function') return v;
      return (...args) => {
        if (key === 'createCommandEncoder' && sabotaged) {
          sabotaged = false;
          return { beginComputePass() { throw new Error('sabotaged'); }, finish() {} };
        }
        const r = v.apply(target, args);
        if (key === 'createBuffer') alive.add(r);
        return r;
      };
    },
  });
  return { device: proxy, alive, sabotage: () => { sabotaged = true; }, restore: () => { GPUBuffer.prototype.destroy = destroy; } };
}

/** Whether the device reports its next uncaptured error within 5 s of `invalid()`. */
function raisesUncaptured(device, invalid) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), 5000);
    function done(raised) {
      clearTimeout(timer);
      device.removeEventListener('uncapturederror', onError);
      resolve(raised);
    }
    function onError(event) {
      event.preventDefault();
      done(true);
    }
    device.addEventListener('uncapturederror', onError);
    invalid();
  });
}

const x = { data: Float32Array.from({ length: 16 }, (_, i) => i), shape: [1, 1, 4, 4] };
const grid = { data: Float32Array.from({ length: 8 }, (_, i) => i / 8 - 0.4), shape: [1, 2, 2, 2] };
const image = { data: new Uint8Array(4 * 3 * 4), width: 4, height: 3, channels: 4 };

describe('gridsample/webgpu, hostile: a call that throws mid-call', { skip }, () => {
  // Objects that pass as a GPUBuffer or an encoder until the GPU is handed them.
  const duck = () => ({ mapAsync() {}, size: 64, usage: U.STORAGE | U.COPY_SRC });
  const real = skip ? null : setup.device.createBuffer({ size: 64, usage: U.STORAGE | U.COPY_SRC });
  const forwarding = (b) => new Proxy(b, { get: (t, k) => (typeof t[k] === 'function' ? t[k].bind(t) : t[k]) });
  const cases = {
    'options.encoder {}': [(g) => g.gridSample(x, grid, { encoder: {} }), TypeError, /^gridSample: options\.encoder: expected a GPUCommandEncoder, got an object$/],
    'options.encoder null': [(g) => g.gridSample(x, grid, { encoder: null }), TypeError, /^gridSample: options\.encoder: expected a GPUCommandEncoder, got null$/],
    'options.encoder null, warpAffine': [(g) => g.warpAffine(image, [1, 0, 0, 0, 1, 0], { encoder: null }), TypeError, /^warpAffine: options\.encoder: expected a GPUCommandEncoder/],
    'a duck-typed buffer as x': [(g) => g.gridSample({ buffer: duck(), dims: x.shape, dtype: 'float32' }, grid), TypeError,
      /^gridSample: x: expected a GPUBuffer, got an object that only looks like one \(\[object Object\]\)$/],
    'a duck-typed buffer as an image': [(g) => g.warpAffine({ buffer: duck(), width: 4, height: 3, channels: 4, dtype: 'uint8' }, [1, 0, 0, 0, 1, 0]), TypeError,
      /^warpAffine: image: expected a GPUBuffer/],
    'a Proxy of a GPUBuffer as x': [(g) => g.gridSample({ buffer: new Proxy(real, {}), dims: x.shape, dtype: 'float32' }, grid), TypeError,
      /^gridSample: x: expected a GPUBuffer, got a Proxy or another wrapper of one$/],
    // Its members read on the buffer itself: Dawn in Node crashed when it was bound.
    'a Proxy of a GPUBuffer, members forwarded, as x': [(g) => g.gridSample({ buffer: forwarding(real), dims: x.shape, dtype: 'float32' }, grid), TypeError,
      /^gridSample: x: expected a GPUBuffer, got a Proxy or another wrapper of one$/],
    // A throw the checks cannot foresee (Dawn's own, say): the device's next encoder's. The
    // call's work is batched (its inputs are uploads, its output ours): the call resolves, its
    // work fails when submitted, and flush() (or the next call, or read()) rejects.
    'a throw inside the recording': [async (g, sabotage) => {
      sabotage();
      (await g.gridSample(x, grid)).dispose();
      return g.flush();
    }, Error, /^flush: earlier GPU work of gridsample was not done: gridSample: the GPU refused the work of 1 call: sabotaged$/],
  };
  for (const [name, [call, type, pattern]] of Object.entries(cases)) {
    test(`${name}: refused by name; the caller's next GPU error still raises uncapturederror; no buffer left alive`, async () => {
      const watched = watchedBuffers(setup.device);
      try {
        const g = await createGpu({ device: watched.device, wasm });
        for (let i = 0; i < 3; ++i) await rejectsWith(call(g, watched.sabotage), type, pattern);
        assert.equal(watched.alive.size, 0, `${watched.alive.size} buffers left alive`);
        const raised = await raisesUncaptured(setup.device, () => setup.device.createBuffer({ size: 4, usage: U.MAP_READ | U.STORAGE }));
        assert.ok(raised, 'the caller\'s invalid createBuffer raised no uncapturederror: an error scope was left open');
        // The instance still works.
        assert.equal((await g.read(await g.gridSample(x, grid))).data.length, 4);
      } finally {
        watched.restore();
      }
    });
  }
});

const gpu = skip ? null : await createGpu({ device: setup.device, wasm });
const other = skip ? null : await (await setup.gpu.requestAdapter()).requestDevice();

describe('gridsample/webgpu, hostile: what the GPU refuses names the argument', { skip }, () => {
  const foreign = (bytes, usage = U.STORAGE | U.COPY_SRC | U.COPY_DST) => other.createBuffer({ size: bytes, usage });
  const raw = (bytes, extra = {}) => setup.device.createBuffer({ size: bytes, usage: U.STORAGE | U.COPY_SRC | U.COPY_DST, ...extra });
  const tensor = (buffer, dims = x.shape, dtype = 'float32') => ({ buffer, dims, dtype });

  test('a GPUBuffer of another GPUDevice as x, grid, options.out, a warp image, a remap map, the value', async () => {
    await rejectsWith(gpu.gridSample(tensor(foreign(64)), grid), TypeError, /^gridSample: x: its GPUBuffer belongs to another GPUDevice/);
    await rejectsWith(gpu.gridSample(x, tensor(foreign(32), grid.shape)), TypeError, /^gridSample: grid: its GPUBuffer belongs to another GPUDevice/);
    await rejectsWith(gpu.gridSample(x, grid, { out: tensor(foreign(16), [1, 1, 2, 2]) }), TypeError, /^gridSample: options\.out: its GPUBuffer belongs to another GPUDevice/);
    await rejectsWith(gpu.affineGrid(tensor(foreign(32), [1, 2, 3]), [1, 1, 2, 2]), TypeError, /^affineGrid: theta: its GPUBuffer belongs to another GPUDevice/);
    const img = { buffer: foreign(48), width: 4, height: 3, channels: 4, dtype: 'uint8' };
    await rejectsWith(gpu.warpAffine(img, [1, 0, 0, 0, 1, 0]), TypeError, /^warpAffine: image: its GPUBuffer belongs to another GPUDevice/);
    await rejectsWith(gpu.warpPerspective(img, [1, 0, 0, 0, 1, 0, 0, 0, 1]), TypeError, /^warpPerspective: image: its GPUBuffer belongs to another GPUDevice/);
    const map = { buffer: foreign(4 * 3 * 8), width: 4, height: 3, channels: 2 };
    await rejectsWith(gpu.remap(image, map), TypeError, /^remap: mapX: its GPUBuffer belongs to another GPUDevice/);
    const value = tensor(foreign(4 * 4), [1, 4, 1, 1]);
    const loc = { data: new Float32Array(2), shape: [1, 1, 1, 1, 1, 2] };
    const w = { data: new Float32Array(1), shape: [1, 1, 1, 1, 1] };
    await rejectsWith(gpu.multiScaleDeformableAttention(value, [[2, 2]], [0], loc, w), TypeError,
      /^multiScaleDeformableAttention: value: its GPUBuffer belongs to another GPUDevice/);
  });

  test('options.out of another GPUDevice, or destroyed, for a dtype the wasm module computes (its result copied in)', async () => {
    const x64 = { data: Float64Array.from(x.data), shape: x.shape };
    await rejectsWith(gpu.gridSample(x64, grid, { out: tensor(foreign(32), [1, 1, 2, 2], 'float64') }), TypeError,
      /^gridSample: options\.out: its GPUBuffer belongs to another GPUDevice/);
    const doomed = raw(32);
    doomed.destroy();
    await rejectsWith(gpu.gridSample(x64, grid, { out: tensor(doomed, [1, 1, 2, 2], 'float64') }), TypeError, /^gridSample: options\.out: its GPUBuffer was destroyed$/);
  });

  test('importImage: a texture of another GPUDevice named as such; a destroyed one refused in one line', async () => {
    const texture = other.createTexture({ size: [4, 3], format: 'rgba8unorm', usage: GPUTextureUsage.COPY_SRC | GPUTextureUsage.COPY_DST });
    await rejectsWith(gpu.importImage(texture), TypeError, /^importImage: source: its GPUTexture belongs to another GPUDevice$/);
    texture.destroy();
    const doomed = setup.device.createTexture({ size: [4, 3], format: 'rgba8unorm', usage: GPUTextureUsage.COPY_SRC | GPUTextureUsage.COPY_DST });
    doomed.destroy();
    await rejectsWith(gpu.importImage(doomed), RangeError, /^importImage: the GPU refused to copy the source: /);
  });

  test('a destroyed GPUBuffer, a mapped one, an input disposed once the call began', async () => {
    const doomed = raw(64);
    doomed.destroy();
    await rejectsWith(gpu.gridSample(tensor(doomed), grid), TypeError, /^gridSample: x: its GPUBuffer was destroyed$/);
    await rejectsWith(gpu.warpAffine(image, [1, 0, 0, 0, 1, 0], { out: { buffer: doomed, width: 4, height: 3, channels: 4, dtype: 'uint8' } }),
      TypeError, /^warpAffine: options\.out: its GPUBuffer was destroyed$/);
    const mapped = raw(64, { mappedAtCreation: true });
    await rejectsWith(gpu.gridSample(tensor(mapped), grid), TypeError, /^gridSample: x: its GPUBuffer is mapped; unmap\(\) it before the call$/);
    mapped.unmap();
    // Disposed while the call waits for its shader's compilation (a pipeline not made before
    // in this file): refused by name.
    const xg = gpu.upload(x);
    const call = gpu.gridSample(xg, grid, { mode: 'bicubic', paddingMode: 'reflection', alignCorners: true });
    xg.dispose();
    await rejectsWith(call, TypeError, /^gridSample: x: this GPU tensor was disposed$/);
    const ig = gpu.upload(image);
    const warp = gpu.warpAffine(ig, [1, 0, 0, 0, 1, 0], { mode: 'nearest', paddingMode: 'border' });
    ig.dispose();
    await rejectsWith(warp, TypeError, /^warpAffine: image: this GPU image was disposed$/);
    // Disposed right after a call whose shader is compiled: the call's work was batched, and
    // dispose() submits it before it destroys the buffer.
    const again = gpu.upload(x);
    const y = gpu.gridSample(again, grid, { mode: 'bicubic', paddingMode: 'reflection', alignCorners: true });
    again.dispose();
    const want = wasm.gridSample(x, grid, { mode: 'bicubic', paddingMode: 'reflection', alignCorners: true }).data;
    assert.deepEqual((await gpu.read(await y)).data, want);
    mapped.destroy();
  });

  test('a finished encoder; reading back what lacks COPY_SRC (a float64 x, read() of an out)', async () => {
    const encoder = setup.device.createCommandEncoder();
    encoder.finish();
    await rejectsWith(gpu.gridSample(x, grid, { encoder }), TypeError, /^gridSample: options\.encoder: this GPUCommandEncoder was finished; record into a new one$/);
    const storageOnly = setup.device.createBuffer({ size: 128, usage: U.STORAGE | U.COPY_DST });
    await rejectsWith(gpu.gridSample(tensor(storageOnly, x.shape, 'float64'), grid), TypeError,
      /^gridSample: x: its GPUBuffer lacks COPY_SRC usage \(usage 136\), which reading it back needs/);
    const out = tensor(storageOnly, [1, 1, 2, 2]);
    assert.equal(await gpu.gridSample(x, grid, { out }), out);
    await rejectsWith(gpu.read(out), TypeError, /^read: tensor: its GPUBuffer lacks COPY_SRC usage/);
    storageOnly.destroy();
  });
});

describe('gridsample/webgpu, hostile: right after device.destroy()', { skip }, () => {
  test('calls reject with the device\'s loss before device.lost is awaited; upload() throws', async () => {
    const own = await (await setup.gpu.requestAdapter()).requestDevice();
    const g = await createGpu({ device: own, wasm });
    const xg = g.upload(x);
    const y = await g.gridSample(xg, grid);
    own.destroy();
    // destroy() is seen when it is called (device.lost settles later): calls batched by then
    // would resolve with tensors of a dead device.
    const lost = /device was lost \(destroyed: device\.destroy\(\) was called\)/;
    assert.throws(() => g.upload(x), lost);
    await rejectsWith(g.gridSample(x, grid), Error, lost);
    await rejectsWith(g.gridSample(xg, grid, { out: y }), Error, lost);
    await rejectsWith(g.affineGrid({ data: new Float32Array(6), shape: [1, 2, 3] }, [1, 1, 2, 2]), Error, lost);
    await rejectsWith(g.warpAffine(image, [1, 0, 0, 0, 1, 0]), Error, lost);
    await rejectsWith(g.read(xg), Error, lost);
    await rejectsWith(g.flush(), Error, lost);
  });

  test('importImage: a device destroyed while the copies run gives no image of it', async () => {
    const own = await (await setup.gpu.requestAdapter()).requestDevice();
    const g = await createGpu({ device: own, wasm });
    const texture = own.createTexture({ size: [4, 3], format: 'rgba8unorm', usage: GPUTextureUsage.COPY_SRC | GPUTextureUsage.COPY_DST });
    const imported = g.importImage(texture);
    own.destroy();
    await rejectsWith(imported, Error, /^importImage: the GPU device was lost \(destroyed/);
  });
});
