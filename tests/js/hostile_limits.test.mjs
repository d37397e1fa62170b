// The wasm32 limits (allocation failures are clear errors, the module stays usable) and load() with hostile options (bad variants, URLs, bytes and modules; unusual valid sources) in both wasm variants.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';

import { DTYPE_NAMES, load } from '../../js/node.mjs';
import { assertClose, assertModuleWorks, detached, esc, expectError } from './lib/hostile.mjs';
import { BASIC, PRINTED_ATOL } from './lib/onnx_examples.mjs';
import { f32, GETTER, lazy, other, variants } from './lib/hostile_arguments.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const JS = join(HERE, '..', '..', 'js');

// --- the wasm32 limit: requests that fail inside the module -------------------------------------

describe('wasm32 limits: allocation failures are clear errors and the module stays usable', () => {
  for (const variant of variants) {
    test(`${variant}: 1.5 GB of heap tensors, then 1 GB more; a request that fits on paper only; a full heap`, async () => {
      const gs = await load({ variant }); // its own module: its memory grows to 2 GiB
      assertModuleWorks(gs);
      const used = gs.heapUsed();
      const big = gs.tensor('uint8', [1.5e9]);
      try {
        assert.ok(gs.heapUsed() >= used + 1.5e9);
        const size = gs.heapSize();
        // Cannot fit next to what is in use: refused before allocating.
        expectError(() => gs.tensor('uint8', [1e9]), RangeError,
          /^tensor: a uint8 tensor of shape \[1000000000\] would need 1000000000 bytes \(954 MiB\) in the wasm heap, but 1500\d{6} bytes \(1\.4 GiB\) of its 2 GiB are in use \(heap tensors\); dispose some or make the request smaller$/);
        expectError(() => gs.gridSample({ data: f32(256), shape: [1, 256, 1, 1] }, { data: lazy(2 ** 21), shape: [1, 1, 2 ** 20, 2] }), RangeError,
          /^gridSample: the call would need 1082131456 bytes \(1 GiB\) in the wasm heap for x \(1024\) \+ grid \(8388608\) \+ the output \(1073741824\), but 1500\d{6} bytes \(1\.4 GiB\) of its 2 GiB are in use \(heap tensors\); dispose some or make the request smaller$/);
        assert.equal(gs.heapSize(), size, 'refused requests allocate nothing');
        assertModuleWorks(gs);

        // Fits next to what is in use on paper (1 MiB to spare), but the memory also holds the
        // stack and static data: malloc returns null inside the module.
        const paper = 2 ** 31 - gs.heapUsed() - 2 ** 20;
        expectError(() => gs.tensor('uint8', [paper]), RangeError,
          new RegExp(`^tensor: could not allocate ${paper} bytes \\(.*\\) for a uint8 tensor of shape \\[${paper}\\] in the wasm heap \\(\\d+ bytes in use, memory \\d+ bytes, 2 GiB at most\\); dispose heap tensors or make the request smaller$`));
        // The same inside gridSample: heap-tensor inputs, so only the output is allocated.
        const w = 4096;
        const grid = gs.tensor('float32', [1, 1, w, 2]);
        const c = Math.floor((2 ** 31 - gs.heapUsed() - 2 ** 20 - 2 ** 18) / (4 * w));
        const x = gs.tensor('float32', [1, c, 1, 1]);
        try {
          const before = gs.heapUsed();
          expectError(() => gs.gridSample(x, grid), RangeError,
            new RegExp(`^gridSample: could not allocate ${4 * c * w} bytes \\(.*\\) for the output in the wasm heap \\(\\d+ bytes in use, memory \\d+ bytes, 2 GiB at most\\); dispose heap tensors or make the request smaller$`));
          assert.equal(gs.heapUsed(), before);
        } finally {
          x.dispose();
          grid.dispose();
        }
        assertModuleWorks(gs);

        // The heap filled to the last byte by heap tensors: calls whose arguments are all heap
        // tensors (nothing to allocate) and one that fails in C++ (which allocates its
        // message) are RangeErrors, not an aborted module.
        const hx = gs.tensorFrom(BASIC.x);
        const hg = gs.tensorFrom(BASIC.grid);
        const hy = gs.tensor('float32', BASIC.yShape);
        const empty = gs.tensor('float32', [1, 1, 0, 4]);
        const fill = [];
        try {
          for (let bytes = 2 ** 29; bytes >= 1;) {
            try {
              fill.push(gs.tensor('uint8', [bytes]));
            } catch {
              bytes = Math.floor(bytes / 2);
            }
          }
          const full = /^gridSample: the wasm heap is full \(\d+ bytes in use, memory 2147483648 bytes, 2 GiB at most\), with no room left for the call itself; dispose heap tensors$/;
          expectError(() => gs.gridSample(hx, hg, { out: hy }), RangeError, full);
          expectError(() => gs.gridSample(empty, hg, { out: hy }), RangeError, full);
          // A grid to copy in, for a call whose output shape is known (the same shapes ran
          // above): the block the copy needs is what cannot be allocated.
          expectError(() => gs.gridSample(hx, BASIC.grid), RangeError,
            /^gridSample: could not allocate 432 bytes for grid and the output in the wasm heap \(\d+ bytes in use, memory 2147483648 bytes, 2 GiB at most\); dispose heap tensors or make the request smaller$/);
          // Shapes not seen before: the library is asked for the output shape before anything
          // is allocated, so the full heap is what it reports.
          expectError(() => gs.gridSample(hx, { data: BASIC.grid.data, shape: [1, 2, 18, 2] }), RangeError, full);
        } finally {
          for (const t of fill) t.dispose();
        }
        gs.gridSample(hx, hg, { out: hy });
        assertClose(hy.data, BASIC.y, PRINTED_ATOL, 'a call after the heap was full');
        expectError(() => gs.gridSample(empty, hg, { out: hy }), RangeError, /^gridSample: X: a spatial dimension is 0 in shape \[1, 1, 0, 4\]/);
        for (const t of [hx, hg, hy, empty]) t.dispose();
        assertModuleWorks(gs);
      } finally {
        big.dispose();
      }
      assert.equal(gs.heapUsed(), used, 'everything freed');
      // The space is reusable: 1 GB now fits.
      const again = gs.tensor('uint8', [1e9]);
      again.dispose();
      assert.equal(gs.heapUsed(), used);
      assertModuleWorks(gs);
    });
  }
});

