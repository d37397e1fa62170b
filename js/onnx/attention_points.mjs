// The steps of RT-DETRv2's and D-FINE's deformable_attention_core_func_v2 (points per level, num_points_list) as onnx/fuse_attention.mjs proves them on views: the split of the locations into each level's points, each level's GridSample of its points, the concat of the levels along the points.
//
// The virtual tensors: 'loc' [N, Lq, M, Pt, 2] (Pt = the sum of the points of all levels; `step`
// as in onnx/attention_steps.mjs), 'attn' [N, Lq, M, Pt], the samples T [N, M, D, Lq, Pt].
import { attr } from './graph_reading.mjs';
import { samplerLevel } from './attention_steps.mjs';
import { canon, concrete, dimSize, int, isOne, mismatch, narrow, same } from './layout_views.mjs';

// Split of the locations [.., Pt, 2] along their points: each output a level's points, in order.
export function splitPoints(node, v, ints, points, views) {
  if (v.src !== 'loc' || points.length) throw mismatch(`Split ${node.name} of the locations, not their one split into levels' points`);
  const axis = attr(node, 'axis', 0);
  const a = axis < 0 ? axis + v.dims.length : axis;
  const dim = (v.dims[a] ?? []).filter((p) => !isOne(p.n));
  if (dim.length !== 1 || !same(dim[0].st, int(2))) throw mismatch(`Split ${node.name} along axis ${axis}, not the locations' points`);
  const sizes = node.input[1] ? ints(1) : attr(node, 'split');
  if (!sizes || sizes.length !== node.output.length) throw mismatch(`Split ${node.name} without one constant size per output`);
  const total = sizes.reduce((x, y) => x + y, 0);
  if (concrete(dimSize(v.dims[a])) !== total) throw mismatch(`Split ${node.name} sizes sum to ${total}, not the locations' points`);
  let start = 0;
  sizes.forEach((n, k) => {
    views.set(node.output[k], narrow(v, a, int(start), int(n)));
    points.push({ start, n });
    start += n;
  });
}

// The locations of level k's points (the k-th piece of the points split) as [N * M, Lq, P_k, 2],
// at `step`.
export const levelPoints = (d, piece, step) => ({
  src: 'loc', step, offset: int(2 * piece.start),
  dims: [[{ n: d.N, st: d.lN }, { n: d.M, st: d.lM }], [{ n: d.Lq, st: d.lQ }], [{ n: int(piece.n), st: int(2) }], [{ n: int(2), st: int(1) }]],
});

// Level k's samples [N * M, D, Lq, P_k]: T at level k's points.
export const levelSamples = (d, piece) => ({
  src: 'T', offset: int(piece.start),
  dims: [[{ n: d.N, st: d.tN }, { n: d.M, st: d.tM }], [{ n: d.D, st: d.tD }], [{ n: d.Lq, st: d.tQ }], [{ n: int(piece.n), st: int(1) }]],
});

// GridSample of level k over its own points: X the level's rows as [N * M, D, H, W], the grid
// the k-th piece of the points split of 2 * locations - 1; its result is T at those points.
export function samplePoints(node, views, slices, points, spatial, opset, d) {
  const { k, H, W, grid } = samplerLevel(node, views, slices, opset, d);
  if (!points[k] || !grid || grid.step !== 2 || canon(grid) !== canon(levelPoints(d, points[k], 2))) {
    throw mismatch(`GridSample ${node.name}: the grid is not 2 * locations - 1 of level ${k}'s points (piece ${k} of the points split) as [N * M, Lq, P, 2]`);
  }
  spatial[k] = [H, W];
  return levelSamples(d, points[k]);
}

// Concat of the levels' samples along their points, in level order: T [N * M, D, Lq, Pt].
export function stackPoints(node, views) {
  const parts = node.input.map((n) => views.get(n));
  if (parts.some((p) => !p || p.src !== 'T')) throw mismatch(`Concat ${node.name} of other than the levels' samples`);
  const rank = parts[0].dims.length;
  const axis = attr(node, 'axis');
  const a = axis < 0 ? axis + rank : axis;
  // Each input the points after the previous input's (the first from point 0), T's layout else.
  let n = 0;
  for (const [k, p] of parts.entries()) {
    const dim = p.dims[a]?.filter((q) => !isOne(q.n)) ?? [];
    const size = dim.length === 1 && same(dim[0].st, int(1)) ? concrete(dim[0].n) : null;
    if (size === null) throw mismatch(`Concat ${node.name} along axis ${axis}, not the points`);
    const want = { ...parts[0], offset: int(n), dims: parts[0].dims.map((x, i) => (i === a ? dim : x)) };
    if (canon(p) !== canon(want)) throw mismatch(`Concat ${node.name}: input ${k + 1} is not the points after input ${k}'s`);
    n += size;
  }
  const dims = parts[0].dims.slice();
  dims[a] = [{ n: int(n), st: int(1) }];
  return { src: 'T', offset: int(0), dims };
}
