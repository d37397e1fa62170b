// gs.prepareRemap in both wasm variants: a remap prepared with its maps gives gs.remap's bytes on new images (modes, paddings, fill, channels, dtypes, one map or two planes, non-finite positions), with heap tensors and out arrays, one crossing per run; and its errors (image size, channels, dtype, disposed objects, the maps' own).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { modules } from './lib/api_values.mjs';
import { countedModule } from './lib/counted_module.mjs';

// Deterministic values in [0, 1).
function unit(n, seed) {
  let s = seed >>> 0;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  });
}
const bytes = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

// An image of `channels` values per pixel, uint8 or float32.
function image(width, height, channels, dtype, seed) {
  const u = unit(width * height * channels, seed);
  const data = dtype === 'uint8' ? Uint8ClampedArray.from(u, (v) => v * 256) : Float32Array.from(u, (v) => v * 4 - 2);
  return { data, width, height, channels };
}

// Maps mostly inside a w x h image (uint8 bilinear's fixed-point blend), some outside, NaN and
// infinite: one interleaved map and the same positions as two planes.
function maps(width, height, w, h, seed) {
  const u = unit(width * height * 3, seed);
  const pairs = new Float32Array(2 * width * height);
  const xs = new Float32Array(width * height);
  const ys = new Float32Array(width * height);
  for (let p = 0; p < width * height; p++) {
    const r = u[3 * p];
    const at = (v, side) => (r < 0.02 ? NaN : r < 0.03 ? -Infinity : r < 0.15 ? v * (side + 6) - 3 : 0.5 + v * (side - 2));
    xs[p] = pairs[2 * p] = at(u[3 * p + 1], w);
    ys[p] = pairs[2 * p + 1] = at(u[3 * p + 2], h);
  }
  return {
    pairs: { data: pairs, width, height },
    x: { data: xs, width, height },
    y: { data: ys, width, height },
  };
}

