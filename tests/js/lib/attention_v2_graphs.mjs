// Test models of RT-DETRv2's and D-FINE's deformable_attention_core_func_v2 as torch.onnx (opset 16) writes it, methods 'default' (per-level GridSample over num_points_list points) and 'discrete' (a gather at rounded pixels), with near misses for the fusion tests, and with D-FINE's whole MSDeformableAttention before it (a decoder's block).
//
// Written from D-FINE src/zoo/dfine/utils.py (deformable_attention_core_func_v2, lines 72-145 at
// 4a1f73a; the line numbers below are that file's) and its decoder's value_op (dfine_decoder.py
// lines 353-363); RT-DETRv2's rtdetrv2_pytorch/src/zoo/rtdetr/utils.py is the same function
// but lays the value out itself (permute, flatten(0, 1), split). Static shapes, as an export with constant folding writes them:
// reshape targets, torch.tensor([[w, h]]) and the arange of the discrete gather are constants.
// With `query`, the whole of D-FINE's MSDeformableAttention.forward (dfine_decoder.py at 0eb0cfe:
// its two projections, softmax and the locations from the decoder's reference boxes; it has no
// value_proj and no output_proj) before the function.
import { graph, lcg, linear, offsetBias } from './model_graph.mjs';
import { encodeModel } from './onnx_model.mjs';

/** The near misses v2Attention writes, each a condition the fusion proves, with what it changes. */
export const V2_MISSES = {
  points: 'level 0 samples the second piece of the points split and level 1 the first',
  levels: 'levels 0 and 1 concatenated in swapped order',
  rounding: '(discrete) the coordinates rounded with + 0.4, not + 0.5',
  clamp: "(discrete) level 0's coordinates clamped to h - 2, not h - 1 (the source's bound)",
};

/**
 * deformable_attention_core_func_v2 between 'value' [N, S, M, D], 'sampling_locations'
 * [N, Lq, M, sum(P), 2] and the softmax of 'attention_logits' [N, Lq, M, sum(P)], to 'output'
 * [N, Lq, M * D]. `points`: num_points_list; `levels`: [h, w] of each; `method`: 'default' or
 * 'discrete'; `value`: 'dfine' (D-FINE's decoder value_op: permute(0, 2, 3, 1).split(-1)) or
 * 'rtdetrv2' (the function's own: permute(0, 2, 3, 1).flatten(0, 1).split(-1)); `miss`: one of
 * V2_MISSES; `layers`: how many attentions read the value's split and the same inputs (outputs
 * 'output', 'output_1', ...); `query`: {dim, seed}, where the locations and logits are computed
 * from inputs 'query' [N, Lq, dim] and 'reference_points' [N, Lq, 1, 4] (boxes cx, cy, w, h in
 * [0, 1]) as D-FINE's MSDeformableAttention does (queryProjections), random weights from `seed`;
 * `alsoOutput`: values the graph also returns ({name, dims}, float32).
 */
