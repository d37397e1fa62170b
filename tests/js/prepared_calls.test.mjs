// Prepared calls (gs.prepareGridSample and its kin) in both wasm variants: the unprepared calls' results bit for bit on new data, heap tensors and out, their errors, what they keep in the heap; and the crossings into the wasm per call, counted on a module whose every wasm function is wrapped.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { modules } from './lib/api_values.mjs';
import { countedModule } from './lib/counted_module.mjs';
import { BASIC } from './lib/onnx_examples.mjs';


// Deterministic values in [-range, range).
function values(n, seed, range = 1.2) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32 * 2 - 1) * range;
  });
}
const bytes = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('crossings into the wasm per call', () => {
  test('a prepared run crosses once; an unprepared call of shapes seen before, three times (one if all its tensors are heap tensors)', async () => {
    const { gs, crossings } = await countedModule();
    const x = { data: values(3 * 28 * 28, 1), shape: [1, 3, 28, 28] };
    const grid = { data: values(28 * 28 * 2, 2), shape: [1, 28, 28, 2] };
    const out = new Float32Array(3 * 28 * 28);
    gs.gridSample(x, grid, { out }); // the first call with these shapes asks for its output shape
    assert.ok(crossings(() => gs.gridSample(x, grid, { out })) <= 3, 'gridSample: allocate, call, release');
    const theta = { data: values(6, 3), shape: [1, 2, 3] };
    gs.affineGrid(theta, [1, 3, 28, 28]);
    assert.ok(crossings(() => gs.affineGrid(theta, [1, 3, 28, 28])) <= 3);
    const [hx, hg, hy] = [gs.tensorFrom(x), gs.tensorFrom(grid), gs.tensor('float32', [1, 3, 28, 28])];
    gs.gridSample(hx, hg, { out: hy });
    assert.equal(crossings(() => gs.gridSample(hx, hg, { out: hy })), 1);
    const warp = gs.prepareGridSample(x, grid, { mode: 'bicubic' });
    warp.run(x, grid, { out });
    assert.equal(crossings(() => warp.run(x, grid, { out })), 1);
    assert.equal(crossings(() => warp.run(x, grid)), 1);
    assert.equal(crossings(() => warp.run(hx, hg, { out: hy })), 1);
    const grids = gs.prepareAffineGrid(theta, [1, 3, 28, 28]);
    grids.run(theta);
    assert.equal(crossings(() => grids.run(theta)), 1);
    for (const t of [hx, hg, hy, warp, grids]) t.dispose();
  });

  test('an image call on heap tensors crosses once (its block holds shapes, space, fill and band), on arrays at most three times', async () => {
    const { gs, crossings } = await countedModule();
    const image = gs.tensorFrom({ data: Uint8Array.from(values(12 * 16 * 4, 4), (v) => Math.round(v * 100) & 255), shape: [12, 16, 4] });
    const out = gs.tensor('uint8', [12, 16, 4]);
    const map = gs.tensorFrom({ data: values(12 * 16 * 2, 5).map((v) => v * 10), shape: [12, 16, 2] });
    const band = gs.tensor('uint8', [5, 16, 4]);
    const [mx, my] = [gs.tensorFrom({ data: values(12 * 16, 6), shape: [12, 16, 1] }), gs.tensorFrom({ data: values(12 * 16, 7), shape: [12, 16, 1] })];
    const calls = {
      'normalised warpAffine': () => gs.warpAffine(image, [0.9, 0.1, 0, -0.1, 0.9, 0], { out, fill: 7 }),
      'pixel-space warpAffine, a band': () => gs.warpAffine(image, [1, 0, 2, 0, 1, 3], { space: 'pixel', out: band, rows: [2, 7] }),
      'normalised warpPerspective': () => gs.warpPerspective(image, [1, 0, 0, 0, 1, 0, 0.1, 0, 1], { out }),
      remap: () => gs.remap(image, map, undefined, { out }),
      'remap by planes': () => gs.remap(image, mx, my, { out }),
      'warpFlow on an image': () => gs.warpFlow(image, map, { out }),
      rotationMatrix: () => gs.rotationMatrix([3, 4], 30),
    };
    for (const [what, call] of Object.entries(calls)) {
      call();
      assert.equal(crossings(call), 1, what);
    }
    const plain = { data: new Uint8Array(12 * 16 * 4), width: 16, height: 12 };
    gs.warpAffine(plain, [1, 0, 0, 0, 1, 0]);
    assert.ok(crossings(() => gs.warpAffine(plain, [1, 0, 0, 0, 1, 0])) <= 3, 'allocate, call, release');
    for (const t of [image, out, band, map, mx, my]) t.dispose();
  });
});

