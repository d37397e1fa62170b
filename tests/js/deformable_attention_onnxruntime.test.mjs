// gs.multiScaleDeformableAttention against onnxruntime-node running the chain PyTorch's multi_scale_deformable_attn exports (Split, GridSample per level at 2 * loc - 1, Concat, Mul, ReduceSum) as an ONNX graph: the same values within float32 rounding, in both wasm variants.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { modules } from './lib/api_values.mjs';
import { argumentsOf, assertMatchesChain, chain, makeCase } from './lib/deformable_attention_chain.mjs';
import { graph } from './lib/model_graph.mjs';
import { encodeModel } from './lib/onnx_model.mjs';

/**
 * The exporters' chain for these sizes as an ONNX model (opset 16) of inputs value
 * [N, S, M, D], sampling_locations [N, Lq, M, L, P, 2] and attention_weights [N, Lq, M, L, P]
 * and output [N, Lq, M * D], written as PyTorch's multi_scale_deformable_attn_pytorch traces.
 */
function chainModel({ N, Lq, M, D, P, L, S, levels }) {
  const g = graph();
  const values = g.node('Split', ['value', g.i64('level_sizes', [L], levels.map(([h, w]) => h * w))],
    levels.map((_, l) => `value_l${l}`), { axis: 1 });
  const grids = g.node('Sub', [g.node('Mul', ['sampling_locations', g.f32('two', [], [2])], 'loc_x2'), g.f32('one', [], [1])], 'grids');
  // [N, Lq, M, L, P, 2] -> [N, M, Lq, L, P, 2] -> [N * M, Lq, L, P, 2]
  const byHead = g.node('Reshape', [g.node('Transpose', [grids], 'grids_t', { perm: { ints: [0, 2, 1, 3, 4, 5] } }),
    g.i64('grids_shape', [5], [N * M, Lq, L, P, 2])], 'grids_by_head');
  const sampled = levels.map(([h, w], l) => {
    // value_l [N, HW, M, D] -> [N, M, D, HW] -> [N * M, D, H, W]; grid [N * M, Lq, P, 2].
    const v = g.node('Reshape', [g.node('Transpose', [values[l]], `value_l${l}_t`, { perm: { ints: [0, 2, 3, 1] } }),
      g.i64(`value_l${l}_shape`, [4], [N * M, D, h, w])], `value_l${l}_maps`);
    const grid = g.node('Gather', [byHead, g.i64(`level${l}`, [], [l])], `grid_l${l}`, { axis: 2 });
    return g.node('GridSample', [v, grid], `sampled_l${l}`, { mode: 'bilinear', padding_mode: 'zeros', align_corners: 0 });
  });
  const stacked = g.node('Concat', sampled, 'stacked', { axis: 3 });   // [N * M, D, Lq, L * P]
  const weights = g.node('Reshape', [g.node('Transpose', ['attention_weights'], 'weights_t', { perm: { ints: [0, 2, 1, 3, 4] } }),
    g.i64('weights_shape', [4], [N * M, 1, Lq, L * P])], 'weights');
  const summed = g.node('ReduceSum', [g.node('Mul', [stacked, weights], 'weighted'), g.i64('sum_axes', [1], [3])], 'summed', { keepdims: 0 });
  const merged = g.node('Reshape', [summed, g.i64('merged_shape', [3], [N, M * D, Lq])], 'merged');
  g.node('Transpose', [merged], 'output', { perm: { ints: [0, 2, 1] } });
  return encodeModel({
    opset: 16, nodes: g.nodes, initializers: g.initializers,
    inputs: [
      { name: 'value', dtype: 'float32', dims: [N, S, M, D] },
      { name: 'sampling_locations', dtype: 'float32', dims: [N, Lq, M, L, P, 2] },
      { name: 'attention_weights', dtype: 'float32', dims: [N, Lq, M, L, P] },
    ],
    outputs: [{ name: 'output', dtype: 'float32', dims: [N, Lq, M * D] }],
  });
}

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