export function v2Attention({ N, Lq, M, D, points, levels, method = 'default', value = 'dfine', miss = null, layers = 1, query = null, alsoOutput = [] }) {
  const g = graph();
  const Pt = points.reduce((a, b) => a + b, 0);
  const rows = levels.map(([h, w]) => h * w);
  const S = rows.reduce((a, b) => a + b, 0);
  let k = 0;
  const i64 = (values, dims = [values.length]) => g.i64(`c${k++}`, dims, values);
  const f32 = (values, dims = []) => g.f32(`f${k++}`, dims, values);

  // D-FINE's value_op / RT-DETRv2's value.permute(0, 2, 3, 1)[.flatten(0, 1)].split(split_shape, dim=-1)
  let heads = g.node('Transpose', ['value'], 'value_heads', { perm: { ints: [0, 2, 3, 1] } });
  if (value === 'rtdetrv2') heads = g.node('Reshape', [heads, i64([N * M, D, S])], 'value_flat');
  const pieces = g.node('Split', [heads, i64(rows)], rows.map((_, l) => `value_l${l}`), { axis: -1 });

  // One layer's attention (`layers` of them read the value's one split, as D-FINE's decoder
  // layers do), names tagged with its number after the first, its result `out`.
  const layer = (tag, out) => {
    const nm = (name) => (tag ? `${name}_${tag}` : name);
    // attention_weights = softmax(logits, -1) (the decoder's), then (lines 139-141)
    // attention_weights.permute(0, 2, 1, 3).reshape(bs * n_head, 1, Len_q, sum(num_points_list))
    const soft = g.node('Softmax', ['attention_logits'], nm('attention_weights'), { axis: -1 });
    const wt = g.node('Transpose', [soft], nm('attention_t'), { perm: { ints: [0, 2, 1, 3] } });
    const weights = g.node('Reshape', [wt, i64([N * M, 1, Lq, Pt])], nm('attention_heads'));

    // Lines 95-102: 2 * sampling_locations - 1 (default only), permute(0, 2, 1, 3, 4).flatten(0, 1),
    // split(num_points_list, dim=-2).
    let grids = 'sampling_locations';
    if (method === 'default') grids = g.node('Sub', [g.node('Mul', [grids, f32([2])], nm('locations_x2')), f32([1])], nm('sampling_grids'));
    const gt = g.node('Transpose', [grids], nm('grids_t'), { perm: { ints: [0, 2, 1, 3, 4] } });
    const gf = g.node('Reshape', [gt, i64([N * M, Lq, Pt, 2])], nm('grids_heads'));
    const parts = g.node('Split', [gf, i64(points)], points.map((_, l) => nm(`grid_l${l}`)), { axis: -2 });
    const pieceOf = (l) => (miss === 'points' && l < 2 ? 1 - l : l);
    const partOf = (l) => parts[pieceOf(l)];

    const sampled = levels.map(([h, w], l) => {
      // Line 106: value[level].reshape(bs * n_head, c, h, w)
      const v = g.node('Reshape', [pieces[l], i64([N * M, D, h, w])], nm(`value_l${l}_maps`));
      if (method === 'default') {
        // Lines 109-112: F.grid_sample(value_l, sampling_grid_l, 'bilinear', 'zeros', align_corners=False)
        return g.node('GridSample', [v, partOf(l)], nm(`sampled_l${l}`), { mode: 'bilinear', padding_mode: 'zeros', align_corners: 0 });
      }
      const P = points[pieceOf(l)];
      // Lines 116-118: (sampling_grid_l * torch.tensor([[w, h]]) + 0.5).to(torch.int64)
      const scaled = g.node('Mul', [partOf(l), f32([w, h], [1, 2])], nm(`coord_l${l}_scaled`));
      const shifted = g.node('Add', [scaled, f32([miss === 'rounding' ? 0.4 : 0.5])], nm(`coord_l${l}_shifted`));
      const truncated = g.node('Cast', [shifted], nm(`coord_l${l}_int`), { to: 7 });
      // Lines 121-122: .clamp(0, h - 1), .reshape(bs * n_head, Len_q * num_points_list[level], 2)
      const hi = miss === 'clamp' && l === 0 ? h - 2 : h - 1;
      const clamped = g.node('Clip', [truncated, i64([0], []), i64([hi], [])], nm(`coord_l${l}_clamped`));
      const coord = g.node('Reshape', [clamped, i64([N * M, Lq * P, 2])], nm(`coord_l${l}`));
      // Lines 124-128: s_idx = arange(bs * n_head).unsqueeze(-1).repeat(1, Len_q * P), folded to a constant
      const sIdx = i64(Array.from({ length: N * M * Lq * P }, (_, i) => Math.floor(i / (Lq * P))), [N * M, Lq * P]);
      // Lines 129-131: value_l[s_idx, :, coord[..., 1], coord[..., 0]], as torch.onnx's index writes
      // advanced indices at axes 0, 2, 3: Transpose them first, Flatten, one linear index
      // x + y * w + s_idx * (h * w), Gather along axis 0, Reshape to [bs * n_head, Lq * P, c].
      const x = g.node('Gather', [coord, i64([0], [])], nm(`coord_l${l}_x`), { axis: 2 });
      const y = g.node('Gather', [coord, i64([1], [])], nm(`coord_l${l}_y`), { axis: 2 });
      const flat = g.node('Flatten', [g.node('Transpose', [v], nm(`value_l${l}_hwc`), { perm: { ints: [0, 2, 3, 1] } })], nm(`value_l${l}_taps`), { axis: 3 });
      const row = g.node('Add', [x, g.node('Mul', [y, i64([w])], nm(`index_l${l}_y`))], nm(`index_l${l}_xy`));
      const index = g.node('Add', [row, g.node('Mul', [sIdx, i64([h * w])], nm(`index_l${l}_s`))], nm(`index_l${l}`));
      const taps = g.node('Gather', [flat, index], nm(`taps_l${l}`), { axis: 0 });
      const nlc = g.node('Reshape', [taps, i64([N * M, Lq * P, D])], nm(`taps_l${l}_nlc`));
      // Lines 133-135: .permute(0, 2, 1).reshape(bs * n_head, c, Len_q, num_points_list[level])
      const ncl = g.node('Transpose', [nlc], nm(`taps_l${l}_ncl`), { perm: { ints: [0, 2, 1] } });
      return g.node('Reshape', [ncl, i64([N * M, D, Lq, P])], nm(`sampled_l${l}`));
    });
    // Lines 139-145: concat(dim=-1) * attn_weights, .sum(-1).reshape(bs, n_head * c, Len_q).permute(0, 2, 1)
    const order = miss === 'levels' ? [1, 0, ...sampled.slice(2).map((_, i) => i + 2)] : sampled.map((_, i) => i);
    const stacked = g.node('Concat', order.map((l) => sampled[l]), nm('stacked'), { axis: -1 });
    const summed = g.node('ReduceSum', [g.node('Mul', [stacked, weights], nm('weighted')), i64([-1])], nm('summed'), { keepdims: 0 });
    const view = g.node('Reshape', [summed, i64([N, M * D, Lq])], nm('heads_merged'));
    g.node('Transpose', [view], out, { perm: { ints: [0, 2, 1] } });
  };
  if (query) queryProjections(g, i64, f32, { N, Lq, M, points, ...query });
  const outputs = Array.from({ length: layers }, (_, i) => (i ? `output_${i}` : 'output'));
  outputs.forEach((out, i) => layer(i, out));

  return encodeModel({
    opset: 16,
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [
      { name: 'value', dtype: 'float32', dims: [N, S, M, D] },
      ...(query ? [
        { name: 'query', dtype: 'float32', dims: [N, Lq, query.dim] },
        { name: 'reference_points', dtype: 'float32', dims: [N, Lq, 1, 4] },
      ] : [
        { name: 'sampling_locations', dtype: 'float32', dims: [N, Lq, M, Pt, 2] },
        { name: 'attention_logits', dtype: 'float32', dims: [N, Lq, M, Pt] },
      ]),
    ],
    outputs: [...outputs.map((name) => ({ name, dtype: 'float32', dims: [N, Lq, M * D] })), ...alsoOutput.map((o) => ({ ...o, dtype: 'float32' }))],
  });
}

