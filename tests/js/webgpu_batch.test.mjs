// Batched calls of gridsample/webgpu in Node on SwiftShader (issue 46 item 1): calls on buffers bound before record no error scope and reuse their bind groups and uniform blocks, their work reaches the GPU before the caller's own, their results equal the wasm build, and their GPU errors reach the next call, read() and flush(); the temporaries of calls into the caller's encoder go once it is submitted.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { BATCH_LIMIT } from '../../js/webgpu/batch.mjs';
import { createGpu } from '../../js/webgpu/index.mjs';
import { nodeWebGpu } from './lib/node_webgpu.mjs';

const setup = await nodeWebGpu();
const skip = setup.skip ?? false;
const wasm = await load({ variant: 'simd' });
const U = skip ? null : GPUBufferUsage;

const x = { data: Float32Array.from({ length: 2 * 6 * 7 }, (_, i) => Math.sin(i) * 3), shape: [1, 2, 6, 7] };
const grid = { data: Float32Array.from({ length: 6 * 7 * 2 }, (_, i) => Math.cos(i * 1.3) * 1.1), shape: [1, 6, 7, 2] };
const options = { mode: 'linear', paddingMode: 'border', alignCorners: false };

/** Counts the calls of GPUDevice's `names` during `work()` (the prototype's methods wrapped meanwhile). */
async function counting(names, work) {
  const counts = Object.fromEntries(names.map((n) => [n, 0]));
  const originals = names.map((n) => GPUDevice.prototype[n]);
  names.forEach((n, i) => {
    GPUDevice.prototype[n] = function counted(...args) {
      counts[n] += 1;
      return originals[i].apply(this, args);
    };
  });
  try {
    await work();
  } finally {
    names.forEach((n, i) => { GPUDevice.prototype[n] = originals[i]; });
  }
  return counts;
}

