// The steps of the attention chain as onnx/fuse_attention.mjs proves them on views (onnx/layout_views.mjs): the value's levels (Split / Slice), 2 * loc - 1, each level's GridSample, the stack of levels, the Mul by the weights and the ReduceSum, each checked against what the fused node computes.
//
// The virtual tensors the views read: 'value' [N, S, M, D], 'loc' [N, Lq, M, L, P, 2] (with
// `step`: 0, then 1 after * 2, 2 after - 1), 'attn' [N, Lq, M, L, P], the samples T [N, M, D,
// Lq, L, P], the weighted samples U (T's layout) and their sums Y [N, M, D, Lq].
import { MODE_KIND } from '../core/modes.mjs';
import { attr, scalarFloat } from './graph_reading.mjs';
import { canon, concrete, dimSize, div, int, isOne, mismatch, mul, narrow, Need, same, withDims } from './layout_views.mjs';
import { operatorVersion, ourAttributes } from './our_nodes.mjs';

// Split / Slice of the value along its rows (an axis of the view that is the value's rows alone,
// stride `sS`: axis 1 of the value, or the last after RT-DETRv2's and D-FINE's permute(0, 2, 3, 1)):
// each output a level's rows.
export function splitLevels(node, v, ints, slices, views, bound, sS) {
  if (v.src !== 'value') throw mismatch(`${node.opType} ${node.name} of something other than the value`);
  const rowsAxis = (axis) => {
    const a = axis < 0 ? axis + v.dims.length : axis;
    const dim = (v.dims[a] ?? []).filter((p) => !isOne(p.n));
    if (dim.length !== 1 || !same(dim[0].st, sS)) throw mismatch(`${node.opType} ${node.name} along axis ${axis}, not the value's rows`);
    return a;
  };
  if (node.opType === 'Split') {
    const axis = rowsAxis(attr(node, 'axis', 0));
    const sizes = node.input[1] ? ints(1) : attr(node, 'split');
    if (!sizes || sizes.length !== node.output.length) throw mismatch(`Split ${node.name} without one constant size per output`);
    const total = sizes.reduce((a, b) => a + b, 0);
    const S = concrete(dimSize(v.dims[axis]));
    if (S === null) throw new Need('S', [total]);
    if (S !== total) throw mismatch(`Split ${node.name} sizes sum to ${total}, the value has ${S} rows`);
    let start = 0;
    sizes.forEach((n, k) => {
      views.set(node.output[k], narrow(v, axis, int(start), int(n)));
      slices.push({ name: node.output[k], start, n });
      start += n;
    });
    return;
  }
  const [starts, ends] = [ints(1), ints(2)];
  const axes = node.input[3] ? ints(3) : [0];
  const steps = node.input[4] ? ints(4) : [1];
  if (starts.length !== 1 || steps[0] !== 1 || starts[0] < 0 || ends[0] <= starts[0]) {
    throw mismatch(`Slice ${node.name} that is not one run of the value's rows`);
  }
  const axis = rowsAxis(axes[0]);
  const S = concrete(dimSize(v.dims[axis]));
  const end = S === null ? ends[0] : Math.min(ends[0], S);
  if (S === null && !bound.has('S') && end > 2 ** 31) throw mismatch(`Slice ${node.name} to the end of rows of unknown count`);
  views.set(node.output[0], narrow(v, axis, int(starts[0]), int(end - starts[0])));
  slices.push({ name: node.output[0], start: starts[0], n: end - starts[0] });
}

// 2 * loc - 1 on the locations: Mul by 2, then Sub 1 (or Add -1); nothing else.
export function affine(g, node, views) {
  const k = ['Mul', 'Add'].includes(node.opType) && !views.has(node.input[0]) ? 1 : 0;
  const v = views.get(node.input[k]);
  const c = scalarFloat(g, node.input[1 - k]);
  if (!v || v.src !== 'loc' || !c || c.rank > v.dims.length) throw mismatch(`${node.opType} ${node.name} on the locations by other than a scalar`);
  const next = { Mul: [0, 2, 1], Sub: [1, 1, 2], Add: [1, -1, 2] }[node.opType];
  if (!next || v.step !== next[0] || c.value !== next[1]) throw mismatch(`${node.opType} ${node.name} by ${c.value}: the grid is not 2 * locations - 1`);
  return { ...v, step: next[2] };
}

// The level GridSample `node` samples, checked: bilinear, zeros, align_corners 0, X one level's
// rows as [N * M, D, H, W]; { k (the level's place in row order), H, W, grid (its view) }.
export function samplerLevel(node, views, slices, opset, d) {
  const a = ourAttributes(node, operatorVersion('GridSample', opset), node.name);
  if (MODE_KIND[a.mode] !== 'linear' || a.paddingMode !== 'zeros' || a.alignCorners) {
    throw mismatch(`GridSample ${node.name} is ${a.mode} / ${a.paddingMode} / align_corners ${Number(a.alignCorners)}, the attention samples bilinear / zeros / 0`);
  }
  const [x, grid] = node.input.map((n) => views.get(n));
  if (x?.dims.length !== 4) throw mismatch(`GridSample ${node.name}: X is not a 4-D view of the value`);
  const { k, H, W } = levelOf(x, `GridSample ${node.name}: X`, slices, d, (start, h, w) => expectedX(d, start, h, w));
  return { k, H, W, grid };
}

