// gs.multiScaleDeformableAttention against onnxruntime-node running the chain PyTorch's multi_scale_deformable_attn exports (Split, GridSample per level at 2 * loc - 1, Concat, Mul, ReduceSum) as an ONNX graph: the same values within float32 rounding, in both wasm variants.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { modules } from './lib/api_values.mjs';
import { argumentsOf, assertMatchesChain, chain, makeCase } from './lib/deformable_attention_chain.mjs';
import { chainModel } from './lib/deformable_chain_model.mjs';

const CASES = {
  'three levels, N = 2, 4 heads': { N: 2, Lq: 17, M: 4, D: 8, P: 4, levels: [[12, 10], [6, 5], [3, 3]], seed: 21 },
  '1xW, Hx1 and 1x1 levels, locations far outside [0, 1]': { Lq: 9, M: 2, D: 3, P: 3, levels: [[1, 9], [7, 1], [1, 1]], locations: [-2, 3], seed: 22 },
};

describe("multiScaleDeformableAttention against onnxruntime-node running the exporters' chain", () => {
  for (const [name, sizes] of Object.entries(CASES)) {
    test(name, async () => {
      const c = makeCase(sizes);
      const session = await ort.InferenceSession.create(chainModel(c.sizes));
      const feeds = {
        value: new ort.Tensor('float32', c.value.data, c.value.dims),
        sampling_locations: new ort.Tensor('float32', c.samplingLocations.data, c.samplingLocations.dims),
        attention_weights: new ort.Tensor('float32', c.attentionWeights.data, c.attentionWeights.dims),
      };
      const { output } = await session.run(feeds);
      await session.release();
      // onnxruntime's result and each variant's, each within float32 rounding of the chain in float64.
      const expected = chain(modules.scalar, c);
      assertMatchesChain({ data: output.data, shape: output.dims }, expected, c, 'onnxruntime-node');
      for (const [variant, gs] of Object.entries(modules)) {
        const y = gs.multiScaleDeformableAttention(...argumentsOf(c));
        assertMatchesChain(y, expected, c, variant);
        // onnxruntime's tensors in (its int64 levels too), our result against its own.
        const z = gs.multiScaleDeformableAttention(feeds.value, new ort.Tensor('int64', c.spatialShapes.data, c.spatialShapes.dims),
          new ort.Tensor('int64', c.levelStartIndex.data, c.levelStartIndex.dims), feeds.sampling_locations, feeds.attention_weights);
        assert.deepEqual(z.data, y.data);
        const tolerance = expected.tolerance.map((t) => 2 * t);
        assertMatchesChain(z, { y: output.data, tolerance }, c, `${variant} against onnxruntime-node`);
      }
    });
  }
});
