// Test models of multi-scale deformable attention as exporters write it: transformers' PyTorch fallback (deformable_detr's multi_scale_deformable_attention) as torch.onnx exports it at opset 16, with constant or Shape-computed reshape targets, and mmdeploy's MMCVMultiScaleDeformableAttention node; each with near misses for the fusion tests.
import { graph } from './model_graph.mjs';
import { encodeModel } from './onnx_model.mjs';

const rows = (levels) => levels.map(([h, w]) => h * w);

/**
 * transformers' `multi_scale_deformable_attention` as torch.onnx writes it (opset 16), between
 * the softmax of the attention logits (input 'attention_logits' [N, Lq, M, L * P], viewed as
 * [N, Lq, M, L, P]) and 'output' [N, Lq, M * D]; inputs 'value' [N, S, M, D] and
 * 'sampling_locations' [N, Lq, M, L, P, 2]. `shapes`: 'constant' (reshape targets folded to
 * constants, the batch `N` fixed) or 'dynamic' (computed from Shape, as an export with dynamic
 * axes writes them; N and Lq symbolic). `split`: 'Split' (value.split) or 'Slice' (value[:, a:b],
 * and 2 * loc written Mul(2, loc)).
 * `miss`: a near miss, the chain changed so that it no longer is the attention (see MISSES).
 */
export function torchAttention(options) {
  const { N = 1, Lq, M, D, P, levels, shapes = 'constant', miss = null } = options;
  const g = graph();
  torchAttentionChain(g, options);
  const L = levels.length;
  // One row more where a near miss reads past the levels' rows.
  const S = rows(levels).reduce((a, b) => a + b, 0) + (miss === 'split' || miss === 'gap' ? 1 : 0);
  const [n, q] = shapes === 'dynamic' ? ['N', 'Lq'] : [N, Lq];
  return encodeModel({
    opset: 16,
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [
      { name: 'value', dtype: 'float32', dims: [n, S, M, D] },
      { name: 'sampling_locations', dtype: 'float32', dims: [n, q, M, L, P, 2] },
      { name: 'attention_logits', dtype: 'float32', dims: [n, q, M, L * P] },
    ],
    outputs: [{ name: 'output', dtype: 'float32', dims: [n, q, M * D] }],
  });
}

/** torchAttention's nodes and initializers written to graph `g` (model_graph.mjs's graph or scope); returns 'output'. */
export function torchAttentionChain(g, { N = 1, Lq, M, D, P, levels, shapes = 'constant', split = 'Split', miss = null }) {
  const L = levels.length;
  const dynamic = shapes === 'dynamic';
  let k = 0;
  const i64 = (values) => g.i64(`c${k++}`, [values.length], values);
  const scalar = (v) => g.i64(`c${k++}`, [], [v]);
  // Shape arithmetic as torch writes it: Shape, Gather, Mul, Unsqueeze, Slice, Concat.
  const dim = (x, i) => g.node('Gather', [g.node('Shape', [x], `${x}_shape${k++}`), scalar(i)], `${x}_dim${k++}`, { axis: 0 });
  const times = (a, b) => g.node('Mul', [a, b], `mul${k++}`);
  const vec = (s) => g.node('Unsqueeze', [s, i64([0])], `vec${k++}`);
  const slice = (x, a, b) => g.node('Slice', [g.node('Shape', [x], `${x}_shape${k++}`), i64([a]), i64([b]), i64([0])], `slice${k++}`);
  const cat = (parts) => g.node('Concat', parts, `shape${k++}`, { axis: 0 });
  const reshape = (x, target, name) => g.node('Reshape', [x, target], name);

  // attention_weights = softmax(logits, -1).view(N, Lq, M, L, P)
  const soft = g.node('Softmax', ['attention_logits'], 'attention_softmax', { axis: -1 });
  const weights = reshape(soft, i64([0, 0, M, L, P]), 'attention_weights');

  // value.split([H * W ...], dim=1) (with one more piece than levels: miss 'split')
  const sizes = miss === 'split' ? [...rows(levels), 1] : rows(levels);
  const starts = [];
  sizes.reduce((a, n) => (starts.push(a), a + n), 0);
  let pieces;
  if (split === 'Split') {
    pieces = g.node('Split', ['value', i64(sizes)], sizes.map((_, l) => `value_l${l}`), { axis: 1 });
  } else {
    const gap = miss === 'gap' ? 1 : 0;
    pieces = levels.map((_, l) => g.node('Slice', ['value', i64([starts[l] + (l ? gap : 0)]), i64([starts[l] + (l ? gap : 0) + sizes[l]]), i64([1])], `value_l${l}`));
  }
  const two = g.f32('two', [], [miss === 'scale' ? 2.5 : 2]);
  const times2 = g.node('Mul', split === 'Slice' ? [two, 'sampling_locations'] : ['sampling_locations', two], 'locations_x2');
  const grids = g.node('Sub', [times2, g.f32('one', [], [1])], 'sampling_grids');
  const [nV, mL, dV, qL, lL, pL] = dynamic
    ? [dim('value', 0), dim('sampling_locations', 2), dim('value', 3), dim('sampling_locations', 1), dim('sampling_locations', 3), dim('sampling_locations', 4)]
    : [];
  const sampled = levels.map(([h, w], l) => {
    // value_list[l].flatten(2).transpose(1, 2).reshape(N * M, D, H, W)
    const flat = reshape(pieces[l], dynamic ? cat([slice(pieces[l], 0, 2), i64([-1])]) : i64([N, h * w, -1]), `value_l${l}_flat`);
    const perm = miss === 'perm' && l === 1 ? [1, 2, 0] : [0, 2, 1];
    const t = g.node('Transpose', [flat], `value_l${l}_t`, { perm: { ints: perm } });
    const target = dynamic ? cat([vec(times(nV, mL)), vec(dV), i64([h]), i64([w])]) : i64([N * M, D, h, w]);
    const v = reshape(t, target, `value_l${l}_maps`);
    // sampling_grids[:, :, :, l].transpose(1, 2).flatten(0, 1)
    const gl = g.node('Gather', [grids, scalar(l)], `grid_l${l}_pick`, { axis: 3 });
    const gt = g.node('Transpose', [gl], `grid_l${l}_t`, { perm: { ints: [0, 2, 1, 3, 4] } });
    const grid = reshape(gt, dynamic ? cat([slice(gt, 0, 0), i64([-1]), slice(gt, 2, 5)]) : i64([-1, Lq, P, 2]), `grid_l${l}`);
    const attrs = { mode: miss === 'nearest' && l === 0 ? 'nearest' : 'bilinear', padding_mode: 'zeros', align_corners: miss === 'align' && l === L - 1 ? 1 : 0 };
    return g.node('GridSample', [v, grid], `sampled_l${l}`, attrs);
  });
  // torch.stack(samples, dim=-2).flatten(-2): Unsqueeze each, Concat, Reshape
  const order = miss === 'order' ? [1, 0, ...sampled.slice(2).map((_, i) => i + 2)] : sampled.map((_, i) => i);
  const stacked = g.node('Concat', order.map((l) => g.node('Unsqueeze', [sampled[l], i64([-2])], `sampled_l${l}_u`)), 'stacked', { axis: -2 });
  const flat = reshape(stacked, dynamic ? cat([slice(stacked, 0, 3), i64([-1])]) : i64([N * M, D, Lq, -1]), 'stacked_flat');
  // attention_weights.transpose(1, 2).reshape(N * M, 1, Lq, L * P)
  const wt = g.node('Transpose', [weights], 'attention_t', { perm: { ints: miss === 'weights' ? [0, 1, 2, 3, 4] : [0, 2, 1, 3, 4] } });
  const wTarget = dynamic ? cat([vec(times(nV, mL)), i64([1]), vec(qL), vec(times(lL, pL))]) : i64([N * M, 1, Lq, L * P]);
  const w = reshape(wt, wTarget, 'attention_heads');
  // (stacked * weights).sum(-1).view(N, M * D, Lq).transpose(1, 2)
  const summed = g.node('ReduceSum', [g.node('Mul', [flat, w], 'weighted'), i64([-1])], 'summed', { keepdims: 0 });
  const view = reshape(summed, dynamic ? cat([vec(nV), vec(times(mL, dV)), vec(qL)]) : i64([N, M * D, Lq]), 'heads_merged');
  return g.node('Transpose', [view], 'output', { perm: { ints: [0, 2, 1] } });
}