// The level whose rows `x` is (of height and width `hw(x)`, by default x's axes 2 and 3) as
// `expected(start, H, W)` lays them out: { k, H, W }.
export function levelOf(x, what, slices, d, expected, hw = (v) => [2, 3].map((i) => concrete(dimSize(v.dims[i])))) {
  if (!x || x.src !== 'value') throw mismatch(`${what} is not a view of the value`);
  const [H, W] = hw(x);
  if (H === null || W === null) throw mismatch(`${what}: the level's height and width are not constants`);
  const level = slices.findIndex((sl) => sl.n === H * W && canon(x) === canon(expected(sl.start, H, W)));
  if (level < 0) throw mismatch(`${what} is not one level's rows laid out as the chain needs`);
  const ordered = [...slices].sort((p, q) => p.start - q.start);
  return { k: ordered.indexOf(slices[level]), H, W };
}

// GridSample of level k: X the level's rows as [N * M, D, H, W], the grid the level's
// locations as [N * M, Lq, P, 2], bilinear, zeros, align_corners 0; its result is T's level k.
export function sample(node, views, slices, spatial, opset, d) {
  const { k, H, W, grid } = samplerLevel(node, views, slices, opset, d);
  const want = { src: 'loc', step: 2, offset: mul(int(k), d.lL), dims: [[{ n: d.N, st: d.lN }, { n: d.M, st: d.lM }], [{ n: d.Lq, st: d.lQ }], [{ n: d.P, st: int(2) }], [{ n: int(2), st: int(1) }]] };
  if (!grid || grid.step !== 2 || canon(grid) !== canon(want)) throw mismatch(`GridSample ${node.name}: the grid is not level ${k}'s 2 * locations - 1 as [N * M, Lq, P, 2]`);
  spatial[k] = [H, W];
  return { src: 'T', offset: mul(int(k), d.tL), dims: [[{ n: d.N, st: d.tN }, { n: d.M, st: d.tM }], [{ n: d.D, st: d.tD }], [{ n: d.Lq, st: d.tQ }], [{ n: d.P, st: int(1) }]] };
}

// The value's rows of the level starting at `start`, as GridSample's X [N * M, D, H, W].
export function expectedX(d, start, H, W) {
  return { src: 'value', offset: mul(int(start), d.sS), dims: [[{ n: d.N, st: d.sN }, { n: d.M, st: d.sM }], [{ n: d.D, st: int(1) }], [{ n: int(H), st: mul(int(W), d.sS) }], [{ n: int(W), st: d.sS }]] };
}

// Concat of the levels in order along one axis (new, from Unsqueeze, or the points').
export function stack(node, views, tL) {
  const parts = node.input.map((n) => views.get(n));
  if (parts.some((p) => !p || p.src !== 'T')) throw mismatch(`Concat ${node.name} of other than the levels' samples`);
  const axis = attr(node, 'axis');
  const rank = parts[0].dims.length;
  const a = axis < 0 ? axis + rank : axis;
  parts.forEach((p, k) => {
    if (canon(p) !== canon({ ...parts[0], offset: mul(int(k), tL) })) throw mismatch(`Concat ${node.name}: input ${k + 1} is not level ${k} laid out as level 0`);
  });
  const dims = parts[0].dims.slice();
  dims[a] = [{ n: int(parts.length), st: tL }, ...dims[a]];
  return { src: 'T', offset: int(0), dims };
}

// Mul of the stacked samples [N * M, D, Lq, L * P] by the weights [N * M, 1, Lq, L * P].
export function weigh(node, views, d) {
  const [a, b] = node.input.map((n) => views.get(n));
  const [t, w] = a?.src === 'T' ? [a, b] : [b, a];
  const pairs = (st) => [[{ n: d.N, st: st[0] }, { n: d.M, st: st[1] }], [], [{ n: d.Lq, st: st[2] }], [{ n: int(d.L), st: st[3] }, { n: d.P, st: int(1) }]];
  const wantT = { src: 'T', offset: int(0), dims: pairs([d.tN, d.tM, d.tQ, d.tL]) };
  wantT.dims[1] = [{ n: d.D, st: d.tD }];
  if (!t || t.src !== 'T' || canon(t) !== canon(wantT)) throw mismatch(`Mul ${node.name}: the samples are not [N * M, D, Lq, L * P]`);
  if (!w || w.src !== 'attn' || canon(w) !== canon({ src: 'attn', offset: int(0), dims: pairs([d.aN, d.aM, d.aQ, d.aL]) })) {
    throw mismatch(`Mul ${node.name}: the attention weights are not [N * M, 1, Lq, L * P] of [N, Lq, M, L, P]`);
  }
  return { ...t, src: 'U' };
}

// ReduceSum over the levels and points of the weighted samples: Y[n, m, d, q].
export function reduce(g, node, v, ints, L, P) {
  if (v.src !== 'U') throw mismatch(`ReduceSum ${node.name} of other than the weighted samples`);
  const axes = (node.input[1] ? ints(1) : attr(node, 'axes')) ?? [];
  const rank = v.dims.length;
  const at = new Set(axes.map((x) => (x < 0 ? x + rank : x)));
  // The reduced axes together, outer first: exactly the levels and points, in that order.
  const summed = withDims(v, [v.dims.filter((_, i) => at.has(i)).flat()]);
  const lp = mul(int(L), P);
  if (!at.size || canon({ ...summed, offset: int(0) }) !== canon({ src: 'U', offset: int(0), dims: [[{ n: lp, st: int(1) }]] })) {
    throw mismatch(`ReduceSum ${node.name} over axes [${axes}], not the levels and points`);
  }
  const keep = attr(node, 'keepdims', 1) !== 0;
  const dims = v.dims.flatMap((dim, i) => (at.has(i) ? (keep ? [[]] : []) : [dim.map((p) => ({ n: p.n, st: divide(p.st, lp) }))]));
  return { src: 'Y', offset: int(0), dims };
}

function divide(a, b) {
  const q = div(a, b);
  if (!q) throw mismatch('a stride that does not divide');
  return q;
}

