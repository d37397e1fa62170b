// The worker pool in Node (createPool, worker_threads): split calls give the bytes of one instance's call for every operator, mode and padding; small calls run whole; progress, errors, abort, a failing or exiting worker, and termination.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createPool, load } from '../../js/node.mjs';
import { FAULT, SPLIT_COST } from '../../js/pool/create_pool.mjs';
import { random } from './lib/random.mjs';
import { assertSame, BIG, image, progress, SIDE } from './lib/pool_checks.mjs';

describe('createPool (Node worker_threads)', () => {
  // A pool that splits every call it can (the threshold set to 0), so that small inputs test
  // the bands; the routing of the default threshold has its own test.
  const ready = Promise.all([load({ variant: 'simd' }), createPool({ workers: 2, [SPLIT_COST]: 0 })]);

  test('the pool says how many workers it has', async () => {
    const [, pool] = await ready;
    assert.equal(pool.workers, 2);
  });

  // A split call equals the instance's call byte for byte (progress shows the split).
  async function expectSameAsInstance(gs, pool, name, fn, args) {
    const p = progress();
    const got = await pool[fn](...args.slice(0, -1), { ...args.at(-1), onProgress: p.onProgress });
    assertSame(got, gs[fn](...args), name);
    assert.ok(p.split(), `${name}: not split (progress ${p.seen})`);
    return p.split();
  }

  test('split warps give the bytes of one instance for every mode and padding', async () => {
    const [gs, pool] = await ready;
    const h = [1.1, 0.08, -30, -0.05, 0.95, 12, 0.0003, 0.0002, 1];
    let splits = 0;
    for (const mode of ['linear', 'nearest', 'cubic']) {
      const S = SIDE[mode];
      const rgba = image(S, S);
      const gray = image(S + 37, S + 3, 1, Float32Array, 2);
      const rotation = gs.rotationMatrix([S / 2, S / 2], 23, 1.15);
      for (const paddingMode of ['zeros', 'border', 'reflection']) {
        const cases = [
          ['warpAffine pixel RGBA', 'warpAffine', [rgba, rotation, { mode, paddingMode, space: 'pixel', fill: paddingMode === 'zeros' ? [9, 80, 200, 255] : undefined }]],
          ['warpAffine normalized gray float32, another size', 'warpAffine',
            [gray, [0.9, -0.3, 0.05, 0.3, 0.9, -0.1], { mode, paddingMode, alignCorners: true, width: S + 5, height: 4 * S + 1 }]],
          ['warpPerspective pixel RGBA', 'warpPerspective', [rgba, h, { mode, paddingMode, space: 'pixel' }]],
        ];
        for (const [name, fn, args] of cases) {
          splits += await expectSameAsInstance(gs, pool, `${name} ${mode} ${paddingMode}`, fn, args);
        }
      }
    }
    assert.equal(splits, 27, 'every call above was split');
  });

  test('split remaps and gridSamples give the bytes of one instance', async () => {
    const [gs, pool] = await ready;
    const x2 = { data: random(2 * 3 * 200 * 210, 6), shape: [2, 3, 200, 210] };
    const grid = { data: random(2 * 700 * 650 * 2, 5, -1.1, 1.1), shape: [2, 700, 650, 2] };
    const u8 = { data: random(3 * 200 * 210, 9, 0, 255, Uint8Array), shape: [1, 3, 200, 210], dtype: 'uint8' };
    const gridOne = { data: grid.data.subarray(0, 700 * 650 * 2), shape: [1, 700, 650, 2] };
    const x3 = { data: random(2 * 20 * 22 * 24, 7), shape: [1, 2, 20, 22, 24] };
    const grid3 = { data: random(60 * 64 * 70 * 3, 8, -1.1, 1.1), shape: [1, 60, 64, 70, 3] };
    let splits = 0;
    for (const mode of ['linear', 'nearest', 'cubic']) {
      const S = SIDE[mode];
      const rgba = image(S, S);
      const W = S + 11, H = S - 7;
      const map = random(W * H * 2, 3, -20, S + 20);
      const mapX = { data: map.subarray(0, W * H), width: W, height: H };
      const mapY = { data: map.subarray(W * H), width: W, height: H };
      const interleaved = { data: map, width: W, height: H };
      for (const paddingMode of ['zeros', 'border', 'reflection']) {
        const cases = [
          ['remap (planes)', 'remap', [rgba, mapX, mapY, { mode, paddingMode }]],
          ['remap (interleaved)', 'remap', [rgba, interleaved, null, { mode, paddingMode }]],
          ['gridSample 4-D float32 N=2', 'gridSample', [x2, grid, { mode, paddingMode, alignCorners: true }]],
          ['gridSample 4-D uint8', 'gridSample', [u8, gridOne, { mode, paddingMode }]],
          ...(mode === 'cubic' ? [] : [['gridSample 5-D', 'gridSample', [x3, grid3, { mode, paddingMode }]]]),
        ];
        for (const [name, fn, args] of cases) {
          splits += await expectSameAsInstance(gs, pool, `${name} ${mode} ${paddingMode}`, fn, args);
        }
      }
    }
    assert.equal(splits, 42, 'every call above was split');
  });

  test('the default pool splits only calls worth it; progress rises to 1', async () => {
    const [gs] = await ready;
    const pool = await createPool({ workers: 2 });
    try {
      const m = [1, 0.1, 0, -0.1, 1, 0];
      // [side, mode, split?]: from 32M values x taps, and 4 taps per byte copied (bicubic RGBA:
      // 8; bilinear: 2, as fast as the copies, never split).
      for (const [side, mode, split] of [[64, 'linear', false], [512, 'cubic', false], [1024, 'linear', false], [1024, 'cubic', true]]) {
        const im = image(side, side);
        const p = progress();
        const got = await pool.warpAffine(im, m, { mode, onProgress: p.onProgress });
        assertSame(got, gs.warpAffine(im, m, { mode }), `${side} ${mode}`);
        assert.equal(p.split(), split, `${side}x${side} ${mode}: progress ${p.seen}`);
        if (!split) assert.deepEqual(p.seen, [1]);
        if (split) {
          assert.ok(p.seen.length >= 4, `progress ${p.seen}`);
          for (let i = 1; i < p.seen.length; i++) assert.ok(p.seen[i] > p.seen[i - 1], `progress ${p.seen}`);
          assert.equal(p.seen.at(-1), 1);
        }
      }
    } finally {
      await pool.terminate();
    }
  });

  test('concurrent calls each get their own result', async () => {
    const [gs, pool] = await ready;
    const images = [image(BIG, BIG, 4, Uint8ClampedArray, 3), image(300, 200, 3, Uint8Array, 4), image(BIG, 400, 1, Float32Array, 5)];
    const m = [0.95, 0.2, 0.01, -0.2, 0.95, 0.02];
    const results = await Promise.all(images.map((im) => pool.warpAffine(im, m, { mode: 'cubic' })));
    results.forEach((r, i) => assertSame(r, gs.warpAffine(images[i], m, { mode: 'cubic' }), `call ${i}`));
  });

  test('errors have the class and message of one instance, and the pool stays usable', async () => {
    const [gs, pool] = await ready;
    const big = image(BIG, BIG);
    const bad = [
      ['warpAffine', [big, [1, 2], {}]],
      ['warpAffine', [big, [1, 0, 0, 0, 1, 0], { mode: 'lanczos' }]],
      ['warpAffine', [big, [1, 0, 0, 0, 1, 0], { height: -1 }]],
      ['warpAffine', [{ data: new Uint8Array(10), width: 3, height: 3 }, [1, 0, 0, 0, 1, 0], {}]],
      ['warpAffine', [big, [1, 0, 0, 0, 1, 0], { fill: [1, 2] }]],
      ['warpPerspective', [big, [1, 0, 0, 0, 1, 0, 0, 0, 0], { space: 'pixel' }]],
      ['warpAffine', [big, [NaN, 0, 0, 0, 1, 0], { space: 'pixel' }]],
      ['remap', [big, { data: new Float32Array(8), width: 2, height: 2 }, { data: new Float32Array(3), width: 3, height: 1 }, {}]],
      ['gridSample', [{ data: new Float32Array(4), shape: [1, 1, 2, 2] }, { data: new Float32Array(4), shape: [1, 2, 2] }, {}]],
      ['gridSample', [{ data: new Float32Array(3 * 200 * 210), shape: [1, 3, 200, 210] }, { data: new Float32Array(2 * 700 * 650 * 2), shape: [2, 700, 650, 2] }, {}]],
    ];
    for (const [fn, args] of bad) {
      let expected;
      try {
        gs[fn](...args);
      } catch (e) {
        expected = e;
      }
      assert.ok(expected, `${fn}: the instance accepted ${JSON.stringify(args.at(-1))}`);
      await assert.rejects(pool[fn](...args), (e) => e.constructor === expected.constructor && e.message === expected.message,
        `${fn}: expected ${expected.name}: ${expected.message}`);
    }
    const ok = await pool.warpAffine(big, [1, 0, 0, 0, 1, 0]);
    assertSame(ok, gs.warpAffine(big, [1, 0, 0, 0, 1, 0]), 'after the errors');
  });

  test("the pool's own arguments are checked", async () => {
    const [gs, pool] = await ready;
    const small = image(8, 8);
    await assert.rejects(pool.warpAffine(small, [1, 0, 0, 0, 1, 0], { signal: {} }),
      { name: 'TypeError', message: 'pool.warpAffine: options.signal: expected an AbortSignal, got an object' });
    await assert.rejects(pool.warpAffine(small, [1, 0, 0, 0, 1, 0], { onProgress: 1 }),
      { name: 'TypeError', message: 'pool.warpAffine: options.onProgress: expected a function (fraction done, 0 to 1), got 1' });
    await assert.rejects(pool.warpAffine(small, [1, 0, 0, 0, 1, 0], { out: new Uint8ClampedArray(256) }), /pool\.warpAffine: options\.out: not taken by pool calls/);
    const t = gs.tensorFrom({ data: small.data, shape: [8, 8, 4] });
    await assert.rejects(pool.warpAffine(t, [1, 0, 0, 0, 1, 0]), /^TypeError: pool\.warpAffine: image: a heap tensor lives in one instance's memory/);
    t.dispose();
    for (const [options, error] of [
      [{ workers: 0 }, { name: 'RangeError', message: 'createPool: options.workers: expected an integer from 1 to 64, got 0' }],
      [{ workers: 1.5 }, { name: 'RangeError', message: 'createPool: options.workers: expected an integer from 1 to 64, got 1.5' }],
      [{ workers: '2' }, { name: 'TypeError', message: "createPool: options.workers: expected an integer from 1 to 64, got \"2\"" }],
      [{ numThreads: 2 }, { name: 'TypeError', message: 'createPool: options.numThreads: unknown option; expected workers, variant, wasmUrl, wasmBinary, wasmModule, warmUp' }],
      [{ variant: 'simd-threads' }, /^RangeError: createPool: options\.variant: each worker runs one thread/],
      [{ wasmUrl: () => 'x' }, /^TypeError: createPool: options\.wasmUrl: expected a string or a URL/],
      ['two', { name: 'TypeError', message: "createPool: options: expected an object, got \"two\"" }],
    ]) {
      await assert.rejects(createPool(options), error, JSON.stringify(options));
    }
    // A worker's load() error rejects createPool (every worker ended).
    await assert.rejects(createPool({ workers: 2, variant: 'bogus' }), /^RangeError: load: options\.variant: expected 'simd', 'scalar', 'simd-threads' or 'auto', got "bogus"/);
    await assert.rejects(createPool({ workers: 1, wasmUrl: 'file:///nonexistent/gridsample.wasm' }), /load: could not read the gridsample wasm at file:\/\/\/nonexistent\/gridsample\.wasm/);
  });

  test('AbortSignal: an aborted signal rejects at once, an abort during a call rejects it; a throwing onProgress rejects; the pool stays usable', async () => {
    const [gs, pool] = await ready;
    const big = image(2 * BIG, 2 * BIG);
    const m = [0.9, 0.1, 0, -0.1, 0.9, 0];
    await assert.rejects(pool.warpAffine(big, m, { signal: AbortSignal.abort() }), { name: 'AbortError' });
    const controller = new AbortController();
    const seen = [];
    const call = pool.warpAffine(big, m, {
      mode: 'cubic', signal: controller.signal,
      onProgress: (f) => {
        seen.push(f);
        if (seen.length === 1) controller.abort(new Error('stop, the user moved on'));
      },
    });
    await assert.rejects(call, { message: 'stop, the user moved on' });
    assert.ok(seen[0] < 1, `aborted after the first band: progress ${seen}`);
    await assert.rejects(pool.warpAffine(big, m, { signal: AbortSignal.timeout(0) }), { name: 'TimeoutError' });
    // An onProgress that throws rejects its call with that error.
    await assert.rejects(pool.warpAffine(big, m, { onProgress: () => { throw new Error('progress bar gone'); } }), { message: 'progress bar gone' });
    await assert.rejects(pool.warpAffine(image(8, 8), m, { onProgress: () => { throw new Error('small call'); } }), { message: 'small call' });
    assertSame(await pool.warpAffine(big, m), gs.warpAffine(big, m), 'after aborts');
  });

  test('a worker that throws or exits rejects its call with a clear error; the pool stays usable', async () => {
    const [gs, pool] = await ready;
    const big = image(BIG, BIG);
    const m = [0.9, 0.1, 0, -0.1, 0.9, 0];
    // The fault goes with the next piece of work handed out, to whichever worker is idle first
    // (a worker still busy with an aborted call's band may never take one of this call's).
    pool[FAULT]('throw');
    await assert.rejects(pool.warpAffine(big, m, { mode: 'cubic' }), { name: 'Error', message: 'a fault injected by a test' });
    assertSame(await pool.warpAffine(big, m, { mode: 'cubic' }), gs.warpAffine(big, m, { mode: 'cubic' }), 'after a throw');
    pool[FAULT]('exit');
    await assert.rejects(pool.warpAffine(big, m, { mode: 'cubic' }), { name: 'Error', message: /^pool\.warpAffine: worker [01] stopped: it exited \(code 1\)$/ });
    const p = progress();
    assertSame(await pool.warpAffine(big, m, { mode: 'cubic', onProgress: p.onProgress }), gs.warpAffine(big, m, { mode: 'cubic' }), 'after an exit');
    assert.ok(p.split(), 'the replacement worker takes bands');
    assert.equal(pool.workers, 2);
  });

  test('terminate() rejects calls in flight and later ones', async () => {
    const pool = await createPool({ workers: 2 });
    const pending = assert.rejects(pool.warpAffine(image(2 * BIG, 2 * BIG), [1, 0, 0, 0, 1, 0], { mode: 'cubic' }),
      { message: 'pool.warpAffine: the pool was terminated' });
    await pool.terminate();
    await pending;
    await assert.rejects(pool.gridSample({ data: new Float32Array(1), shape: [1, 1, 1, 1] }, { data: new Float32Array(2), shape: [1, 1, 1, 2] }),
      { message: 'pool.gridSample: the pool was terminated' });
    await pool.terminate();  // twice is fine
  });

  test('after the tests: terminate', async () => {
    const [, pool] = await ready;
    await pool.terminate();
  });
});
