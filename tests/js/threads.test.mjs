// Wasm threads in Node (the 'simd-threads' build): load() chooses it for numThreads > 1; every call's output equals the single-threaded SIMD build's, byte for byte; options are checked; errors leave the module usable; the process exits on its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

import { load, simdSupported, threadsSupported } from '../../js/node.mjs';
import { random } from './lib/random.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const NODE_ENTRY = join(HERE, '..', '..', 'js', 'node.mjs');
const available = simdSupported() && threadsSupported();

const bytesOf = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
function assertSameBytes(a, b, what) {
  assert.equal(a.length, b.length, `${what}: length`);
  assert.ok(Buffer.compare(Buffer.from(bytesOf(a)), Buffer.from(bytesOf(b))) === 0, `${what}: the threaded output differs`);
}

describe('wasm threads (simd-threads)', { skip: available ? false : 'no wasm SIMD128 or threads in this Node' }, () => {
  // Both load before the tests run; 3 threads on 2 cores is fine (the split does not depend on
  // the cores).
  const ready = Promise.all([load({ variant: 'simd' }), load({ numThreads: 2 }), load({ numThreads: 3 })]);

  test('load({ numThreads }) picks the threaded build and says so', async () => {
    const [one, two, three] = await ready;
    assert.equal(one.backend, 'wasm-simd128');
    assert.equal(one.threads, 1);
    assert.equal(two.backend, 'wasm-simd128-threads');
    assert.equal(two.variant, 'simd-threads');
    assert.equal(two.threads, 2);
    assert.equal(three.threads, 3);
    assert.equal(two.target, one.target);
    const off = await load({ numThreads: 1 });
    assert.equal(off.backend, 'wasm-simd128');
    assert.equal(off.threads, 1);
  });

  test('every operator, mode and padding gives the same bytes on 2 and 3 threads as on one', async () => {
    const [one, ...threaded] = await ready;
    const H = 72, W = 88, Ho = 96, Wo = 104;
    const x = { data: random(3 * H * W, 1), shape: [1, 3, H, W] };
    const grid = { data: random(Ho * Wo * 2, 2, -1.2, 1.2), shape: [1, Ho, Wo, 2] };
    const x3 = { data: random(2 * 10 * 12 * 14, 3), shape: [1, 2, 10, 12, 14] };
    const grid3 = { data: random(16 * 18 * 20 * 3, 4, -1.1, 1.1), shape: [1, 16, 18, 20, 3] };
    const flow = { data: random(2 * Ho * Wo, 5, -6, 6), shape: [1, 2, Ho, Wo] };
    const rgba = { data: random(H * W * 4, 6, 0, 256, Uint8ClampedArray), width: W, height: H };
    const mapX = { data: random(Ho * Wo, 7, -4, W + 4), width: Wo, height: Ho };
    const mapY = { data: random(Ho * Wo, 8, -4, H + 4), width: Wo, height: Ho };
    const theta = [0.9, -0.3, 0.05, 0.3, 0.85, -0.1];
    const calls = [];
    for (const mode of ['bilinear', 'nearest', 'bicubic']) {
      for (const paddingMode of ['zeros', 'border', 'reflection']) {
        for (const alignCorners of [false, true]) {
          const o = { mode, paddingMode, alignCorners };
          calls.push([`gridSample 2-D ${JSON.stringify(o)}`, (gs) => gs.gridSample(x, grid, o).data]);
        }
        const o = { mode, paddingMode };
        calls.push([`gridSample 3-D ${JSON.stringify(o)}`, (gs) => gs.gridSample(x3, grid3, o).data]);
        calls.push([`warpFlow ${JSON.stringify(o)}`, (gs) => gs.warpFlow(x, flow, o).data]);
        calls.push([`warpAffine ${JSON.stringify(o)}`, (gs) => gs.warpAffine(rgba, theta, { ...o, width: Wo, height: Ho }).data]);
        calls.push([`warpPerspective ${JSON.stringify(o)}`, (gs) => gs.warpPerspective(rgba, [1, 0.1, 2, -0.05, 0.9, 1, 0.0005, 0.0003, 1], { ...o, width: Wo, height: Ho }).data]);
        calls.push([`remap ${JSON.stringify(o)}`, (gs) => gs.remap(rgba, mapX, mapY, o).data]);
      }
    }
    calls.push(['affineGrid 2-D', (gs) => gs.affineGrid({ data: Float32Array.from(theta), shape: [1, 2, 3] }, [1, 3, 400, 500]).data]);
    calls.push(['warpAffine with fill', (gs) => gs.warpAffine(rgba, theta, { width: Wo, height: Ho, fill: [10, 20, 30, 255] }).data]);
    for (const [what, call] of calls) {
      const expected = call(one);
      for (const gs of threaded) assertSameBytes(call(gs), expected, `${what}, ${gs.threads} threads`);
    }
  });

  test('a failed call throws the same error and leaves the threaded module usable', async () => {
    const [one, two] = await ready;
    const x = { data: new Float32Array(16), shape: [1, 1, 4, 4] };
    const bad = { data: new Float32Array(8), shape: [1, 2, 2, 2] };
    const message = (gs) => {
      try {
        gs.gridSample(x, bad, { mode: 'nope' });
      } catch (e) {
        return `${e.name}: ${e.message}`;
      }
      return 'no error';
    };
    assert.equal(message(two), message(one));
    assert.match(message(two), /mode/);
    const grid = { data: random(64 * 64 * 2, 9, -1, 1), shape: [1, 64, 64, 2] };
    const big = { data: random(3 * 64 * 64, 10), shape: [1, 3, 64, 64] };
    assertSameBytes(two.gridSample(big, grid).data, one.gridSample(big, grid).data, 'after the error');
  });

  test('numThreads is checked', async () => {
    for (const [numThreads, type, pattern] of [
      [0, RangeError, /numThreads: expected an integer from 1 to 64, got 0/],
      [65, RangeError, /got 65/],
      [1.5, RangeError, /got 1\.5/],
      [Number.NaN, RangeError, /got NaN/],
      ['2', TypeError, /numThreads: expected an integer from 1 to 64, got "2"/],
    ]) {
      await assert.rejects(load({ numThreads }), (e) => e instanceof type && pattern.test(e.message), String(numThreads));
    }
    await assert.rejects(load({ variant: 'simd', numThreads: 2 }),
      /numThreads: 2 threads need variant 'simd-threads' or 'auto', not 'simd'/);
  });

  test("'auto' with a fixed .wasm stays on one thread; 'simd-threads' names the build", async () => {
    const { readFileSync } = await import('node:fs');
    const simdBytes = readFileSync(join(HERE, '..', '..', 'js', 'dist', 'gridsample-simd.wasm'));
    const fixed = await load({ wasmBinary: simdBytes, numThreads: 2 });
    assert.equal(fixed.backend, 'wasm-simd128');
    assert.equal(fixed.threads, 1);
    const named = await load({ variant: 'simd-threads', numThreads: 2 });
    assert.equal(named.backend, 'wasm-simd128-threads');
    await assert.rejects(load({ variant: 'simd-threads', wasmBinary: simdBytes }),
      /could not instantiate the gridsample wasm from options.wasmBinary/);
  });

  test('a script that uses threads exits by itself (the pthread workers do not keep Node alive)', () => {
    const script = `import { load } from ${JSON.stringify(NODE_ENTRY)};
const gs = await load({ numThreads: 2 });
const x = { data: new Float32Array(3 * 256 * 256).fill(1), shape: [1, 3, 256, 256] };
const grid = gs.affineGrid({ data: new Float32Array([1, 0, 0, 0, 1, 0]), shape: [1, 2, 3] }, [1, 3, 256, 256]);
console.log(gs.backend, gs.threads, gs.gridSample(x, grid).data[1000]);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30000 });
    assert.equal(r.error, undefined, `the script did not exit: ${r.error}`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'wasm-simd128-threads 2 1');
  });

  test('start-up heap of the threaded build is within 10% of the single-threaded one', async () => {
    const [one, two] = await ready;
    // After the same calls (the equality test above ran on both).
    assert.ok(two.heapSize() <= 1.1 * one.heapSize(), `threaded heap ${two.heapSize()} B, single ${one.heapSize()} B`);
    const fresh = [await load({ variant: 'simd' }), await load({ numThreads: 2 })];
    assert.ok(fresh[1].heapSize() <= 1.1 * fresh[0].heapSize(), `fresh: threaded ${fresh[1].heapSize()} B, single ${fresh[0].heapSize()} B`);
  });
});
