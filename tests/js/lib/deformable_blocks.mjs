// Deformable-attention blocks at real sizes as ONNX models (model_graph.mjs's block: multi-scale deformable attention with its projections, one GridSample per level, opset 16): an RT-DETR decoder layer's and a Deformable-DETR encoder layer's, for make bench's model rows and onnx_memory.test.mjs.
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
