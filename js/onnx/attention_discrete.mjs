// RT-DETRv2's and D-FINE's deformable_attention_core_func_v2 method 'discrete' as onnx/fuse_attention.mjs finds and proves it: per level, the locations of its points rounded to pixels ((loc * [w, h] + 0.5) to int64, clamped to [0, h - 1]) and the value gathered there (torch.onnx's index: one linear index x + y * w + s_idx * h * w into the level's [N * M * H * W, D]).
//
// The rounding steps on the locations' views ('loc' at `step` 0, then 'scaled', 'shifted',
// 'truncated', 'clamped', holding the constants they used); the index arithmetic as a sum of
// terms { coord (a view of one coordinate) | rows (the s_idx constant), coef }.
import { attr, constant, producedBy } from './graph_reading.mjs';
import { levelOf } from './attention_steps.mjs';
import { levelPoints } from './attention_points.mjs';
import { canon, concrete, int, mismatch, mul } from './layout_views.mjs';

const LAYOUT = ['Transpose', 'Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'Identity'];

/**
 * The nodes from a gather (`tap`, Gather along axis 0 by a computed index) back to the
 * locations: { nodes, loc, pointSplit (node index or -1) }, or a string where it is not the
 * discrete sampling.
 */
export function tapChain(g, tap) {
  const nodes = [];
  const coords = new Set();
  const visit = (name) => {
    const p = producedBy(g, name, ['Add', 'Mul', 'Gather']);
    if (!p || constant(g, name)) return;
    if (p.node.opType === 'Gather') {
      // A coordinate: the rounded coordinates picked at a constant index (a Gather of a Shape is
      // a multiplier the proof reads as a shape value).
      if (producedBy(g, p.node.input[0], ['Shape']) || !constant(g, p.node.input[1])) return;
      nodes.push(p.index);
      coords.add(p.node.input[0]);
      return;
    }
    nodes.push(p.index);
    p.node.input.forEach(visit);
  };
  visit(tap.node.input[1]);
  if (coords.size !== 1) return 'a gather whose index is not of one tensor of rounded coordinates';
  // The rounding: Mul, Add, Cast, Clip and layout ops on the non-constant input, then the
  // locations' layout and split into the levels' points.
  let name = [...coords][0];
  const rounding = ['Mul', 'Add', 'Cast', 'Clip'];
  let seen = 0;
  for (let p = producedBy(g, name, [...LAYOUT, ...rounding, 'Split']); p; p = producedBy(g, name, [...LAYOUT, ...rounding, 'Split'])) {
    if (rounding.includes(p.node.opType)) {
      if (seen >= rounding.length) break;
      seen += 1;
    }
    const k = ['Mul', 'Add'].includes(p.node.opType) && constant(g, p.node.input[0]) ? 1 : 0;
    nodes.push(p.index);
    name = p.node.input[k];
  }
  const pointSplit = nodes.find((i) => g.graph.node[i].opType === 'Split') ?? -1;
  return { nodes, loc: name, pointSplit };
}

// The locations' next rounding step: [Mul by [w, h], Add, Cast, Clip] and the step each makes.
const STEPS = { Mul: [0, 'scaled'], Add: ['scaled', 'shifted'], Cast: ['shifted', 'truncated'], Clip: ['truncated', 'clamped'] };

/** Mul, Add, Cast or Clip of the discrete form: a rounding step or the index arithmetic. */
export function discreteStep(g, node, views, shapeInts) {
  const at = node.input.map((n) => views.get(n));
  const loc = at.find((v) => v?.src === 'loc');
  if (!loc || loc.step === 'clamped') return indexTerms(g, node, at, shapeInts);
  const [from, to] = STEPS[node.opType] ?? [];
  if (loc.step !== from) throw mismatch(`${node.opType} ${node.name} on the locations after step ${loc.step}: not (loc * [w, h] + 0.5) to int64, clamped`);
  const other = node.input.find((n, i) => at[i] !== loc);
  const c = other ? constant(g, other) : null;
  const coordAxis = loc.dims.at(-1).filter((p) => concrete(p.n) !== 1);
  const onCoords = coordAxis.length === 1 && concrete(coordAxis[0].n) === 2 && concrete(coordAxis[0].st) === 1;
  switch (node.opType) {
    case 'Mul':
      if (!onCoords || !c || c.type !== 'float32' || c.data.length !== 2 || c.dims.length > loc.dims.length || c.dims.at(-1) !== 2) throw mismatch(`Mul ${node.name}: not the locations times one [w, h]`);
      return { ...loc, step: to, scale: Array.from(c.data, Number) };
    case 'Add':
      if (!c || c.type !== 'float32' || c.data.length !== 1 || c.dims.length > loc.dims.length || Number(c.data[0]) !== 0.5) throw mismatch(`Add ${node.name}: the coordinates rounded with other than + 0.5`);
      return { ...loc, step: to };
    case 'Cast':
      if (attr(node, 'to') !== 7) throw mismatch(`Cast ${node.name}: not the truncation to int64`);
      return { ...loc, step: to };
    default: {
      const [lo, hi] = [1, 2].map((k) => (node.input[k] ? constant(g, node.input[k]) : null));
      if (!lo || !hi || lo.type !== 'int64' || hi.type !== 'int64' || lo.data.length !== 1 || hi.data.length !== 1) throw mismatch(`Clip ${node.name} without constant int64 bounds`);
      return { ...loc, step: to, clamp: [Number(lo.data[0]), Number(hi.data[0])] };
    }
  }
}

// Add and Mul of the index: { src: 'index', terms }.
function indexTerms(g, node, at, shapeInts) {
  const termsOf = (name, v) => {
    if (v?.src === 'index') return v.terms;
    if (v?.src === 'loc') return [{ coord: v, coef: 1 }];
    const c = constant(g, name);
    if (c && c.dims.length === 2 && ['int64', 'int32'].includes(c.type)) return [{ rows: c, coef: 1 }];
    return null;
  };
  const [a, b] = node.input.map((n, i) => termsOf(n, at[i]));
  if (node.opType === 'Add' && a && b) return { src: 'index', terms: [...a, ...b] };
  if (node.opType === 'Mul' && (a || b) && !(a && b)) {
    // One integer, of no more axes than the index (a broadcast must not add any).
    const factor = shapeInts(a ? 1 : 0);
    if (factor.length !== 1 || (constant(g, node.input[a ? 1 : 0])?.dims.length ?? 0) > 1) throw mismatch(`Mul ${node.name} of the index by other than one integer`);
    return { src: 'index', terms: (a ?? b).map((t) => ({ ...t, coef: t.coef * factor[0] })) };
  }
  throw mismatch(`${node.opType} ${node.name}: not the gather's index x + y * w + s_idx * h * w`);
}

/**
 * The gather of level k: its data the level's rows as [N * M * H * W, D], its index
 * x + y * W + s_idx * H * W of level k's points rounded with [W, H], + 0.5, to int64 and clamped
 * to [0, H - 1] (the source's bound) where W >= H; its result T at level k's points as
 * [N * M, Lq * P_k, D].
 */
export function tap(node, views, slices, points, spatial, d) {
  const index = views.get(node.input[1]);
  if (attr(node, 'axis', 0) !== 0 || index?.src !== 'index') throw mismatch(`Gather ${node.name}: not along axis 0 by the rounded coordinates`);
  const coord = index.terms.find((t) => t.coord)?.coord;
  if (!coord?.scale || !coord.clamp || coord.step !== 'clamped') throw mismatch(`Gather ${node.name}: an index of coordinates not rounded and clamped`);
  const [W, H] = coord.scale;
  if (!Number.isInteger(W) || !Number.isInteger(H) || W < 1 || H < 1) throw mismatch(`Gather ${node.name}: coordinates scaled by [${coord.scale}], not a level's [w, h]`);
  const rowsOf = (start) => ({ src: 'value', offset: mul(int(start), d.sS), dims: [[{ n: d.N, st: d.sN }, { n: d.M, st: d.sM }, { n: int(H), st: mul(int(W), d.sS) }, { n: int(W), st: d.sS }], [{ n: d.D, st: int(1) }]] });
  const { k } = levelOf(views.get(node.input[0]), `Gather ${node.name}: its data`, slices, d, rowsOf, () => [H, W]);
  if (coord.clamp[0] !== 0 || coord.clamp[1] !== H - 1) throw mismatch(`Gather ${node.name}: coordinates clamped to [${coord.clamp}], not [0, h - 1] as the source`);
  if (W < H) throw mismatch(`Gather ${node.name}: level ${k} is ${H} x ${W}, narrower than high (the chain's columns run past its rows)`);
  const piece = points[k];
  const [NM, LqP] = [mul(d.N, d.M), mul(d.Lq, int(piece?.n ?? 0))].map(concrete);
  if (!piece || NM === null || LqP === null) throw mismatch(`Gather ${node.name}: the batch, heads and queries are not constants (s_idx is one)`);
  const pick = (c) => ({ ...levelPoints(d, piece, 'clamped'), offset: int(2 * piece.start + c), dims: [[{ n: d.N, st: d.lN }, { n: d.M, st: d.lM }], [{ n: d.Lq, st: d.lQ }, { n: int(piece.n), st: int(2) }]] });
  const want = [[pick(0), 1], [pick(1), W]];
  const terms = index.terms.slice();
  for (const [view, coef] of want) {
    const at = terms.findIndex((t) => t.coord && t.coef === coef && canon(t.coord) === canon(view) && t.coord.step === 'clamped' && t.coord.scale === coord.scale);
    if (at < 0) throw mismatch(`Gather ${node.name}: the index is not x + y * ${W} of level ${k}'s points`);
    terms.splice(at, 1);
  }
  const rows = terms.length === 1 && terms[0].rows && terms[0].coef === H * W ? terms[0].rows : null;
  if (!rows || rows.dims[0] !== NM || rows.dims[1] !== LqP || Array.from(rows.data, Number).some((v, i) => v !== Math.floor(i / LqP))) {
    throw mismatch(`Gather ${node.name}: the index does not add s_idx * ${H * W} (s_idx[i, j] = i, [N * M, Lq * P])`);
  }
  spatial[k] = [H, W];
  return { src: 'T', offset: int(piece.start), dims: [[{ n: d.N, st: d.tN }, { n: d.M, st: d.tM }], [{ n: d.Lq, st: d.tQ }, { n: int(piece.n), st: int(1) }], [{ n: d.D, st: d.tD }]] };
}
