// Deformable-attention blocks at real sizes as ONNX models (opset 16): model_graph.mjs's (multi-scale deformable attention with its four projections, one GridSample per level) of an RT-DETR decoder layer and a Deformable-DETR encoder layer, and D-FINE's decoder block (attention_v2_graphs.mjs: the value already projected), for make bench's model rows and the tests.
import { v2Attention } from './attention_v2_graphs.mjs';
import { deformableAttention, graph, lcg } from './model_graph.mjs';
import { encodeModel } from './onnx_model.mjs';

/** An RT-DETR / D-FINE decoder's levels (H, W): 80x80, 40x40, 20x20. */
export const DECODER_LEVELS = [[80, 80], [40, 40], [20, 20]];

/** A Deformable-DETR encoder's four levels (H, W) for an h x w input: strides 8 to 64. */
export const encoderLevels = (h, w) => [8, 16, 32, 64].map((s) => [Math.ceil(h / s), Math.ceil(w / s)]);

/**
 * The block with 8 heads of 32 channels and 4 points per level, `queries` queries over the
 * value of `levels` (H, W): {title, inputs (with their value ranges), bytes}; inputs query
 * [1, queries, 256], reference_points [1, queries, 1, 2] in [0, 1] and value [1, S, 256];
 * output [1, queries, 256].
 */
export function deformableBlock(levels, queries, title) {
  const dim = 256;
  const S = levels.reduce((s, [h, w]) => s + h * w, 0);
  const g = graph();
  deformableAttention(g, lcg(S), { levels, heads: 8, points: 4, dim, queries });
  const inputs = [
    { name: 'query', dtype: 'float32', dims: [1, queries, dim], range: [-1, 1] },
    { name: 'reference_points', dtype: 'float32', dims: [1, queries, 1, 2], range: [0, 1] },
    { name: 'value', dtype: 'float32', dims: [1, S, dim], range: [-1, 1] },
  ];
  const bytes = encodeModel({ opset: 16, nodes: g.nodes, initializers: g.initializers, inputs, outputs: [{ name: 'output', dtype: 'float32', dims: [1, queries, dim] }] });
  return { title, inputs, bytes };
}

/**
 * D-FINE's decoder block, issue 45's "decoder block": MSDeformableAttention (sampling_offsets and
 * attention_weights projections, softmax, locations from the reference boxes) and
 * deformable_attention_core_func_v2 over a value the decoder projected and split once for all its
 * layers (value_op): 8 heads of 32 channels, 4 points per level, no value_proj or output_proj.
 * {title, inputs (with their value ranges), bytes}; inputs value [1, S, 8, 32], query
 * [1, queries, 256], reference_points [1, queries, 1, 4] (boxes in [0, 1]); output [1, queries, 256].
 */
export function dfineBlock(levels, queries, title) {
  const [M, D] = [8, 32];
  const S = levels.reduce((s, [h, w]) => s + h * w, 0);
  const bytes = v2Attention({ N: 1, Lq: queries, M, D, points: levels.map(() => 4), levels, query: { dim: M * D, seed: S } });
  const inputs = [
    { name: 'value', dtype: 'float32', dims: [1, S, M, D], range: [-1, 1] },
    { name: 'query', dtype: 'float32', dims: [1, queries, M * D], range: [-1, 1] },
    { name: 'reference_points', dtype: 'float32', dims: [1, queries, 1, 4], range: [0, 1] },
  ];
  return { title, inputs, bytes };
}