// D-FINE's MSDeformableAttention.forward before the core function, as torch.onnx writes it (the
// decoder's reference boxes, reference_points.shape[-1] == 4): 'sampling_locations' and
// 'attention_logits' from 'query' and 'reference_points'. Weights random (the source sets both
// projections' weights to 0 at first), sampling_offsets' bias its grid_init.
function queryProjections(g, i64, f32, { N, Lq, M, points, dim, seed }) {
  const rnd = lcg(seed);
  const Pt = points.reduce((a, b) => a + b, 0);
  // sampling_offsets(query).reshape(bs, Len_q, n_heads, sum(num_points_list), 2)
  const lin = linear(g, rnd, 'cross_attn.sampling_offsets', 'query', dim, M * Pt * 2, { bias: offsetBias(M, points.length, points) });
  const offsets = g.node('Reshape', [lin, i64([N, Lq, M, Pt, 2])], 'offsets');
  // attention_weights(query).reshape(bs, Len_q, n_heads, sum(num_points_list)) (the softmax is the function's input here)
  g.node('Reshape', [linear(g, rnd, 'cross_attn.attention_weights', 'query', dim, M * Pt), i64([N, Lq, M, Pt])], 'attention_logits');
  // offset = sampling_offsets * num_points_scale.unsqueeze(-1) * reference_points[:, :, None, :, 2:] * offset_scale
  // sampling_locations = reference_points[:, :, None, :, :2] + offset
  const boxes = g.node('Unsqueeze', ['reference_points', i64([2])], 'reference_boxes');
  const part = (from, to, name) => g.node('Slice', [boxes, i64([from]), i64([to]), i64([4])], name);
  const scale = f32(points.flatMap((n) => Array(n).fill(1 / n)), [Pt, 1]);
  let offset = g.node('Mul', [offsets, scale], 'offsets_per_point');
  offset = g.node('Mul', [offset, part(2, 4, 'reference_wh')], 'offsets_by_box');
  offset = g.node('Mul', [offset, f32([0.5])], 'offsets_scaled');
  g.node('Add', [part(0, 2, 'reference_xy'), offset], 'sampling_locations');
}
