// The worker pool in Node under hostile use: scripts exit by themselves leaving no worker, outputs over 2 GiB refused before anything is sent, hostile arguments rejected as one instance throws, odd image and tensor objects, aborted calls send no more bands, one listener per shared signal.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';

import { createPool, load } from '../../js/node.mjs';
import { SPLIT_COST } from '../../js/pool/create_pool.mjs';
import { detached } from './lib/hostile.mjs';
import { random } from './lib/random.mjs';
import { assertSame, BIG, GETTER, image, postedDuring, rejectsAsInstance, thrown, trapProxy } from './lib/pool_checks.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const NODE_ENTRY = join(HERE, '..', '..', 'js', 'node.mjs');
const CJS_ENTRY = join(HERE, '..', '..', 'js', 'index.cjs');

describe('createPool (Node worker_threads)', () => {
  // A pool that splits every call it can (the threshold set to 0), so that small inputs test
  // the bands; the routing of the default threshold has its own test.
  const ready = Promise.all([load({ variant: 'simd' }), createPool({ workers: 2, [SPLIT_COST]: 0 })]);

  test('a script exits by itself, with or without terminate(), and leaves no worker (ESM and CommonJS; with node flags)', () => {
    const call = 'const r = await pool.warpAffine({ data: new Uint8Array(600 * 600 * 4), width: 600, height: 600 }, [1, 0, 0, 0, 1, 0]);';
    const scripts = [
      `import { createPool } from ${JSON.stringify(NODE_ENTRY)}; const pool = await createPool({ workers: 2 }); ${call} console.log(r.width, pool.workers);`,
      `import { createPool } from ${JSON.stringify(NODE_ENTRY)}; const pool = await createPool({ workers: 2 }); ${call} await pool.terminate(); console.log(r.width, process.getActiveResourcesInfo().filter((k) => /Worker|MessagePort/.test(k)).length);`,
      `const { createPool } = require(${JSON.stringify(CJS_ENTRY)}); (async () => { const pool = await createPool({ workers: 2 }); ${call} console.log(r.width, pool.workers); })();`,
    ];
    const expected = ['600 2', '600 0', '600 2', '600 2'];
    // The node flags the workers inherit: -e code (--input-type), and a flag workers refuse in
    // an explicit list (--expose-gc, as make bench runs).
    scripts.push(scripts[0]);
    const flags = [['--input-type=module'], ['--input-type=module'], [], ['--expose-gc', '--input-type=module']];
    scripts.forEach((script, i) => {
      const args = [...flags[i], '-e', script];
      const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30000 });
      assert.equal(r.signal, null, `script ${i} did not exit by itself: ${r.stderr}`);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), expected[i]);
    });
  });

  test('terminate() resolves with nothing else keeping Node alive, a call in flight or not, 20 times (Node could end the loop before idle workers exited)', async () => {
    const frame = image(1024, 1024);
    for (let i = 0; i < 20; ++i) {
      const pool = await createPool({ workers: 2 });
      const pending = i % 2 ? assert.rejects(pool.warpAffine(frame, [1, 0, 0, 0, 1, 0], { mode: 'cubic' }),
        { message: 'pool.warpAffine: the pool was terminated' }) : null;
      await pool.terminate();
      await pending;
    }
  });

  test('a call whose output or heap the instance refuses (over 2 GiB; over 4 GiB) is refused up front with its error, nothing sent', async () => {
    const [gs, pool] = await ready;
    const small = image(8, 8);
    const cases = [
      ['warpAffine', [small, [1, 0, 0, 0, 1, 0], { mode: 'bicubic', width: 32800, height: 32800 }]],
      ['warpAffine', [small, [1, 0, 0, 0, 1, 0], { mode: 'bicubic', width: 24000, height: 24000 }]],
      ['warpPerspective', [small, [1, 0, 0, 0, 1, 0, 0, 0, 1], { mode: 'cubic', width: 16, height: 2 ** 27 }]],
      // The output fits (2.1e9 bytes) but not with the image's 268 MB beside it in the heap.
      ['warpAffine', [{ data: new Uint8ClampedArray(8192 * 8192 * 4), width: 8192, height: 8192 }, [1, 0, 0, 0, 1, 0], { mode: 'cubic', width: 23000, height: 23000 }]],
      ['gridSample', [{ data: new Float32Array(4096 * 4), shape: [1, 4096, 2, 2] }, { data: new Float32Array(512 * 512 * 2), shape: [1, 512, 512, 2] }, {}]],
      ['remap', [small, { data: new Float32Array(2), width: 2 ** 29, height: 2 ** 29 }, null, {}]],
    ];
    const posted = await postedDuring(async () => {
      for (const [fn, args] of cases) {
        await rejectsAsInstance(pool[fn](...args), thrown(() => gs[fn](...args)), `${fn} ${JSON.stringify(args.at(-1))}`);
      }
    });
    assert.deepEqual(posted, [], 'messages sent to the workers');
  });

  test('hostile arguments: every call rejects with the error of one instance (the caller\'s own exceptions unchanged); the pool stays usable', async () => {
    const [gs, pool] = await ready;
    const I6 = [1, 0, 0, 0, 1, 0];
    const I9 = [1, 0, 0, 0, 1, 0, 0, 0, 1];
    const img = () => image(BIG, 64);
    const map = () => ({ data: random(64 * 32 * 2, 3, 0, 60), width: 64, height: 32 });
    const plane = () => ({ data: random(64 * 32, 4, 0, 60), width: 64, height: 32 });
    const x = () => ({ data: random(2 * 3 * 40 * 50, 6), shape: [2, 3, 40, 50] });
    const grid = () => ({ data: random(2 * 30 * 20 * 2, 5, -1, 1), shape: [2, 30, 20, 2] });
    const throwing = (o, key) => Object.defineProperty(o, key, { get() { throw GETTER; }, enumerable: true });
    // [what, fn, () => args]: each run on fresh arguments by the instance and by the pool.
    const cases = [
      ['a throwing options getter', 'warpAffine', () => [img(), I6, throwing({}, 'mode')]],
      ['a throwing image.width getter', 'warpAffine', () => [throwing({ data: new Uint8Array(16) }, 'width'), I6, {}]],
      ['a throwing theta entry', 'warpAffine', () => [img(), throwing([1, 0, 0, 0, 1, 0], 3), {}]],
      ['a detached image.data', 'warpAffine', () => [{ data: detached(new Uint8Array(16)), width: 2, height: 2 }, I6, {}]],
      ['fill: () => 1', 'warpAffine', () => [img(), I6, { fill: () => 1 }]],
      ['mode: Symbol()', 'warpAffine', () => [img(), I6, { mode: Symbol() }]],
      ["mode: () => 'linear'", 'warpAffine', () => [img(), I6, { mode: () => 'linear' }]],
      ['options an array', 'warpAffine', () => [img(), I6, []]],
      ['options a typed array', 'warpAffine', () => [img(), I6, new Uint8Array(2)]],
      ['options a string', 'warpAffine', () => [img(), I6, 'bicubic']],
      ['options a Proxy whose traps throw', 'warpAffine', () => [img(), I6, trapProxy()]],
      ['an unknown option', 'warpAffine', () => [img(), I6, { padding: 'zeros' }]],
      ['inverse: 1 in pixel space', 'warpAffine', () => [img(), I6, { space: 'pixel', inverse: 1 }]],
      ['alignCorners in pixel space', 'warpAffine', () => [img(), I6, { space: 'pixel', alignCorners: true }]],
      ['theta a BigInt64Array', 'warpAffine', () => [img(), new BigInt64Array(6), {}]],
      ['theta a Proxy of a Float64Array', 'warpAffine', () => [img(), new Proxy(new Float64Array(6), {}), {}]],
      ['image null', 'warpAffine', () => [null, I6, {}]],
      ['image.data a Float64Array', 'warpAffine', () => [{ data: new Float64Array(16), width: 2, height: 2 }, I6, {}]],
      ['width 2^40', 'warpAffine', () => [img(), I6, { width: 2 ** 40, height: 1 }]],
      ['h a sparse array', 'warpPerspective', () => [img(), [1, 0, 0, 0, 1, 0, 0, , 1], {}]], // eslint-disable-line no-sparse-arrays
      ['fill: () => 1', 'warpPerspective', () => [img(), I9, { fill: () => 1 }]],
      ['a detached image.data', 'warpPerspective', () => [{ data: detached(new Float32Array(4)), width: 2, height: 2 }, I9, {}]],
      ['a pixel-space h that cannot be inverted', 'warpPerspective', () => [img(), [1, 0, 0, 0, 1, 0, 0, 0, -Infinity], { space: 'pixel' }]],
      ['a detached mapX', 'remap', () => [img(), { ...map(), data: detached(new Float32Array(8)) }, null, {}]],
      ['a throwing mapY getter', 'remap', () => [img(), plane(), throwing({ width: 64, height: 32 }, 'data'), {}]],
      ['mapX a Float64Array', 'remap', () => [img(), { data: new Float64Array(64 * 32 * 2), width: 64, height: 32 }, null, {}]],
      ['mode: Symbol()', 'remap', () => [img(), map(), null, { mode: Symbol() }]],
      ['fill: () => 1', 'remap', () => [img(), plane(), plane(), { fill: () => 1 }]],
      ['a detached x.data', 'gridSample', () => [{ data: detached(new Float32Array(16)), shape: [1, 1, 4, 4] }, grid(), {}]],
      ['a throwing grid.shape getter', 'gridSample', () => [x(), throwing({ data: grid().data }, 'shape'), {}]],
      ['x a Proxy whose traps throw', 'gridSample', () => [trapProxy(), grid(), {}]],
      ["dtype '__proto__'", 'gridSample', () => [{ ...x(), dtype: '__proto__' }, grid(), {}]],
      ['a uint8 grid', 'gridSample', () => [x(), { data: new Uint8Array(2 * 30 * 20 * 2), shape: [2, 30, 20, 2] }, {}]],
      ['mode: Symbol()', 'gridSample', () => [x(), grid(), { mode: Symbol() }]],
      ['x an Array', 'gridSample', () => [[1, 2, 3], grid(), {}]],
    ];
    for (const [what, fn, make] of cases) {
      await rejectsAsInstance(pool[fn](...make()), thrown(() => gs[fn](...make())), `${fn}: ${what}`);
    }
    const im = img();
    assertSame(await pool.warpAffine(im, [0.9, 0.1, 0, -0.1, 0.9, 0], { mode: 'cubic' }),
      gs.warpAffine(im, [0.9, 0.1, 0, -0.1, 0.9, 0], { mode: 'cubic' }), 'after the errors');
  });

  test('images and tensors are sent as the fields the instance reads: a function property, a class whose data is a getter', async () => {
    const [gs, pool] = await ready;
    const m = [0.9, 0.1, 0, -0.1, 0.9, 0];
    // A class such as onnxruntime's Tensor: data is a getter of its prototype.
    class Tensor {
      constructor(data, dims) {
        this.cpuData = data;
        this.dims = dims;
        this.type = 'float32';
        this.dispose = () => {};
      }

      get data() {
        return this.cpuData;
      }
    }
    // An output of one row is not split (one band).
    for (const [what, fn, args] of [
      ['an image with a function property (whole)', 'warpAffine', [{ ...image(16, 1), onload: () => {} }, m, {}]],
      ['an image with a function property (split)', 'warpAffine', [{ ...image(BIG, 64), onload: () => {} }, m, { mode: 'cubic' }]],
      ['a Tensor class instance (whole)', 'gridSample', [new Tensor(random(16, 1), [1, 1, 4, 4]), new Tensor(random(6, 2, -1, 1), [1, 1, 3, 2]), {}]],
      ['a Tensor class instance (split)', 'gridSample', [new Tensor(random(3 * 40 * 50, 1), [1, 3, 40, 50]), new Tensor(random(300 * 20 * 2, 2, -1, 1), [1, 300, 20, 2]), {}]],
    ]) {
      const { data, ...fields } = await pool[fn](...args);
      const expected = gs[fn](...args);
      assertSame({ data, ...fields }, expected, what);
    }
  });

  test('an aborted call sends no more bands: the workers take the next call after the bands they held', async () => {
    const [gs, pool] = await ready;
    const big = image(BIG, BIG);
    const tiny = image(8, 8);
    const m = [0.9, 0.1, 0, -0.1, 0.9, 0];
    const controller = new AbortController();
    const alone = await postedDuring(() => pool.warpAffine(tiny, m));
    let result;
    const posted = await postedDuring(async (log) => {
      const calls = Array.from({ length: 16 }, () => pool.warpAffine(big, m, { mode: 'cubic', signal: controller.signal }));
      controller.abort();
      log.push('abort');
      const settled = await Promise.allSettled(calls);
      assert.deepEqual(new Set(settled.map((s) => s.reason?.name)), new Set(['AbortError']));
      result = await pool.warpAffine(tiny, m);
    });
    // The 16 calls of 8 bands each: only the bands the idle workers took at once were sent.
    const before = posted.indexOf('abort');
    assert.ok(before <= pool.workers && posted.slice(0, before).every((t) => t === 'band'), `sent: ${posted}`);
    assert.deepEqual(posted.slice(before + 1), alone, `sent after the abort (the next call alone sends ${alone}): ${posted}`);
    assertSame(result, gs.warpAffine(tiny, m), 'the next call');
  });

  test('calls sharing one AbortSignal add one listener, removed when they settle; no MaxListenersExceededWarning', async () => {
    const [, pool] = await ready;
    const warnings = [];
    const onWarning = (w) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const { signal } = new AbortController();
      const small = image(16, 16);
      const calls = Array.from({ length: 12 }, () => pool.warpAffine(small, [1, 0, 0, 0, 1, 0], { signal }));
      assert.equal(getEventListeners(signal, 'abort').length, 1, 'abort listeners while 12 calls run');
      await Promise.all(calls);
      assert.equal(getEventListeners(signal, 'abort').length, 0, 'abort listeners once they settled');
      for (let i = 0; i < 12; i++) await pool.warpAffine(small, [1, 0, 0, 0, 1, 0], { signal });
      assert.equal(getEventListeners(signal, 'abort').length, 0, 'abort listeners after 12 calls in turn');
      await new Promise((resolve) => setImmediate(resolve));  // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings, []);
  });

  test('a pool whose worker was replaced, the replacement never called, lets the script exit by itself', () => {
    const script = `import { createPool } from ${JSON.stringify(NODE_ENTRY)};
      const pool = await createPool({ workers: 1 });
      pool[Symbol.for('gridsample.pool.fault')]('exit');
      console.log(await pool.warpAffine({ data: new Uint8Array(16), width: 2, height: 2 }, [1, 0, 0, 0, 1, 0]).catch((e) => e.message));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20000 });
    assert.equal(r.signal, null, `the script did not exit by itself: ${r.stderr}`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'pool.warpAffine: worker 0 stopped: it exited (code 1)');
  });

  // This file's pool (pool_calls.test.mjs ends its own with a test).
  after(async () => {
    const [, pool] = await ready;
    await pool.terminate();
  });
});
