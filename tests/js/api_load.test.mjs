// API tests of the npm package's loading: the variant chosen and forced, wasm sources, broken sources, warm-up, no process handlers; and the mode and padding names (js/core/modes.mjs) equal to the C++ parser's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

import * as entry from '../../js/node.mjs';
import { MODE_NAMES, ONNX_MODE_NAMES, PADDING_NAMES } from '../../js/core/modes.mjs';
import { BASIC, MODES, PRINTED_ATOL } from './lib/onnx_examples.mjs';
import { assertClose, modules, variants } from './lib/api_values.mjs';

const { load, simdSupported, DTYPE_NAMES } = entry;
const DIST = new URL('../../js/dist/', import.meta.url);

describe('load()', () => {
  test('default picks the SIMD variant exactly when the engine validates SIMD128', async () => {
    const gs = await load();
    assert.equal(gs.variant, simdSupported() ? 'simd' : 'scalar');
    assert.equal(gs.backend, simdSupported() ? 'wasm-simd128' : 'wasm-scalar');
  });

  test('without wasm SIMD128, auto picks scalar and simd is refused', async () => {
    // No engine flag turns SIMD off, so pretend the probe does not validate.
    const validate = WebAssembly.validate;
    WebAssembly.validate = () => false;
    try {
      assert.equal(simdSupported(), false);
      const gs = await load();
      assert.equal(gs.backend, 'wasm-scalar');
      assertClose(gs.gridSample(BASIC.x, BASIC.grid).data, BASIC.y, PRINTED_ATOL);
      await assert.rejects(load({ variant: 'simd' }), (e) => e instanceof RangeError &&
        /^load: options\.variant: 'simd' was asked for but this engine has no wasm SIMD128/.test(e.message));
    } finally {
      WebAssembly.validate = validate;
    }
    assert.equal(simdSupported(), true, 'Node 20 has SIMD128');
  });

  test('variant forces a build and backend names it', async () => {
    assert.equal(modules.scalar.backend, 'wasm-scalar');
    assert.equal(modules.scalar.variant, 'scalar');
    if (modules.simd) assert.equal(modules.simd.backend, 'wasm-simd128');
    assert.equal(typeof modules.scalar.target, 'string');
    assert.ok(modules.scalar.target.length > 0);
  });

  test('exports the dtype list and it matches the CommonJS entry', async () => {
    assert.deepEqual([...DTYPE_NAMES], ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32']);
    const cjs = createRequire(import.meta.url)('../../js/index.cjs');
    assert.deepEqual([...cjs.DTYPE_NAMES], [...DTYPE_NAMES]);
    assert.equal(cjs.simdSupported(), simdSupported());
    const gs = await cjs.load({ variant: 'scalar' });
    assert.equal(gs.backend, 'wasm-scalar');
    assertClose(gs.gridSample(BASIC.x, BASIC.grid).data, BASIC.y, PRINTED_ATOL);
  });

  for (const variant of variants) {
    test(`wasm sources for ${variant}: bytes, file URL, path, function, compiled module`, async () => {
      const url = new URL(`gridsample-${variant}.wasm`, DIST);
      const bytes = readFileSync(url);
      const sources = [
        { wasmBinary: new Uint8Array(bytes) },
        { wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) },
        { wasmUrl: url },
        { wasmUrl: url.href },
        { wasmUrl: fileURLToPath(url) },
        { wasmUrl: (v) => new URL(`gridsample-${v}.wasm`, DIST) },
        { wasmModule: await WebAssembly.compile(bytes) },
      ];
      for (const source of sources) {
        const gs = await load({ variant, ...source });
        assert.equal(gs.variant, variant);
        assertClose(gs.gridSample(BASIC.x, BASIC.grid).data, BASIC.y, PRINTED_ATOL, Object.keys(source)[0]);
      }
    });
  }

  test('a missing or broken wasm rejects with an Error naming the source', async () => {
    await assert.rejects(load({ variant: 'scalar', wasmUrl: '/nonexistent/gridsample.wasm' }),
      (e) => e instanceof Error && /could not read the gridsample wasm at \/nonexistent\/gridsample\.wasm/.test(e.message));
    await assert.rejects(load({ variant: 'scalar', wasmBinary: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99]) }),
      (e) => e instanceof Error && /could not instantiate the gridsample wasm from options\.wasmBinary/.test(e.message));
    // A module that compiles but has none of our imports and exports.
    await assert.rejects(load({ variant: 'scalar', wasmBinary: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]) }),
      (e) => e instanceof Error && /could not instantiate/.test(e.message));
  });

  test('options.warmUp: checked; the warm-up leaves the heap as it found it and changes no result', async () => {
    await assert.rejects(load({ warmUp: 'yes' }),
      (e) => e instanceof TypeError && /^load: options\.warmUp: expected true, false or a number of milliseconds, got "yes"$/.test(e.message));
    for (const bad of [-1, NaN, Infinity, 10001]) {
      await assert.rejects(load({ warmUp: bad }),
        (e) => e instanceof RangeError && /^load: options\.warmUp: expected milliseconds from 0 to 10000, got /.test(e.message), String(bad));
    }
    for (const variant of variants) {
      const cold = await load({ variant, warmUp: false });
      const warm = await load({ variant, warmUp: 30 });
      assert.equal(warm.heapUsed(), cold.heapUsed(), `${variant}: bytes in use after load()`);
      for (const mode of ['bilinear', 'nearest', 'bicubic']) {
        const a = cold.gridSample(MODES.x, MODES.grid, { mode }).data;
        const b = warm.gridSample(MODES.x, MODES.grid, { mode }).data;
        assert.deepEqual(b, a, `${variant} ${mode}`);
      }
    }
  });

  test('leaves no handlers on the Node process (a library must not own uncaughtException)', async () => {
    for (const variant of variants) {
      const before = ['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e));
      await load({ variant });
      const after = ['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e));
      assert.deepEqual(after, before, `${variant}: process listeners (uncaughtException, unhandledRejection)`);
    }
  });
});

