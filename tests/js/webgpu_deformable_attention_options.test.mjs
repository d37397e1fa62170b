// gpu.multiScaleDeformableAttention's options.pointsPerLevel and options.sampling in Node on SwiftShader (npm webgpu): on the GPU, bit for bit the wasm build's call and within float32 rounding of the tests' own oracles (the chain per level, D-FINE's gather); bfloat16 through the wasm module with the options; the CPU call's errors before any GPU work.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { createGpu } from '../../js/webgpu/index.mjs';
import { argumentsOf, assertSameBits, makeCase } from './lib/deformable_attention_chain.mjs';
import { assertMatches, chainPerLevel, discreteOracle, EDGE_COORDINATES, listedArguments, makeListedCase } from './lib/deformable_attention_options.mjs';
import { nodeWebGpu } from './lib/node_webgpu.mjs';
import { numberToF16 } from './lib/halfs.mjs';

const setup = await nodeWebGpu();
const skip = setup.skip ?? false;
const wasm = await load({ variant: 'simd' });
const gpu = skip ? null : await createGpu({ device: setup.device, wasm });

// Levels wider than high (columns past H - 1 never read), higher than wide (the column also
// clamped to W - 1), square and 1x1.
const LEVELS = [[2, 6], [5, 2], [4, 4], [1, 1]];

// The GPU call's result on the CPU, checked to have run on the GPU.
async function onGpu(...args) {
  const y = await gpu.multiScaleDeformableAttention(...args);
  assert.equal(y.ranOn, 'webgpu');
  const got = await gpu.read(y);
  y.dispose();
  return got;
}

describe('gpu.multiScaleDeformableAttention options: the oracles and the wasm build', { skip }, () => {
  const LISTED = {
    'P_l = 3, 1, 2, 4 over 4 levels, D = 11 (groups span heads)': { N: 2, Lq: 5, M: 3, D: 11, levels: LEVELS, points: [3, 1, 2, 4], seed: 1 },
    'one level of 6 points, D = 8': { Lq: 3, M: 2, D: 8, levels: [[3, 5]], points: [6], seed: 2 },
    'float16 value and output, D = 5': { Lq: 6, M: 2, D: 5, levels: [[5, 7], [3, 4], [2, 2]], points: [2, 4, 1], dtype: 'float16', seed: 3 },
  };
  for (const [name, sizes] of Object.entries(LISTED)) {
    test(`pointsPerLevel, bilinear and discrete: ${name}`, async () => {
      const c = makeListedCase(sizes);
      for (const sampling of ['bilinear', 'discrete']) {
        const options = { pointsPerLevel: sizes.points, sampling };
        const got = await onGpu(...listedArguments(c), options);
        assertMatches(got, sampling === 'bilinear' ? chainPerLevel(wasm, c) : discreteOracle(c, sizes.points), c.value.type, `${name}, ${sampling}`);
        assertSameBits(got, wasm.multiScaleDeformableAttention(...listedArguments(c), options), `${name}, ${sampling}`);
      }
    });
  }

  test("discrete at the rule's edges (.5 boundaries, just below, negatives, > 1, NaN / Inf), float32 and float16, float16 locations", async () => {
    for (const [dtype, coordinates] of [['float32', 'float32'], ['float16', 'float32'], ['float32', 'float16']]) {
      const c = makeCase({ N: 2, Lq: 11, M: 2, D: 3, P: 2, levels: LEVELS, dtype, seed: 4 });
      const loc = Float32Array.from(c.samplingLocations.data, (_, i) => EDGE_COORDINATES[(i + (i >> 1)) % EDGE_COORDINATES.length]);
      c.samplingLocations.data = coordinates === 'float32' ? loc : Uint16Array.from(loc, numberToF16);
      c.samplingLocations.type = coordinates;
      const got = await onGpu(...argumentsOf(c), { sampling: 'discrete' });
      assertMatches(got, discreteOracle(c), dtype, `${dtype} value, ${coordinates} locations`);
      assertSameBits(got, wasm.multiScaleDeformableAttention(...argumentsOf(c), { sampling: 'discrete' }), `${dtype} value, ${coordinates} locations`);
    }
  });

  test('bfloat16 runs on the wasm module with the options', async () => {
    const c = makeListedCase({ Lq: 4, M: 2, D: 3, levels: LEVELS, points: [1, 2, 1, 2], seed: 5 });
    const bf = { data: Uint16Array.from(new Uint32Array(Float32Array.from(c.value.data).buffer), (u) => u >>> 16), dims: c.value.dims, type: 'bfloat16' };
    const args = [bf, ...listedArguments(c).slice(1)];
    const options = { pointsPerLevel: [1, 2, 1, 2], sampling: 'discrete' };
    const y = await gpu.multiScaleDeformableAttention(...args, options);
    assert.equal(y.ranOn, 'wasm');
    assertSameBits(await gpu.read(y), wasm.multiScaleDeformableAttention(...args, options), 'bfloat16');
  });

  test("hostile options: the CPU call's error", async () => {
    const c = makeListedCase({ Lq: 2, M: 1, D: 2, levels: [[2, 2], [1, 1]], points: [2, 1], seed: 6 });
    for (const options of [{ pointsPerLevel: [2, 1, 1] }, { pointsPerLevel: [3, 0] }, { pointsPerLevel: [1, 1] }, { sampling: 'nearest' }, { sampling: 0 }, { pointsPerLevel: 2 }]) {
      const cpu = (() => { try { wasm.multiScaleDeformableAttention(...listedArguments(c), options); } catch (e) { return e; } return null; })();
      assert.ok(cpu, `the CPU call refuses ${JSON.stringify(options)}`);
      await assert.rejects(gpu.multiScaleDeformableAttention(...listedArguments(c), options), { name: cpu.name, message: cpu.message });
    }
  });
});