/** The bytes of `buffer` as the caller reads them: its own copy, submission and map. */
async function callerReads(device, buffer, bytes) {
  const staging = device.createBuffer({ size: bytes, usage: U.MAP_READ | U.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, bytes);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const data = new Float32Array(staging.getMappedRange().slice(0));
  staging.destroy();
  return data;
}

const bits = (a) => new Uint32Array(a.buffer, a.byteOffset, a.length);

const gpu = skip ? null : await createGpu({ device: setup.device, wasm });

describe('gridsample/webgpu: batched calls', { skip }, () => {
  test(`${3 * BATCH_LIMIT + 5} chained calls: no error scope or bind group of their own, the last result equals the wasm build's chain bit for bit`, async () => {
    const calls = 3 * BATCH_LIMIT + 5;
    const g = gpu.upload(grid);
    const ping = [gpu.upload(x), gpu.upload(x)];
    // The first call of a pipeline and buffers is checked on its own.
    await gpu.gridSample(ping[0], g, { ...options, out: ping[1] });
    let expected = wasm.gridSample(x, grid, options);
    const counts = await counting(['pushErrorScope', 'createBindGroup', 'createBuffer', 'createCommandEncoder'], async () => {
      for (let i = 1; i < calls; ++i) await gpu.gridSample(ping[i % 2], g, { ...options, out: ping[(i + 1) % 2] });
    });
    for (let i = 1; i < calls; ++i) expected = wasm.gridSample(expected, grid, options);
    const got = (await gpu.read(ping[calls % 2])).data;
    assert.deepEqual(bits(got), bits(expected.data));
    // The two bind groups (ping to pong, pong to ping) and one uniform block are made once; a
    // submission (two error scopes, one encoder) per BATCH_LIMIT calls at most.
    const submissions = Math.ceil(calls / BATCH_LIMIT) + 1;
    assert.ok(counts.pushErrorScope <= 2 * submissions, `${counts.pushErrorScope} error scopes for ${calls} calls`);
    assert.ok(counts.createCommandEncoder <= submissions, `${counts.createCommandEncoder} encoders for ${calls} calls`);
    assert.ok(counts.createBindGroup <= 2, `${counts.createBindGroup} bind groups for ${calls} calls`);
    assert.ok(counts.createBuffer <= 1, `${counts.createBuffer} buffers for ${calls} calls`);
    for (const t of [g, ...ping]) t.dispose();
  });

  test('the caller\'s own queue work after a batched call: its copy reads the result, its writeBuffer comes after the call read the input', async () => {
    const xg = gpu.upload(x);
    const g = gpu.upload(grid);
    const y = await gpu.gridSample(xg, g, options);
    const expected = wasm.gridSample(x, grid, options).data;
    // Batched (its buffers are ours): the caller's submission of a copy must come after it.
    await gpu.gridSample(xg, g, { ...options, out: y });
    assert.deepEqual(bits(await callerReads(setup.device, y.buffer, expected.byteLength)), bits(expected));
    // A new call, then the caller overwrites its input at once: the call saw the old input.
    const z = await gpu.gridSample(xg, g, options);
    await gpu.gridSample(xg, g, { ...options, out: z });
    setup.device.queue.writeBuffer(xg.buffer, 0, new Float32Array(x.data.length).fill(7));
    assert.deepEqual(bits((await gpu.read(z)).data), bits(expected));
    for (const t of [xg, g, y, z]) t.dispose();
  });

  test('a tensor disposed while a batched call that reads it is pending: the call is submitted first', async () => {
    const xg = gpu.upload(x);
    const g = gpu.upload(grid);
    const y = await gpu.gridSample(xg, g, options);
    await gpu.gridSample(xg, g, { ...options, out: y });
    xg.dispose();
    await gpu.flush();
    assert.deepEqual(bits((await gpu.read(y)).data), bits(wasm.gridSample(x, grid, options).data));
    for (const t of [g, y]) t.dispose();
  });

  test('options.encoder: the uploads and uniform block of a call recorded into the caller\'s encoder are destroyed once the caller submits it', async () => {
    const alive = new Set();
    const { createBuffer } = GPUDevice.prototype;
    const { destroy } = GPUBuffer.prototype;
    GPUDevice.prototype.createBuffer = function watched(...args) {
      const b = createBuffer.apply(this, args);
      alive.add(b);
      return b;
    };
    GPUBuffer.prototype.destroy = function watched() {
      alive.delete(this);
      return destroy.call(this);
    };
    try {
      const encoder = setup.device.createCommandEncoder();
      const y = await gpu.gridSample(x, grid, { ...options, encoder });
      alive.delete(y.buffer);
      assert.equal(alive.size, 3, 'x, grid and the uniform block, alive until the caller submits');
      setup.device.queue.submit([encoder.finish()]);
      assert.equal(alive.size, 0, `${alive.size} temporaries left alive after the submission`);
      assert.deepEqual(bits((await gpu.read(y)).data), bits(wasm.gridSample(x, grid, options).data));
      y.dispose();
    } finally {
      GPUDevice.prototype.createBuffer = createBuffer;
      GPUBuffer.prototype.destroy = destroy;
    }
  });

  test('a batched call\'s GPU error (the caller destroyed a buffer bound before) reaches flush(), the next call and read(), once each', async () => {
    const g = gpu.upload(grid);
    const raw = () => {
      const buffer = setup.device.createBuffer({ size: x.data.byteLength, usage: U.STORAGE | U.COPY_SRC | U.COPY_DST });
      setup.device.queue.writeBuffer(buffer, 0, x.data);
      return { buffer, dims: x.shape, dtype: 'float32' };
    };
    const destroyed = /earlier GPU work of gridsample was not done: gridSample: x: its GPUBuffer was destroyed$/;
    // The next call rejects once the GPU has reported the error (calls made before resolve).
    const nextCall = async () => {
      for (let i = 0; i < 200; ++i) {
        (await gpu.affineGrid({ data: new Float32Array(6), shape: [1, 2, 3] }, [1, 1, 2, 2])).dispose();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const ways = { 'flush()': () => gpu.flush(), 'the next call': nextCall, 'read()': (y) => gpu.read(y) };
    for (const [way, next] of Object.entries(ways)) {
      const t = raw();
      const y = await gpu.gridSample(t, g, options);  // checked: t is bound from now on without a check
      t.buffer.destroy();
      await gpu.gridSample(t, g, { ...options, out: y });  // batched: resolves
      await assert.rejects(next(y), (e) => {
        assert.match(e.message, destroyed, way);
        assert.ok(e.message.startsWith(`${way === 'the next call' ? 'affineGrid' : way.slice(0, -2)}: `), e.message);
        return true;
      });
      // Reported once; the instance works on.
      assert.deepEqual(bits((await gpu.read(await gpu.gridSample(x, g, options))).data), bits(wasm.gridSample(x, grid, options).data));
      y.dispose();
    }
    g.dispose();
  });

  test('calls back to back that differ from the last in one shape, dtype or sampling option each run on their own plan (webgpu/index.mjs compares the last first): the wasm build\'s bytes', async () => {
    const x2 = { data: Float32Array.from({ length: 3 * 5 * 4 }, (_, i) => Math.cos(i) * 2), shape: [1, 3, 5, 4] };
    const grid2 = { data: grid.data.subarray(0, 6 * 6 * 2), shape: [1, 6, 6, 2] };
    const nearest = { ...options, mode: 'nearest' };
    const zeros = { ...nearest, paddingMode: 'zeros' };
    const calls = [ // each differs from the one before in one thing
      [x, grid, options], [x, grid2, options], [x2, grid2, options], [x2, grid2, nearest],
      [x2, grid2, zeros], [x2, grid2, { ...zeros, alignCorners: true }], [x, grid, options],
    ];
    for (const [i, [xi, gi, oi]] of calls.entries()) {
      const y = await gpu.gridSample(xi, gi, oi);
      const want = wasm.gridSample(xi, gi, oi);
      assert.deepEqual(y.dims, want.shape, `call ${i}`);
      assert.deepEqual(bits((await gpu.read(y)).data), bits(want.data), `call ${i}`);
      y.dispose();
    }
  });
  test('a call repeating the last into options.out (webgpu/index.mjs skips its checks) reads anew another tensor, a changed option, a disposed tensor, an encoder and a caller\'s tensor: the wasm build\'s bytes, or the error', async () => {
    const [xg, g] = [gpu.upload(x), gpu.upload(grid)];
    const y = await gpu.gridSample(xg, g, options);
    const expect = async (opts, what) => assert.deepEqual(bits((await gpu.read(y)).data), bits(wasm.gridSample(x, grid, opts).data), what);
    // Each option changed after the same call twice (the second one repeats the first).
    const changed = [{ ...options, mode: 'nearest' }, { mode: 'cubic', padding_mode: 'reflection' }, { mode: 'cubic', padding_mode: 'reflection', align_corners: 1 }];
    for (const opts of [options, ...changed, options]) {
      for (let i = 0; i < 2; ++i) await gpu.gridSample(xg, g, { ...opts, out: y });
      await expect(opts, JSON.stringify(opts));
    }
    // With an encoder: recorded there, not batched (out keeps its zeros until the caller submits).
    setup.device.queue.writeBuffer(y.buffer, 0, new Float32Array(y.dims.reduce((a, b) => a * b)));
    const encoder = setup.device.createCommandEncoder();
    await gpu.gridSample(xg, g, { ...options, out: y, encoder });
    assert.ok((await gpu.read(y)).data.every((v) => v === 0), 'written before the caller submitted its encoder');
    setup.device.queue.submit([encoder.finish()]);
    await expect(options, 'after the encoder');
    // Another x or grid of ours into the same out, back and forth: each call reads its own.
    const x2 = { data: x.data.map((v) => v * 2 - 1), shape: x.shape };
    const grid2 = { data: grid.data.map((v) => -v), shape: grid.shape };
    const [x2g, g2] = [gpu.upload(x2), gpu.upload(grid2)];
    for (const [xi, gi, xc, gc] of [[x2g, g, x2, grid], [xg, g, x, grid], [xg, g2, x, grid2], [x2g, g2, x2, grid2]]) {
      for (let i = 0; i < 2; ++i) await gpu.gridSample(xi, gi, { ...options, out: y });
      assert.deepEqual(bits((await gpu.read(y)).data), bits(wasm.gridSample(xc, gc, options).data));
    }
    for (const t of [x2g, g2]) t.dispose();
    // A caller's tensor is read at every call: its dims changed (same size) give the new shape's result.
    const raw = { buffer: xg.buffer, dims: [1, 2, 6, 7], dtype: 'float32' };
    for (let i = 0; i < 2; ++i) await gpu.gridSample(raw, g, { ...options, out: y });
    raw.dims = [1, 2, 7, 6];
    await gpu.gridSample(raw, g, { ...options, out: y });
    assert.deepEqual(bits((await gpu.read(y)).data), bits(wasm.gridSample({ data: x.data, shape: [1, 2, 7, 6] }, grid, options).data));
    for (const t of [xg, g, y]) t.dispose();
    // Disposed since the last call: refused as before, whichever it is.
    for (const name of ['x', 'grid', 'options.out']) {
      const t = { x: gpu.upload(x), grid: gpu.upload(grid) };
      t['options.out'] = await gpu.gridSample(t.x, t.grid, options);
      for (let i = 0; i < 2; ++i) await gpu.gridSample(t.x, t.grid, { ...options, out: t['options.out'] });
      t[name].dispose();
      await assert.rejects(gpu.gridSample(t.x, t.grid, { ...options, out: t['options.out'] }), new RegExp(`^TypeError: gridSample: ${name}: this GPU tensor was disposed$`));
      for (const u of Object.values(t)) u.dispose();
    }
  });
});