for (const [, gs] of Object.entries(modules)) {
  describe(`${gs.backend}: prepared calls`, () => {
    test('gridSample prepared once gives the unprepared bytes on new data, for every mode, padding and dtype', () => {
      let seed = 10;
      for (const dtype of ['float32', 'uint8', 'float16']) {
        for (const mode of ['linear', 'nearest', 'cubic']) {
          for (const paddingMode of ['zeros', 'border', 'reflection']) {
            const options = { mode, paddingMode, alignCorners: paddingMode === 'border' };
            const prepared = gs.prepareGridSample({ dtype, shape: [2, 3, 6, 7] }, { dtype: 'float32', dims: [2, 4, 5, 2] }, options);
            assert.deepEqual(prepared.outputShape, [2, 3, 4, 5]);
            assert.equal(prepared.dtype, dtype);
            for (let run = 0; run < 3; run++) {
              const raw = values(2 * 3 * 6 * 7, ++seed, 3);
              const shape = [2, 3, 6, 7];
              const x = dtype === 'uint8' ? { data: Uint8Array.from(raw, (v) => (v + 3) * 40), shape }
                : dtype === 'float16' ? { data: Uint16Array.from(raw, (_, i) => 0x3c00 + ((i * 37 + seed) % 997)), shape, dtype }
                : { data: raw, shape };
              const grid = { data: values(2 * 4 * 5 * 2, ++seed), shape: [2, 4, 5, 2] };
              const got = prepared.run(x, grid);
              const want = gs.gridSample(x, grid, options);
              assert.deepEqual(got.shape, want.shape);
              assert.equal(got.dtype, want.dtype);
              assert.equal(got.data.constructor, want.data.constructor);
              assert.deepEqual(bytes(got.data), bytes(want.data), `${dtype} ${mode} ${paddingMode} run ${run}`);
            }
            prepared.dispose();
          }
        }
      }
    });

    test('channels-last, the NCHW flow warp and affineGrid prepared give the unprepared bytes', () => {
      const x = { data: Uint8ClampedArray.from(values(2 * 9 * 8 * 4, 3), (v) => (v + 1.2) * 100), shape: [2, 9, 8, 4] };
      const grid = { data: values(2 * 5 * 7 * 2, 4), shape: [2, 5, 7, 2] };
      const cl = gs.prepareGridSampleChannelsLast(x, grid, { mode: 'bicubic', paddingMode: 'border' });
      const clGot = cl.run(x, grid);
      assert.ok(clGot.data instanceof Uint8ClampedArray);
      assert.deepEqual(bytes(clGot.data), bytes(gs.gridSampleChannelsLast(x, grid, { mode: 'bicubic', paddingMode: 'border' }).data));
      const nchw = { data: values(1 * 3 * 6 * 7, 5, 4), shape: [1, 3, 6, 7] };
      const flow = { data: values(2 * 5 * 4, 6, 3), shape: [1, 2, 5, 4] };
      const warp = gs.prepareWarpFlow(nchw, flow, { paddingMode: 'reflection' });
      assert.deepEqual(warp.outputShape, [1, 3, 5, 4]);
      assert.deepEqual(bytes(warp.run(nchw, flow).data), bytes(gs.warpFlow(nchw, flow, { paddingMode: 'reflection' }).data));
      for (const [size, shape] of [[[2, 1, 3, 4], [2, 2, 3]], [[2, 1, 2, 3, 4], [2, 3, 4]]]) {
        const theta = { data: Float64Array.from(values(shape.reduce((a, b) => a * b), 7, 2)), shape };
        const grids = gs.prepareAffineGrid({ dtype: 'float64', shape }, size, { alignCorners: true });
        assert.deepEqual(bytes(grids.run(theta).data), bytes(gs.affineGrid(theta, size, { alignCorners: true }).data));
        grids.dispose();
      }
      cl.dispose();
      warp.dispose();
    });

    test('heap tensors in and out, out arrays and out tensors', () => {
      const prepared = gs.prepareGridSample(BASIC.x, BASIC.grid);
      const want = gs.gridSample(BASIC.x, BASIC.grid).data;
      const [hx, hg, hy] = [gs.tensorFrom(BASIC.x), gs.tensorFrom(BASIC.grid), gs.tensor('float32', BASIC.yShape)];
      assert.equal(prepared.run(hx, hg, { out: hy }), hy);
      assert.deepEqual(Array.from(hy.data), Array.from(want));
      const out = new Float32Array(36);
      const r = prepared.run(BASIC.x, hg, { out });
      assert.equal(r.data, out);
      assert.deepEqual(Array.from(out), Array.from(want));
      const object = { data: new Float32Array(36), shape: [1, 1, 6, 6] };
      assert.equal(prepared.run(hx, BASIC.grid, { out: object }), object);
      assert.deepEqual(Array.from(object.data), Array.from(want));
      assert.throws(() => prepared.run(hx, hg, { out: hx }), /^RangeError: gridSample\.run: options\.out: expected shape \[1, 1, 6, 6\], got \[1, 1, 4, 4\]$/);
      for (const t of [hx, hg, hy]) t.dispose();
      prepared.dispose();
    });

    test('prepare gives the unprepared call\'s errors; a run checks its tensors against what was prepared', () => {
      const unprepared = (f) => {
        try {
          f();
        } catch (e) {
          return e;
        }
        assert.fail('expected an error');
      };
      const badGrid = { data: new Float32Array(3 * 3 * 3), shape: [1, 3, 3, 3] };
      const e = unprepared(() => gs.gridSample(BASIC.x, badGrid));
      assert.throws(() => gs.prepareGridSample(BASIC.x, badGrid), { name: e.name, message: e.message.replace(/^gridSample/, 'prepareGridSample') });
      assert.throws(() => gs.prepareGridSample(BASIC.x, { dtype: 'int32', shape: [1, 6, 6, 2] }), /^TypeError: prepareGridSample: grid: expected dtype float32, float64, float16 or bfloat16, got int32$/);
      assert.throws(() => gs.prepareGridSample(BASIC.x, { shape: [1, 6, 6, 2] }), /^TypeError: prepareGridSample: grid\.dtype: /);
      assert.throws(() => gs.prepareGridSample(BASIC.x, { dtype: 'float32', shape: [1, -6, 6, 2] }), /^RangeError: prepareGridSample: grid\.shape\[1\]: expected a non-negative integer/);
      assert.throws(() => gs.prepareGridSample(BASIC.x, 7), /^TypeError: prepareGridSample: grid: expected a tensor or a description \{dtype, shape\}, got 7$/);
      assert.throws(() => gs.prepareGridSample(BASIC.x, BASIC.grid, { mode: 'area' }), /^RangeError: prepareGridSample: options\.mode: /);
      assert.throws(() => gs.prepareGridSample(BASIC.x, BASIC.grid, { out: new Float32Array(36) }), /^TypeError: prepareGridSample: options\.out: unknown option; expected mode, paddingMode, padding_mode, alignCorners, align_corners$/);
      assert.throws(() => gs.prepareAffineGrid({ dtype: 'float32', shape: [1, 2, 3] }, [1, 1, 3]), /^RangeError: prepareAffineGrid: size: expected 4 values/);
      assert.throws(() => gs.prepareAffineGrid({ dtype: 'float32', shape: [2, 2, 3] }, [1, 1, 3, 4]), /^RangeError: prepareAffineGrid: theta: expected shape \[1, 2, 3\]/);
      const prepared = gs.prepareGridSample(BASIC.x, BASIC.grid);
      assert.throws(() => prepared.run(BASIC.x, { data: new Float32Array(144), shape: [1, 6, 12, 2] }), /^RangeError: gridSample\.run: grid: expected shape \[1, 6, 6, 2\] \(as prepared\), got \[1, 6, 12, 2\]$/);
      assert.throws(() => prepared.run({ data: new Float64Array(16), shape: [1, 1, 4, 4] }, BASIC.grid), /^TypeError: gridSample\.run: x: expected dtype float32 \(as prepared\), got float64$/);
      assert.throws(() => prepared.run(BASIC.x), /^TypeError: gridSample\.run: grid: expected a tensor/);
      assert.throws(() => prepared.run(BASIC.x, BASIC.grid, { mode: 'nearest' }), /^TypeError: gridSample\.run: options\.mode: unknown option; expected out$/);
      prepared.dispose();
      prepared.dispose();
      assert.equal(prepared.disposed, true);
      assert.throws(() => prepared.run(BASIC.x, BASIC.grid), /^TypeError: gridSample\.run: this prepared gridSample call was disposed$/);
      // Disposed by a getter of its own out, after the check at the start: a clear error, not a
      // call through the freed plan (a wasm trap before), and the module still right.
      const gone = gs.prepareGridSample(BASIC.x, BASIC.grid);
      const out = { get data() { gone.dispose(); return new Float32Array(36); }, shape: [1, 1, 6, 6] };
      assert.throws(() => gone.run(BASIC.x, BASIC.grid, { out }), /^TypeError: gridSample\.run: this prepared gridSample call was disposed during the call$/);
      assert.equal(gs.gridSample(BASIC.x, BASIC.grid).data.length, 36);
    });

    test('what a prepared call keeps: its state, then the buffers of its first run; dispose gives all back', () => {
      const before = gs.heapUsed();
      const prepared = gs.prepareGridSample(BASIC.x, BASIC.grid);
      const kept = gs.heapUsed();
      assert.ok(kept > before && kept - before < 1024, `the prepared state: ${kept - before} bytes`);
      prepared.run(BASIC.x, BASIC.grid);
      const buffers = gs.heapUsed();
      assert.ok(buffers - kept >= 64 + 288 + 144, 'x, grid and the output kept');
      for (let i = 0; i < 5; i++) prepared.run(BASIC.x, BASIC.grid);
      assert.equal(gs.heapUsed(), buffers, 'later runs allocate nothing');
      prepared.dispose();
      assert.equal(gs.heapUsed(), before);
      for (let i = 0; i < 3; i++) gs.gridSample(BASIC.x, BASIC.grid);
      assert.equal(gs.heapUsed(), before, 'unprepared calls keep nothing');
    });
  });
}
