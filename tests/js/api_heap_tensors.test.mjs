// API tests of the zero-copy tier in both wasm variants: heap tensors made by tensor() and tensorFrom(), their classes per dtype, memory growth, dispose(), and another module's tensors read by copy.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import * as entry from '../../js/node.mjs';
import { BASIC, PRINTED_ATOL } from './lib/onnx_examples.mjs';
import { assertClose, decodeAll, encode, modules, STORAGE, variants } from './lib/api_values.mjs';

const { DTYPE_NAMES } = entry;

for (const [variant, gs] of Object.entries(modules)) {
  describe(`${gs.backend}`, () => {
    describe('zero-copy tier', () => {
      test('tensor() is zero-filled and writable through data; tensorFrom() copies', () => {
        const before = gs.heapUsed();
        const t = gs.tensor('float32', [1, 1, 4, 4]);
        assert.equal(t.dtype, 'float32');
        assert.deepEqual([...t.shape], [1, 1, 4, 4]);
        assert.equal(t.dims, t.shape);
        assert.ok(Object.isFrozen(t.shape));
        assert.equal(t.size, 16);
        assert.equal(t.byteLength, 64);
        assert.ok(t.data instanceof Float32Array);
        assert.ok(t.data.every((v) => v === 0));
        t.data.set(BASIC.x.data);
        const g = gs.tensorFrom(BASIC.grid);
        assert.deepEqual(Array.from(g.data), Array.from(BASIC.grid.data));
        const y = gs.tensor('float32', BASIC.yShape);
        assert.equal(gs.gridSample(t, g, { out: y }), y);
        assertClose(y.data, BASIC.y, PRINTED_ATOL);
        // Heap tensors as inputs with a copied result, and mixed with plain arrays.
        assertClose(gs.gridSample(t, BASIC.grid).data, BASIC.y, PRINTED_ATOL);
        assertClose(gs.gridSample(BASIC.x, g).data, BASIC.y, PRINTED_ATOL);
        const plainOut = new Float32Array(36);
        gs.gridSample(t, g, { out: plainOut });
        assertClose(plainOut, BASIC.y, PRINTED_ATOL);
        for (const h of [t, g, y]) h.dispose();
        assert.equal(gs.heapUsed(), before);
      });

      test('every dtype has a heap tensor of the right class', () => {
        for (const dtype of DTYPE_NAMES) {
          const t = gs.tensor(dtype, [2, 3]);
          assert.ok(t.data instanceof STORAGE[dtype].Array, dtype);
          assert.equal(t.data.length, 6);
          const copy = gs.tensorFrom({ data: encode(dtype, [1, 2, 3, 4, 5, 6]), shape: [2, 3], dtype });
          assert.equal(copy.dtype, dtype);
          assert.deepEqual(decodeAll(dtype, copy.data), [1, 2, 3, 4, 5, 6]);
          const clone = gs.tensorFrom(copy); // heap to heap
          copy.dispose();
          assert.deepEqual(decodeAll(dtype, clone.data), [1, 2, 3, 4, 5, 6]);
          clone.dispose();
          t.dispose();
        }
      });

      test('data stays valid across a forced memory growth', () => {
        const x = gs.tensorFrom(BASIC.x);
        const g = gs.tensorFrom(BASIC.grid);
        const stale = x.data;
        const size = gs.heapSize();
        // Larger than all free heap: malloc must grow the memory, which replaces its buffer.
        const big = gs.tensor('uint8', [size + 16 * 1024 * 1024]);
        assert.ok(gs.heapSize() > size, `heap grew from ${size} to ${gs.heapSize()}`);
        assert.equal(stale.byteLength, 0, 'a view taken before the growth is detached');
        assert.notEqual(x.data, stale);
        assert.deepEqual(Array.from(x.data), Array.from(BASIC.x.data));
        big.data[big.size - 1] = 7; // the new tensor spans the grown part
        assert.equal(big.data[big.size - 1], 7);
        const y = gs.tensor('float32', BASIC.yShape);
        gs.gridSample(x, g, { out: y });
        assertClose(y.data, BASIC.y, PRINTED_ATOL);
        // A call whose own allocations grow the memory mid-call keeps heap tensors valid.
        big.dispose();
        const hugeX = new Float32Array(gs.heapSize() / 4 + 4 * 1024 * 1024);
        const grown = gs.heapSize();
        const r = gs.gridSample({ data: hugeX, shape: [1, 1, hugeX.length] }, { data: Float32Array.from([0]), shape: [1, 1, 1] });
        assert.ok(gs.heapSize() > grown, 'the call grew the heap');
        assert.deepEqual(r.shape, [1, 1, 1]);
        assertClose(x.data, BASIC.x.data, 0, 'x after growth');
        for (const h of [x, g, y]) h.dispose();
      });

      test('dispose() frees, is idempotent, and Symbol.dispose does the same', () => {
        const before = gs.heapUsed();
        const t = gs.tensor('float64', [1000]);
        assert.ok(gs.heapUsed() >= before + 8000);
        assert.equal(t.disposed, false);
        t.dispose();
        assert.equal(t.disposed, true);
        assert.equal(gs.heapUsed(), before);
        t.dispose();
        assert.equal(gs.heapUsed(), before);
        assert.throws(() => t.data, (e) => e instanceof TypeError && /HeapTensor\.data: this float64 tensor of shape \[1000\] was disposed/.test(e.message));
        assert.deepEqual([...t.shape], [1000], 'metadata stays readable');

        assert.equal(typeof Symbol.dispose, 'symbol');
        const u = gs.tensor('uint8', [64]);
        u[Symbol.dispose]();
        assert.equal(u.disposed, true);
        assert.equal(gs.heapUsed(), before);
      });

      test("a heap tensor of another loaded module is read by copy", () => {
        const other = modules[variants.find((v) => v !== variant)] || modules.scalar;
        if (other === gs) return;
        const x = other.tensorFrom(BASIC.x);
        assertClose(gs.gridSample(x, BASIC.grid).data, BASIC.y, PRINTED_ATOL);
        const y = other.tensor('float32', BASIC.yShape);
        gs.gridSample(BASIC.x, BASIC.grid, { out: y });
        assertClose(y.data, BASIC.y, PRINTED_ATOL);
        x.dispose();
        y.dispose();
      });
    });
  });
}