for (const [, gs] of Object.entries(modules)) {
  describe(`${gs.backend}: prepareRemap`, () => {
    test('gives remap\'s bytes on new images, for every mode, padding, fill, channel count, dtype and map layout', () => {
      let seed = 1;
      for (const dtype of ['uint8', 'float32']) {
        for (const channels of [1, 2, 3, 4]) {
          for (const mode of ['linear', 'nearest', 'cubic']) {
            for (const paddingMode of ['zeros', 'border', 'reflection']) {
              const m = maps(21, 6, 13, 9, ++seed);
              for (const planes of [false, true]) {
                const options = { mode, paddingMode, ...(paddingMode === 'zeros' && planes && { fill: 200 }) };
                const spec = { width: 13, height: 9, channels, dtype };
                const prepared = planes ? gs.prepareRemap(spec, m.x, m.y, options) : gs.prepareRemap(spec, m.pairs, null, options);
                assert.equal(prepared.width, 21);
                assert.equal(prepared.height, 6);
                assert.ok(prepared.planBytes > 0);
                const kept = structuredClone(m);
                m.pairs.data.fill(0); // the maps may change once prepared
                m.x.data.fill(0);
                for (let run = 0; run < 2; run++) {
                  const img = image(13, 9, channels, dtype, ++seed);
                  const want = planes ? gs.remap(img, kept.x, kept.y, options) : gs.remap(img, kept.pairs, null, options);
                  const got = prepared.run(img);
                  assert.equal(got.data.constructor, want.data.constructor);
                  assert.deepEqual([got.width, got.height, got.channels], [want.width, want.height, want.channels]);
                  assert.deepEqual(bytes(got.data), bytes(want.data), `${dtype} C=${channels} ${mode} ${paddingMode} ${planes ? 'planes' : 'pairs'} run ${run}`);
                }
                prepared.dispose();
                Object.assign(m, kept);
              }
            }
          }
        }
      }
    });

    test('heap tensors in and out, out arrays and out images; an image given for the spec', () => {
      const img = image(40, 30, 4, 'uint8', 5);
      const m = maps(50, 20, 40, 30, 6);
      const want = gs.remap(img, m.pairs);
      const prepared = gs.prepareRemap(img, m.pairs);
      const hx = gs.tensorFrom({ data: img.data, shape: [30, 40, 4] });
      const hy = gs.tensor('uint8', [20, 50, 4]);
      const r = prepared.run(hx, { out: hy });
      assert.deepEqual(bytes(r.data), bytes(want.data));
      assert.deepEqual(bytes(hy.data), bytes(want.data));
      const out = new Uint8ClampedArray(50 * 20 * 4);
      assert.equal(prepared.run(img, { out }).data, out);
      assert.deepEqual(bytes(out), bytes(want.data));
      const object = { data: new Uint8ClampedArray(50 * 20 * 4), width: 50, height: 20 };
      assert.equal(prepared.run(hx, { out: object }), object);
      assert.deepEqual(bytes(object.data), bytes(want.data));
      for (const t of [hx, hy, prepared]) t.dispose();
    });

    test('errors: the image\'s size, channels and dtype, out, disposed objects, the maps and options', () => {
      const m = maps(5, 4, 6, 6, 7);
      const prepared = gs.prepareRemap({ width: 6, height: 6, channels: 4, dtype: 'uint8' }, m.pairs);
      assert.throws(() => prepared.run(image(7, 6, 4, 'uint8', 1)), { name: 'RangeError', message: /^remap\.run: image: expected a 6x6 image of 4 channels \(as prepared\), got 7x6 of 4/ });
      assert.throws(() => prepared.run(image(6, 6, 3, 'uint8', 1)), { name: 'RangeError', message: /got 6x6 of 3/ });
      assert.throws(() => prepared.run(image(6, 6, 4, 'float32', 1)), { name: 'TypeError', message: /^remap\.run: image: expected uint8 data \(as prepared\), got float32/ });
      assert.throws(() => prepared.run(image(6, 6, 4, 'uint8', 1), { out: new Uint8ClampedArray(3) }), { name: 'RangeError', message: /options\.out/ });
      assert.throws(() => prepared.run(image(6, 6, 4, 'uint8', 1), { outt: 1 }), { name: 'TypeError', message: /outt/ });
      const t = gs.tensor('uint8', [6, 6, 4]);
      t.dispose();
      assert.throws(() => prepared.run(t), { name: 'TypeError', message: /disposed/ });
      prepared.dispose();
      prepared.dispose();
      assert.equal(prepared.disposed, true);
      assert.throws(() => prepared.run(image(6, 6, 4, 'uint8', 1)), { name: 'TypeError', message: /^remap\.run: this prepared remap was disposed/ });
      const gone = gs.prepareRemap({ width: 6, height: 6, channels: 4, dtype: 'uint8' }, m.pairs);
      const out = { get data() { gone.dispose(); return new Uint8ClampedArray(80); }, width: 5, height: 4 };
      assert.throws(() => gone.run(image(6, 6, 4, 'uint8', 1), { out }), { name: 'TypeError', message: /^remap\.run: this prepared remap was disposed during the call$/ });
      assert.throws(() => gs.prepareRemap({ width: 6, height: 6, channels: 4 }, m.pairs), { name: 'TypeError', message: /^prepareRemap: image\.dtype: expected 'uint8' or 'float32'/ });
      assert.throws(() => gs.prepareRemap({ width: 6, height: 6, channels: 5, dtype: 'uint8' }, m.pairs), { name: 'RangeError', message: /^prepareRemap: image\.channels/ });
      assert.throws(() => gs.prepareRemap(image(6, 6, 4, 'uint8', 1), m.x), { name: 'RangeError', message: /^prepareRemap: mapX/ });
      assert.throws(() => gs.prepareRemap(image(6, 6, 4, 'uint8', 1), m.pairs, null, { mode: 'area' }), { name: 'RangeError', message: /^prepareRemap: / });
      assert.throws(() => gs.prepareRemap(image(6, 6, 4, 'uint8', 1), m.pairs, null, { fill: 1, paddingMode: 'border' }), { name: 'RangeError', message: /^prepareRemap: / });
      assert.throws(() => gs.prepareRemap({ width: 0, height: 0, channels: 4, dtype: 'uint8' }, m.pairs), { name: 'RangeError', message: /^prepareRemap: / });
      const heapMap = gs.tensor('float32', [4, 5, 2]);
      heapMap.dispose();
      assert.throws(() => gs.prepareRemap(image(6, 6, 4, 'uint8', 1), heapMap), { name: 'TypeError', message: /disposed/ });
      // The module stays usable.
      assert.equal(gs.remap(image(6, 6, 4, 'uint8', 1), m.pairs).width, 5);
    });
  });
}

describe('crossings into the wasm per prepared remap', () => {
  test('a run crosses once, with arrays or heap tensors', async () => {
    const { gs, crossings } = await countedModule();
    const img = image(32, 24, 4, 'uint8', 9);
    const m = maps(32, 24, 32, 24, 10);
    const prepared = gs.prepareRemap(img, m.x, m.y);
    const out = new Uint8ClampedArray(32 * 24 * 4);
    prepared.run(img, { out });
    assert.equal(crossings(() => prepared.run(img, { out })), 1);
    const [hx, hy] = [gs.tensorFrom({ data: img.data, shape: [24, 32, 4] }), gs.tensor('uint8', [24, 32, 4])];
    assert.equal(crossings(() => prepared.run(hx, { out: hy })), 1);
    for (const t of [hx, hy, prepared]) t.dispose();
  });
});