/** The near misses torchAttention writes, each a condition the fusion proves, with what it changes. */
export const MISSES = {
  perm: "level 1's value transposed [1, 2, 0] instead of [0, 2, 1]",
  align: "the last level's GridSample with align_corners 1",
  nearest: "level 0's GridSample in mode nearest",
  order: 'levels 0 and 1 stacked in swapped order',
  split: 'the value split in one more piece than there are levels',
  gap: "(split 'Slice') levels 1 and on sliced one row later than the rows before them end",
  weights: 'the attention weights not transposed before their reshape',
  scale: 'the grid 2.5 * loc - 1',
};

/**
 * mmdeploy's MMCVMultiScaleDeformableAttention node (domain 'mmdeploy') on 'value' [N, S, M, D],
 * the levels as initializers, 'sampling_locations' and 'attention_logits' (softmax, viewed as
 * [N, Lq, M, L, P]), then a Relu on onnxruntime: 'output' [N, Lq, M * D] before it is 'attended'.
 */
export function mmdeployAttention({ N, Lq, M, D, P, levels }) {
  const g = graph();
  const L = levels.length;
  const S = rows(levels).reduce((a, b) => a + b, 0);
  const starts = [];
  rows(levels).reduce((a, n) => (starts.push(a), a + n), 0);
  g.i64('spatial_shapes', [L, 2], levels.flat());
  g.i64('level_start_index', [L], starts);
  g.i64('weights_shape', [5], [0, 0, M, L, P]);
  g.node('Softmax', ['attention_logits'], 'attention_softmax', { axis: -1 });
  g.node('Reshape', ['attention_softmax', 'weights_shape'], 'attention_weights');
  const nodes = [...g.nodes, {
    op: 'MMCVMultiScaleDeformableAttention', domain: 'mmdeploy', name: 'msda',
    inputs: ['value', 'spatial_shapes', 'level_start_index', 'sampling_locations', 'attention_weights'], outputs: ['attended'], attrs: { im2col_step: 64 },
  }, { op: 'Relu', inputs: ['attended'], outputs: ['output'] }];
  return encodeModel({
    opset: 16,
    opsetImports: [{ domain: 'mmdeploy', version: 1 }],
    nodes,
    initializers: g.initializers,
    inputs: [
      { name: 'value', dtype: 'float32', dims: [N, S, M, D] },
      { name: 'sampling_locations', dtype: 'float32', dims: [N, Lq, M, L, P, 2] },
      { name: 'attention_logits', dtype: 'float32', dims: [N, Lq, M, L * P] },
    ],
    outputs: [{ name: 'output', dtype: 'float32', dims: [N, Lq, M * D] }],
  });
}
