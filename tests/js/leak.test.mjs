// Leak check: 10,000 mixed calls (successes, failures, heap tensors) leave the wasm heap's bytes in use unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { load, simdSupported } from '../../js/node.mjs';
import { BASIC, MODES } from './lib/onnx_examples.mjs';

const CALLS = 10000;
const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());

// One call of each kind per step; `i` varies shapes so that the allocator sees many sizes.
const KINDS = [
  (gs, i) => gs.gridSample(BASIC.x, BASIC.grid, { mode: ['linear', 'nearest', 'cubic'][i % 3] }),
  (gs, i) => gs.gridSample({ data: new Float32Array(3 * (i % 17 + 1)), shape: [1, 3, 1, i % 17 + 1] }, MODES.grid),
  (gs) => gs.gridSample(BASIC.x, BASIC.grid, { out: new Float32Array(36) }),
  (gs) => gs.affineGrid({ data: Float32Array.from([1, 0, 0, 0, 1, 0]), shape: [1, 2, 3] }, [1, 1, 5, 7], { alignCorners: true }),
  (gs, i) => {
    const t = gs.tensor(['float32', 'uint8', 'float64'][i % 3], [i % 31 + 1]);
    t.dispose();
  },
  (gs) => {
    const x = gs.tensorFrom(BASIC.x);
    const y = gs.tensor('float32', [1, 1, 6, 6]);
    try {
      gs.gridSample(x, BASIC.grid, { out: y, paddingMode: 'reflection' });
    } finally {
      x.dispose();
      y.dispose();
    }
  },
  // Failures in the JS checks, after allocation (library error), and in out validation.
  (gs) => assert.throws(() => gs.gridSample(BASIC.x, BASIC.grid, { mode: 'bogus' }), RangeError),
  (gs) => assert.throws(() => gs.gridSample({ data: new Float32Array(0), shape: [1, 1, 0, 4] }, BASIC.grid), /spatial dimension is 0/),
  (gs) => assert.throws(() => gs.gridSample(BASIC.x, BASIC.grid, { out: new Float32Array(35) }), RangeError),
  (gs) => assert.throws(() => gs.affineGrid({ data: new Float32Array(6), shape: [1, 2, 3] }, [2, 1, 4, 4]), RangeError),
];

for (const variant of variants) {
  test(`${variant}: ${CALLS} calls leave heapUsed() unchanged`, async () => {
    const gs = await load({ variant });
    // Warm-up round: lasting runtime state (embind caches) is allocated once, not per call.
    for (let k = 0; k < KINDS.length; ++k) KINDS[k](gs, k);
    const before = gs.heapUsed();
    for (let i = 0; i < CALLS; ++i) KINDS[i % KINDS.length](gs, i);
    assert.equal(gs.heapUsed(), before);
    // The check itself can see a leak: one undisposed tensor changes the count.
    const leaked = gs.tensor('uint8', [1]);
    assert.notEqual(gs.heapUsed(), before);
    leaked.dispose();
    assert.equal(gs.heapUsed(), before);
  });
}
