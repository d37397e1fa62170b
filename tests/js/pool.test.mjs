// The worker pool in Node (createPool, worker_threads): split calls give the bytes of one instance's call for every operator, mode and padding; small calls run whole; progress, abort (no more bands sent, one listener per signal), a failing or exiting worker (its replacement lets Node exit), bad and hostile arguments (the instance's errors, refused before anything is sent, outputs over 2 GiB too), and termination (no worker left).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';

import { createPool, load } from '../../js/node.mjs';
import { FAULT, SPLIT_COST } from '../../js/pool/create_pool.mjs';
import { detached } from './lib/hostile.mjs';
import { prng, random } from './lib/random.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const NODE_ENTRY = join(HERE, '..', '..', 'js', 'node.mjs');
const CJS_ENTRY = join(HERE, '..', '..', 'js', 'index.cjs');

const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

// The pool's result against the instance's: same class, fields and bytes.
function assertSame(got, expected, what) {
  assert.equal(got.data.constructor, expected.data.constructor, `${what}: array class`);
  const { data: g, ...gRest } = got;
  const { data: e, ...eRest } = expected;
  assert.deepEqual(gRest, eRest, `${what}: fields`);
  assert.ok(bytesOf(g).equals(bytesOf(e)), `${what}: the pool's bytes differ from one instance's`);
}

// Progress values a call reported, and whether it was split (a fraction below 1 came first).
function progress() {
  const seen = [];
  return { seen, onProgress: (f) => seen.push(f), split: () => seen.length > 1 && seen[0] < 1 };
}

// An RGBA (or `channels`) test image with a gradient and noise.
function image(width, height, channels = 4, Type = Uint8ClampedArray, seed = 1) {
  const next = prng(seed);
  const data = new Type(width * height * channels);
  for (let i = 0; i < data.length; i++) {
    const v = ((i % (width * channels)) / channels + next() * 40) % 256;
    data[i] = Type === Float32Array ? v / 255 : v;
  }
  return { data, width, height };
}

// The work messages ('whole' calls and 'band's) this thread posts to workers while `body(log)`
// runs, in order; `body` may push markers of its own into the log.
async function postedDuring(body) {
  const log = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message?.type === 'whole' || message?.type === 'band') log.push(message.type);
    return post.call(this, message, ...rest);
  };
  try {
    await body(log);
  } finally {
    Worker.prototype.postMessage = post;
  }
  return log;
}

// What `call()` throws, or undefined.
function thrown(call) {
  try {
    call();
  } catch (e) {
    return e;
  }
  return undefined;
}

// Asserts that the pool's promise rejects with the instance's error: the same object where the
// instance passes the caller's own exception through, else the same class and message.
async function rejectsAsInstance(promise, expected, what) {
  assert.ok(expected, `${what}: the instance accepted it`);
  await assert.rejects(promise, (e) => {
    if (e === expected) return true;
    assert.ok(![GETTER, TRAP].includes(expected), `${what}: expected the caller's own ${expected.message}, got ${e?.name}: ${e?.message}`);
    assert.equal(`${e?.constructor?.name}: ${e?.message}`, `${expected.constructor.name}: ${expected.message}`, what);
    return true;
  });
}

const GETTER = new Error('thrown by a getter');
const TRAP = new RangeError('thrown by a Proxy trap');
const trapProxy = () => new Proxy({}, { get() { throw TRAP; }, has() { throw TRAP; }, ownKeys() { throw TRAP; } });

// Sides of the test images per mode.
const BIG = 512;
const SIDE = { linear: BIG, nearest: 2 * BIG, cubic: BIG };

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
    pool[FAULT](1, 'throw');
    await assert.rejects(pool.warpAffine(big, m, { mode: 'cubic' }), { name: 'Error', message: 'a fault injected by a test' });
    assertSame(await pool.warpAffine(big, m, { mode: 'cubic' }), gs.warpAffine(big, m, { mode: 'cubic' }), 'after a throw');
    pool[FAULT](0, 'exit');
    await assert.rejects(pool.warpAffine(big, m, { mode: 'cubic' }), { name: 'Error', message: 'pool.warpAffine: worker 0 stopped: it exited (code 1)' });
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
      pool[Symbol.for('gridsample.pool.fault')](0, 'exit');
      console.log(await pool.warpAffine({ data: new Uint8Array(16), width: 2, height: 2 }, [1, 0, 0, 0, 1, 0]).catch((e) => e.message));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20000 });
    assert.equal(r.signal, null, `the script did not exit by itself: ${r.stderr}`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'pool.warpAffine: worker 0 stopped: it exited (code 1)');
  });

  test('after the tests: terminate', async () => {
    const [, pool] = await ready;
    await pool.terminate();
  });
});
