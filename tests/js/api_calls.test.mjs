// API tests of gridSample and affineGrid in both wasm variants: every dtype and option spelling, dims/shape, onnxruntime-web tensors, views, out, empty outputs and results that own their buffers.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

import * as entry from '../../js/node.mjs';
import { loadCase } from './lib/cases.mjs';
import { BASIC, MODES, PADDING, PRINTED_ATOL } from './lib/onnx_examples.mjs';
import { assertClose, decodeAll, encode, INTEGER_RANGE, modules, STORAGE } from './lib/api_values.mjs';

const { DTYPE_NAMES } = entry;
const CASES = fileURLToPath(new URL('../cases', import.meta.url));

for (const [, gs] of Object.entries(modules)) {
  describe(`${gs.backend}`, () => {
    test('the ONNX example through {data, shape} gives {data, shape, dtype}', () => {
      const y = gs.gridSample(BASIC.x, BASIC.grid, { mode: 'bilinear', paddingMode: 'zeros', alignCorners: false });
      assert.deepEqual(Object.keys(y).sort(), ['data', 'dtype', 'shape']);
      assert.ok(y.data instanceof Float32Array);
      assert.deepEqual(y.shape, BASIC.yShape);
      assert.equal(y.dtype, 'float32');
      assertClose(y.data, BASIC.y, PRINTED_ATOL);
      // The caller's arrays are read, never written or kept.
      assert.deepEqual(Array.from(BASIC.x.data), Array.from({ length: 16 }, (_, i) => i));
      y.shape.push(99);
      assert.deepEqual(gs.gridSample(BASIC.x, BASIC.grid).shape, BASIC.yShape);
    });

    test('defaults are linear, zeros, align_corners 0 (ONNX attribute defaults)', () => {
      assertClose(gs.gridSample(BASIC.x, BASIC.grid).data, BASIC.y, PRINTED_ATOL);
      assertClose(gs.gridSample(BASIC.x, BASIC.grid, {}).data, BASIC.y, PRINTED_ATOL);
      assertClose(gs.gridSample(BASIC.x, BASIC.grid, null).data, BASIC.y, PRINTED_ATOL);
      assertClose(gs.gridSample(BASIC.x, BASIC.grid, { mode: undefined }).data, BASIC.y, PRINTED_ATOL);
    });

    test('every mode spelling', () => {
      const run = (mode, extra = {}) => gs.gridSample(MODES.x, MODES.grid, { mode, ...extra }).data;
      for (const mode of ['linear', 'bilinear']) {
        assertClose(run(mode), MODES.y.bilinear, PRINTED_ATOL, mode);
        assertClose(run(mode, { alignCorners: true }), MODES.y.bilinearAlign, PRINTED_ATOL, mode);
      }
      assertClose(run('nearest'), MODES.y.nearest, 0, 'nearest');
      for (const mode of ['cubic', 'bicubic']) assertClose(run(mode), MODES.y.bicubic, PRINTED_ATOL, mode);
    });

    test('every padding spelling (paddingMode and ONNX padding_mode)', () => {
      for (const padding of ['zeros', 'border', 'reflection']) {
        for (const key of ['paddingMode', 'padding_mode']) {
          const y = gs.gridSample(PADDING.x, PADDING.grid, { [key]: padding });
          assert.deepEqual(y.shape, PADDING.yShape);
          assertClose(y.data, PADDING.y[padding], PRINTED_ATOL, `${key}: ${padding}`);
        }
      }
    });

    test('alignCorners as boolean, 0/1 and ONNX align_corners', () => {
      for (const [key, value, expected] of [
        ['alignCorners', true, MODES.y.bilinearAlign], ['alignCorners', 1, MODES.y.bilinearAlign],
        ['alignCorners', false, MODES.y.bilinear], ['alignCorners', 0, MODES.y.bilinear],
        ['align_corners', 1, MODES.y.bilinearAlign], ['align_corners', 0, MODES.y.bilinear],
      ]) {
        assertClose(gs.gridSample(MODES.x, MODES.grid, { [key]: value }).data, expected, PRINTED_ATOL, `${key}: ${value}`);
      }
    });

    test('every dtype of X (nearest gives stored values exactly; linear within the type)', () => {
      for (const dtype of DTYPE_NAMES) {
        const x = { data: encode(dtype, MODES.x.data), shape: MODES.x.shape };
        // Explicit dtype where the array class is ambiguous (half floats in Uint16Array).
        if (dtype === 'float16' || dtype === 'bfloat16') x.dtype = dtype;
        const nearest = gs.gridSample(x, MODES.grid, { mode: 'nearest' });
        assert.equal(nearest.dtype, dtype);
        assert.ok(nearest.data instanceof STORAGE[dtype].Array, `${dtype}: ${nearest.data.constructor.name}`);
        assert.deepEqual(decodeAll(dtype, nearest.data), MODES.y.nearest, dtype);

        // Linear on X = 4 * (0..15): the example's values times 4, none within 0.1 of a
        // rounding tie, so integer results are round(4 * y) whatever the operation order.
        const scaled = { data: encode(dtype, BASIC.x.data.map((v) => 4 * v)), shape: BASIC.x.shape, dtype };
        const y = gs.gridSample(scaled, BASIC.grid);
        const want = BASIC.y.map((v) => (INTEGER_RANGE[dtype] ? Math.round(4 * v) : 4 * v));
        assertClose(decodeAll(dtype, y.data), want, INTEGER_RANGE[dtype] ? 0 : 4 * STORAGE[dtype].atol, `${dtype} linear`);
      }
    });

    test('integer results saturate to the type (cubic overshoot)', () => {
      // Keys cubic with A = -0.75 overshoots at a step: one side's value pulled below the
      // minimum. The 1-D case u8_gs1d_cubic_reflection_ac0_saturate is the golden oracle.
      const c = loadCase(CASES, 'u8_gs1d_cubic_reflection_ac0_saturate');
      const y = gs.gridSample(c.inputs.X, c.inputs.grid, { mode: 'cubic', paddingMode: 'reflection', alignCorners: 0 });
      assert.deepEqual(Array.from(y.data), Array.from(c.expected.data));
      assert.ok(Array.from(c.expected.data).includes(0) && Array.from(c.expected.data).includes(255),
        'the case reaches both ends of uint8');
      for (const [dtype, [lo, hi]] of Object.entries(INTEGER_RANGE)) {
        const x = { data: STORAGE[dtype].Array.from([lo, lo, hi, hi]), shape: [1, 1, 4] };
        const g = { data: Float32Array.from([-0.3, 0.3]), shape: [1, 2, 1] }; // just inside the step
        const out = Array.from(gs.gridSample(x, g, { mode: 'cubic', paddingMode: 'border' }).data, Number);
        for (const v of out) assert.ok(v >= lo && v <= hi && Number.isInteger(v), `${dtype}: ${v}`);
        assert.ok(out.includes(lo) && out.includes(hi), `${dtype}: ${out} saturates at both ends`);
      }
    });

    test('Uint8ClampedArray in gives Uint8ClampedArray out (canvas ImageData)', () => {
      const c = loadCase(CASES, 'u8_gs2d_linear_zeros_ac0_rgba');
      const x = { data: new Uint8ClampedArray(c.inputs.X.data.buffer), shape: c.inputs.X.shape };
      const y = gs.gridSample(x, c.inputs.grid);
      assert.ok(y.data instanceof Uint8ClampedArray);
      assert.deepEqual(Array.from(y.data), Array.from(c.expected.data));
      assert.ok(gs.gridSample(c.inputs.X, c.inputs.grid).data instanceof Uint8Array);
    });

    test('grid in float64, float16 and bfloat16 with a float32 X', () => {
      const grids = {
        float64: { data: Float64Array.from(MODES.grid.data), shape: MODES.grid.shape },
        // Every coordinate except +-0.2 is exact in the half types; 0.2 moves by < 1e-3.
        float16: { data: encode('float16', MODES.grid.data), shape: MODES.grid.shape, dtype: 'float16' },
        bfloat16: { data: encode('bfloat16', MODES.grid.data), shape: MODES.grid.shape, dtype: 'bfloat16' },
      };
      for (const [dtype, grid] of Object.entries(grids)) {
        const y = gs.gridSample(MODES.x, grid, { mode: 'nearest' });
        assert.equal(y.dtype, 'float32');
        assert.deepEqual(Array.from(y.data), MODES.y.nearest, dtype);
        assertClose(gs.gridSample(MODES.x, grid).data, MODES.y.bilinear, dtype === 'float64' ? PRINTED_ATOL : 0.02, dtype);
      }
    });

    test('Float16Array data is float16 without a dtype', { skip: typeof globalThis.Float16Array !== 'function' && 'no Float16Array in this runtime' }, () => {
      const x = { data: new globalThis.Float16Array(MODES.x.data), shape: MODES.x.shape };
      const y = gs.gridSample(x, MODES.grid, { mode: 'nearest' });
      assert.equal(y.dtype, 'float16');
      assert.ok(y.data instanceof globalThis.Float16Array);
      assert.deepEqual(Array.from(y.data), MODES.y.nearest);
    });

    test('dims works like shape; both may be given when equal; typed-array and bigint dims', () => {
      const viaDims = gs.gridSample({ data: BASIC.x.data, dims: BASIC.x.shape }, { data: BASIC.grid.data, dims: BASIC.grid.shape });
      assertClose(viaDims.data, BASIC.y, PRINTED_ATOL);
      assert.deepEqual(viaDims.shape, BASIC.yShape);
      const both = gs.gridSample({ data: BASIC.x.data, shape: [1, 1, 4, 4], dims: [1, 1, 4, 4] }, BASIC.grid);
      assertClose(both.data, BASIC.y, PRINTED_ATOL);
      const typed = gs.gridSample({ data: BASIC.x.data, shape: Int32Array.from([1, 1, 4, 4]) },
        { data: BASIC.grid.data, shape: BigInt64Array.from([1n, 6n, 6n, 2n]) });
      assertClose(typed.data, BASIC.y, PRINTED_ATOL);
      const bigints = gs.gridSample({ data: BASIC.x.data, shape: [1n, 1n, 4n, 4n] }, BASIC.grid);
      assertClose(bigints.data, BASIC.y, PRINTED_ATOL);
    });

    test('onnxruntime-web style tensors ({type, dims, location}) pass in unchanged', () => {
      const ortLike = (type, data, dims) => ({ type, data, dims, size: data.length, location: 'cpu' });
      const y = gs.gridSample(ortLike('float32', BASIC.x.data, BASIC.x.shape), ortLike('float32', BASIC.grid.data, BASIC.grid.shape));
      assertClose(y.data, BASIC.y, PRINTED_ATOL);
      const h = ortLike('float16', encode('float16', MODES.x.data), MODES.x.shape);
      assert.deepEqual(decodeAll('float16', gs.gridSample(h, MODES.grid, { mode: 'nearest' }).data), MODES.y.nearest);
    });

    test('subarray views with an offset are read at their offset', () => {
      const big = new Float32Array(100).fill(-7);
      big.set(BASIC.x.data, 13);
      const x = { data: big.subarray(13, 29), shape: BASIC.x.shape };
      assertClose(gs.gridSample(x, BASIC.grid).data, BASIC.y, PRINTED_ATOL);
    });

    test('out: a typed array, a {data, shape} tensor, an offset view', () => {
      const out = new Float32Array(36).fill(NaN);
      const r = gs.gridSample(BASIC.x, BASIC.grid, { out });
      assert.equal(r.data, out);
      assert.deepEqual(r.shape, BASIC.yShape);
      assert.equal(r.dtype, 'float32');
      assertClose(out, BASIC.y, PRINTED_ATOL);

      const tensor = { data: new Float32Array(36), shape: [1, 1, 6, 6] };
      assert.equal(gs.gridSample(BASIC.x, BASIC.grid, { out: tensor }), tensor);
      assertClose(tensor.data, BASIC.y, PRINTED_ATOL);

      const backing = new Float32Array(50).fill(-1);
      gs.gridSample(BASIC.x, BASIC.grid, { out: backing.subarray(7, 43) });
      assertClose(backing.subarray(7, 43), BASIC.y, PRINTED_ATOL);
      assert.ok(backing.subarray(0, 7).every((v) => v === -1) && backing.subarray(43).every((v) => v === -1),
        'nothing written outside the view');

      // uint8 results may go to a Uint8ClampedArray.
      const u8 = new Uint8ClampedArray(8);
      gs.gridSample({ data: Uint8Array.from(MODES.x.data), shape: MODES.x.shape }, MODES.grid, { mode: 'nearest', out: u8 });
      assert.deepEqual(Array.from(u8), MODES.y.nearest);
    });

    test('out may alias an input array (inputs are copied into the heap first)', () => {
      const data = new Float32Array(16);
      data.set(BASIC.x.data);
      const x = { data, shape: BASIC.x.shape };
      const identity = { data: new Float32Array(32), shape: [1, 4, 4, 2] };
      for (let i = 0; i < 4; ++i) {
        for (let j = 0; j < 4; ++j) identity.data.set([(2 * j + 1) / 4 - 1, (2 * i + 1) / 4 - 1], (i * 4 + j) * 2);
      }
      gs.gridSample(x, identity, { out: data });
      assertClose(data, BASIC.x.data, 1e-6); // pixel centres with align 0 give X back
    });

    test('empty outputs have the right shape and no elements', () => {
      const y = gs.gridSample(BASIC.x, { data: new Float32Array(0), shape: [1, 0, 6, 2] });
      assert.deepEqual(y.shape, [1, 1, 0, 6]);
      assert.equal(y.data.length, 0);
      const c0 = gs.gridSample({ data: new Float32Array(0), shape: [1, 0, 4, 4] }, BASIC.grid);
      assert.deepEqual(c0.shape, [1, 0, 6, 6]);
      const g = gs.affineGrid({ data: new Float32Array(0), shape: [0, 2, 3] }, [0, 3, 4, 5]);
      assert.deepEqual(g.shape, [0, 4, 5, 2]);
      assert.equal(g.data.length, 0);
    });

    test('a result owns its whole ArrayBuffer (transferable to a worker as it is), every byte written', () => {
      // In Node.js results skip zero-filling (load's newBuffer): an unpooled buffer of exactly
      // the result's size, each byte the library's, also after large results freed before.
      for (let round = 0; round < 3; ++round) {
        const theta = { data: Float32Array.from([1, 0, 0, 0, 1, 0]), shape: [1, 2, 3] };
        const g = gs.affineGrid(theta, [1, 1, 300 + round, 400]);
        assert.equal(g.data.byteOffset, 0);
        assert.equal(g.data.buffer.byteLength, g.data.byteLength);
        // Identity theta: x of column j is (2j + 1) / W - 1, y of row i (2i + 1) / H - 1.
        const [H, W] = [300 + round, 400];
        for (const k of [0, 1, 2 * W - 1, 2 * W * H - 2, 2 * W * H - 1]) {
          const j = (k >> 1) % W;
          const i = Math.floor((k >> 1) / W);
          const want = k % 2 === 0 ? (2 * j + 1) / W - 1 : (2 * i + 1) / H - 1;
          assert.ok(Math.abs(g.data[k] - want) <= 1e-6, `grid value ${k}: ${g.data[k]} vs ${want}`);
        }
        const y = gs.gridSample(BASIC.x, BASIC.grid);
        assert.equal(y.data.byteOffset, 0);
        assert.equal(y.data.buffer.byteLength, y.data.byteLength);
        const img = gs.warpAffine({ data: new Uint8ClampedArray(4 * 8 * 8).fill(200), width: 8, height: 8 }, [1, 0, 0, 0, 1, 0]);
        assert.ok(img.data instanceof Uint8ClampedArray);
        assert.equal(img.data.buffer.byteLength, img.data.byteLength);
        assert.ok(img.data.every((v) => v === 200), 'every pixel of an identity warp is the input');
      }
    });

    test('affineGrid: size as array, BigInt64Array or an int64 tensor; alignCorners spellings; out', () => {
      for (const name of ['ag2d_ac0_basic', 'ag2d_ac1_batch', 'ag3d_ac1_basic', 'ag3d_ac0_d1']) {
        const c = loadCase(CASES, name);
        const size = c.inputs.size.value;
        const align = c.attrs.align_corners;
        const sizes = [size, BigInt64Array.from(size, BigInt), { data: BigInt64Array.from(size, BigInt), dims: [size.length], type: 'int64' }];
        const aligns = [{ alignCorners: align }, { alignCorners: align === 1 }, { align_corners: align }];
        for (const s of sizes) {
          for (const a of aligns) {
            const g = gs.affineGrid(c.inputs.theta, s, a);
            assert.deepEqual(g.shape, c.expected.shape, name);
            assert.equal(g.dtype, 'float32');
            assertClose(g.data, Array.from(c.expected.data), c.atol, name);
          }
        }
        const out = new Float32Array(c.expected.data.length);
        assert.equal(gs.affineGrid(c.inputs.theta, size, { alignCorners: align, out }).data, out);
        assertClose(out, Array.from(c.expected.data), c.atol, `${name} out`);
      }
    });

    test('affineGrid in float64, float16 and bfloat16 (theta dtype = grid dtype)', () => {
      const c = loadCase(CASES, 'ag2d_ac1_basic');
      const theta = Array.from(c.inputs.theta.data);
      const want = Array.from(c.expected.data);
      for (const [dtype, atol] of [['float64', c.atol], ['float16', 0.01], ['bfloat16', 0.05]]) {
        const t = { data: encode(dtype, theta), shape: c.inputs.theta.shape, dtype };
        const g = gs.affineGrid(t, c.inputs.size.value, { alignCorners: true });
        assert.equal(g.dtype, dtype);
        // Half thetas are themselves rounded: compare with the rounded theta's grid.
        assertClose(decodeAll(dtype, g.data), want, atol + (dtype === 'float64' ? 0 : 4 * atol), dtype);
      }
    });
  });
}