// --- load() -----------------------------------------------------------------------------------

describe('load() with hostile options', () => {
  const require = createRequire(import.meta.url);
  const bytes = (v) => readFileSync(join(JS, 'dist', `gridsample-${v}.wasm`));
  const dir = mkdtempSync(join(tmpdir(), 'gridsample-hostile-load-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const rejects = (options, type, pattern) => async () => {
    await assert.rejects(load(typeof options === 'function' ? options() : options), (e) => {
      assert.ok(e instanceof type, `expected ${type.name}, got ${e && e.name}: ${e && e.message}`);
      assert.equal(e.name, type.name);
      assert.match(e.message, pattern);
      return true;
    });
  };
  const someVariant = variants[0];
  const wrong = other[someVariant];

  test("variant 'SIMD'", rejects({ variant: 'SIMD' }, RangeError, /^load: options\.variant: expected 'simd', 'scalar', 'simd-threads' or 'auto', got "SIMD"$/));
  test('variant null', rejects({ variant: null }, TypeError, /^load: options\.variant: expected 'simd', 'scalar', 'simd-threads' or 'auto', got null$/));
  test('a misspelt option', rejects({ wasmurl: 'x.wasm' }, TypeError, /^load: options\.wasmurl: unknown option; expected variant, numThreads, wasmUrl, wasmBinary, wasmModule, warmUp$/));
  test('options an array', rejects([], TypeError, /^load: options: expected an object, got Array\(0\)$/));
  test('wasmUrl a number', rejects({ wasmUrl: 7 }, TypeError, /^load: options\.wasmUrl: expected a string, a URL or a function \(variant\) => URL, got 7$/));
  test('wasmUrl a function returning undefined', rejects({ wasmUrl: () => undefined }, TypeError, /^load: options\.wasmUrl\('(simd|scalar)'\): expected the function to return a string or a URL, got undefined$/));
  test('wasmUrl a function returning a number', rejects({ wasmUrl: () => 42 }, TypeError, /^load: options\.wasmUrl\('(simd|scalar)'\): expected the function to return a string or a URL, got 42$/));
  test('wasmUrl a function that throws: its error passes through', async () => {
    await assert.rejects(load({ wasmUrl: () => { throw GETTER; } }), (e) => e === GETTER);
  });
  test('wasmUrl a missing file', rejects({ wasmUrl: join(dir, 'missing.wasm') }, Error, /^load: could not read the gridsample wasm at .*missing\.wasm: ENOENT: no such file or directory/));
  test('wasmUrl a missing file: URL', rejects({ wasmUrl: pathToFileURL(join(dir, 'missing.wasm')) }, Error, /^load: could not read the gridsample wasm at file:.*missing\.wasm: ENOENT/));
  test('wasmUrl a directory', rejects({ wasmUrl: dir }, Error, /^load: could not read the gridsample wasm at .*: EISDIR/));
  test('wasmUrl a truncated wasm file', rejects(() => {
    const p = join(dir, 'truncated.wasm');
    writeFileSync(p, bytes(someVariant).subarray(0, 1000));
    return { variant: someVariant, wasmUrl: p };
  }, Error, /^load: could not instantiate the gridsample wasm from .*truncated\.wasm: WebAssembly\.instantiate\(\): .*(extends past end of the module|expected [^@]*@\+\d+|failed: expected)/));
  test('wasmUrl a server that refuses the connection', async () => {
    // A port that was just free: nothing listens there.
    const server = createServer();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address();
    await new Promise((resolve) => server.close(resolve));
    const url = `http://127.0.0.1:${port}/gridsample.wasm`;
    await rejects({ wasmUrl: url }, Error, new RegExp(`^load: could not instantiate the gridsample wasm from ${esc(url)}: fetch failed$`))();
  });
  test('wasmBinary empty', rejects({ wasmBinary: new ArrayBuffer(0) }, Error, /^load: could not instantiate the gridsample wasm from options\.wasmBinary: WebAssembly\.instantiate\(\): BufferSource argument is empty$/));
  test('wasmBinary not wasm', rejects({ wasmBinary: new TextEncoder().encode('<html>404</html>') }, Error, /^load: could not instantiate .* from options\.wasmBinary: WebAssembly\.instantiate\(\): expected magic word 00 61 73 6d, found 3c 68 74 6d @\+0$/));
  test('wasmBinary detached', rejects(() => ({ wasmBinary: detached(new Uint8Array(bytes(someVariant))) }), TypeError, /^load: options\.wasmBinary: the ArrayBuffer is detached/));
  test('wasmBinary a DataView', rejects(() => ({ wasmBinary: new DataView(new ArrayBuffer(8)) }), TypeError, /^load: options\.wasmBinary: expected an ArrayBuffer or a Uint8Array, got a DataView$/));
  test('wasmBinary a string', rejects({ wasmBinary: 'gridsample-simd.wasm' }, TypeError, /^load: options\.wasmBinary: expected an ArrayBuffer or a Uint8Array, got "gridsample-simd\.wasm"$/));
  test('wasmBinary of the other build', { skip: !wrong || !variants.includes(wrong) ? 'needs both variants' : false },
    rejects(() => ({ variant: someVariant, wasmBinary: bytes(wrong) }), TypeError,
      new RegExp(`^load: options\\.wasmBinary: expected the '${someVariant}' build \\(gridsample-${someVariant}\\.wasm\\), got the '${wrong}' build \\(Highway target \\w+\\); give variant: '${wrong}' or the ${someVariant} wasm$`)));
  test('wasmModule a module that is not gridsample', rejects({ wasmModule: new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])) }, Error,
    /^load: could not instantiate the gridsample wasm from options\.wasmModule: it is not a gridsample wasm module \(it has no memory\)$/));
  test('wasmModule of the other build', { skip: !variants.includes(wrong) ? 'needs both variants' : false },
    rejects(() => ({ variant: someVariant, wasmModule: new WebAssembly.Module(bytes(wrong)) }), TypeError, /^load: options\.wasmModule: expected the '\w+' build/));
  test('wasmModule bytes instead of a module', rejects({ wasmModule: new Uint8Array(8) }, TypeError, /^load: options\.wasmModule: expected a WebAssembly\.Module, got Uint8Array\(8\)$/));
  test('two sources', rejects({ wasmBinary: new Uint8Array(8), wasmModule: new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])) }, TypeError, /^load: options: give at most one of wasmUrl, wasmBinary and wasmModule$/));
  test('an options getter that throws: its error passes through', async () => {
    await assert.rejects(load({ get variant() { throw GETTER; } }), (e) => e === GETTER);
  });
  test('CommonJS entry: the same errors', async () => {
    const cjs = require(join(JS, 'index.cjs'));
    await assert.rejects(cjs.load({ variant: 'avx' }), (e) => e instanceof RangeError && /^load: options\.variant: expected .* got "avx"$/.test(e.message));
    assert.equal(typeof cjs.simdSupported(), 'boolean');
    assert.deepEqual(cjs.DTYPE_NAMES, DTYPE_NAMES);
  });

  // Unusual but valid sources: each module must compute the known answers.
  for (const variant of variants) {
    test(`${variant}: bytes in a SharedArrayBuffer, at an offset, a function URL, a Proxy of options`, async () => {
      const b = bytes(variant);
      const shared = new Uint8Array(new SharedArrayBuffer(b.length));
      shared.set(b);
      const offset = new Uint8Array(b.length + 3);
      offset.set(b, 3);
      const sources = [
        { variant, wasmBinary: shared },
        { variant, wasmBinary: offset.subarray(3) },
        { variant, wasmBinary: b.buffer.slice(b.byteOffset, b.byteOffset + b.length) },
        { variant, wasmUrl: (v) => pathToFileURL(join(JS, 'dist', `gridsample-${v}.wasm`)) },
        new Proxy({ variant }, {}),
      ];
      for (const options of sources) {
        const gs = await load(options);
        assert.equal(gs.variant, variant);
        assertModuleWorks(gs);
      }
    });
  }
  test("variant 'auto' with bytes of a build: backend says which build runs", { skip: variants.length < 2 ? 'needs both variants' : false }, async () => {
    const gs = await load({ wasmBinary: bytes('scalar') });
    assert.deepEqual([gs.variant, gs.backend, gs.target], ['scalar', 'wasm-scalar', 'EMU128']);
    assertModuleWorks(gs);
  });
});

// --- the command line --------------------------------------------------------------------------