// js/core/modes.mjs is the one list of names in JavaScript (the CLI's choices, gridsample/onnx's
// attribute checks, the pool's taps); the C++ parser is the authority it must equal.
describe('mode and padding names (js/core/modes.mjs) are the C++ parser\'s', () => {
  const x = { data: new Float32Array(4), shape: [1, 1, 2, 2] };
  const grid = { data: new Float32Array(2), shape: [1, 1, 1, 2] };
  // The names listed by the library's own message for a name it refuses, in its order.
  const listed = (gs, options) => {
    let message = '';
    assert.throws(() => gs.gridSample(x, grid, options), (e) => e instanceof RangeError && Boolean(message = e.message));
    const expected = message.slice(message.indexOf('expected ') + 'expected '.length, message.lastIndexOf(', got '));
    return [...expected.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  };

  test('every mode and padding name, in the library\'s order', async () => {
    const gs = await load();
    assert.deepEqual(listed(gs, { mode: 'no such mode' }), [...MODE_NAMES]);
    assert.deepEqual(listed(gs, { paddingMode: 'no such padding' }), [...PADDING_NAMES]);
    for (const mode of MODE_NAMES) for (const paddingMode of PADDING_NAMES) gs.gridSample(x, grid, { mode, paddingMode });
  });

  test('each GridSample version\'s spellings are library names, the default mode first', () => {
    for (const [version, names] of Object.entries(ONNX_MODE_NAMES)) {
      assert.equal(names.length, 3, version);
      for (const name of names) assert.ok(MODE_NAMES.includes(name), `${version}: ${name}`);
      assert.equal(names[0], version === '16' ? 'bilinear' : 'linear');
    }
  });
});
