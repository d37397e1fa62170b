// Finds multi-scale deformable attention in a model's main graph (the chains exporters write: per-level GridSample, stack, Mul, ReduceSum; DESIGN.md section 12; and RT-DETRv2's and D-FINE's v2 form, each level's points split from the locations) and proves each one equal to the fused node, which then replaces it; a chain it cannot prove stays as it was.
import { discreteStep, tap, tapChain } from './attention_discrete.mjs';
import { locationSteps } from './attention_prologue.mjs';
import { samplePoints, splitPoints, stackPoints } from './attention_points.mjs';
import { affine, reduce, sample, splitLevels, stack, weigh } from './attention_steps.mjs';
import { quote } from './errors.mjs';
import { attr, constant, graphIndex, knownDims, producedBy, scalarFloat, shapeValue } from './graph_reading.mjs';
import {
  canon, concrete, contiguous, dimSize, flatten, int, Mismatch, mismatch, mul, Need, pick, reshape, reshapeTarget,
  show, squeeze, strides, sym, transpose, unsqueeze,
} from './layout_views.mjs';
import { isDefaultDomain } from './our_nodes.mjs';

/** The fused node's operator: gridsample's own, never written to a model. */
export const FUSED_OP = 'MultiScaleDeformableAttention';

const LAYOUT = ['Transpose', 'Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'Identity'];
// The dimensions of the fused node's inputs, by role; attention weights may hold L * P in one.
// RT-DETRv2's and D-FINE's v2 form holds each level's points together: Pt points in all.
const ROLES = {
  value: ['N', 'S', 'M', 'D'], loc: ['N', 'Lq', 'M', 'L', 'P', 'two'], attn5: ['N', 'Lq', 'M', 'L', 'P'], attn4: ['N', 'Lq', 'M', 'LP'],
  locPoints: ['N', 'Lq', 'M', 'Pt', 'two'], attnPoints: ['N', 'Lq', 'M', 'Pt'],
};

// Walks back from `name` through nodes of `ops` (one input followed each: the first); returns
// the values passed, nearest first, and the nodes.
function walkBack(g, name, ops, follow = () => 0) {
  const values = [name];
  const nodes = [];
  for (let p = producedBy(g, name, ops); p; p = producedBy(g, values.at(-1), ops)) {
    const k = follow(p.node);
    if (k < 0) break;
    nodes.push(p.index);
    values.push(p.node.input[k]);
  }
  return { values, nodes };
}

// The input of a binary elementwise node that is not a constant scalar, or -1.
const dataInput = (g) => (node) => {
  if (!['Mul', 'Add', 'Sub', 'Div'].includes(node.opType)) return 0;
  return scalarFloat(g, node.input[1]) ? 0 : scalarFloat(g, node.input[0]) && node.opType !== 'Sub' && node.opType !== 'Div' ? 1 : -1;
};

// The structure around a Concat of GridSample results (directly or each through an Unsqueeze):
// the nodes the chain would hold, and the fused node's candidate inputs and outputs; null where
// the Concat is not of that kind, a string where the chain is not complete.
function structure(g, concatIndex) {
  const concat = g.graph.node[concatIndex];
  // A level's GridSample (then perhaps an Unsqueeze), or the discrete form's Gather by a computed
  // index (then layout ops).
  const samplers = concat.input.map((name) => {
    const u = producedBy(g, name, ['Unsqueeze']);
    const gs = producedBy(g, u ? u.node.input[0] : name, ['GridSample']);
    if (gs) return { gs, after: u ? [u.index] : [] };
    const after = walkBack(g, name, LAYOUT);
    // (Only a gather of a slice of one value: a Concat of other lookups is no attention.)
    const t = producedBy(g, after.values.at(-1), ['Gather']);
    const sliced = t && producedBy(g, walkBack(g, t.node.input[0], LAYOUT).values.at(-1), ['Split', 'Slice']);
    return sliced && !constant(g, t.node.input[1]) && { gs: t, after: after.nodes, discrete: true };
  });
  if (!samplers.length || samplers.some((s) => !s) || new Set(samplers.map((s) => !!s.discrete)).size !== 1) return null;
  const nodes = new Set([concatIndex]);
  const values = [];
  const locs = [];
  const points = new Set();
  let valueChain;
  // The value's split (and layout before it) is proven with the chain but goes with the block
  // only where nothing else reads it (D-FINE's decoder splits the value once for all its layers).
  const splits = new Set();
  for (const { gs, after, discrete } of samplers) {
    nodes.add(gs.index);
    after.forEach((i) => nodes.add(i));
    const x = walkBack(g, gs.node.input[0], [...LAYOUT, 'Split', 'Slice'], (n) => (n.opType === 'Split' || n.opType === 'Slice' ? (values.push(n.input[0]), -1) : 0));
    const split = producedBy(g, x.values.at(-1), ['Split', 'Slice']);
    if (!split) return 'a GridSample input X that is not a slice of one value (Split or Slice along its rows)';
    x.nodes.forEach((i) => nodes.add(i));
    splits.add(split.index);
    // The value may be laid out before its split (RT-DETRv2's and D-FINE's permute(0, 2, 3, 1)):
    // each value those layout ops pass is a candidate, nearest first.
    valueChain = walkBack(g, split.node.input[0], LAYOUT);
    if (discrete) {
      const chain = tapChain(g, gs);
      if (typeof chain === 'string') return chain;
      chain.nodes.forEach((i) => nodes.add(i));
      points.add(chain.pointSplit);
      locs.push(chain.loc);
      continue;
    }
    // The locations may be split into each level's points (the v2 form's num_points_list).
    const grid = walkBack(g, gs.node.input[1], [...LAYOUT, 'Split', 'Gather', 'Mul', 'Sub', 'Add', 'Div'], dataInput(g));
    const pointSplit = grid.nodes.find((i) => g.graph.node[i].opType === 'Split');
    points.add(pointSplit ?? -1);
    // The locations are what 2 * loc - 1 is computed from: the input of the earliest Mul by 2.
    const at = grid.nodes.findLastIndex((i) => g.graph.node[i].opType === 'Mul');
    if (at < 0) return 'a grid that is not 2 * locations - 1';
    grid.nodes.slice(0, at + 1).forEach((i) => nodes.add(i));
    locs.push(grid.values[at + 1]);
  }
  if (new Set(values).size !== 1) return 'levels that slice different values';
  if (new Set(locs).size !== 1) return 'levels that sample different locations';
  if (points.size !== 1) return 'levels that split their locations differently';
  // Forward: layout ops, the Mul by the attention weights, ReduceSum, layout ops.
  const forward = [];
  let name = concat.output[0];
  let mulIndex = -1;
  const outs = [];
  for (;;) {
    // Shape nodes read only the dimensions (of reshape targets): they go with the chain.
    const readers = (g.consumers.get(name) ?? []).filter((i) => g.graph.node[i].opType !== 'Shape');
    if (readers.length !== 1 || g.outputs.has(name)) break;
    const node = g.graph.node[readers[0]];
    if (!isDefaultDomain(node.domain)) break;
    const reduced = forward.some((i) => g.graph.node[i].opType === 'ReduceSum');
    const ok = LAYOUT.includes(node.opType) ? node.input[0] === name : (node.opType === 'Mul' && mulIndex < 0) || (node.opType === 'ReduceSum' && mulIndex >= 0 && !reduced);
    if (!ok) break;
    if (node.opType === 'Mul') mulIndex = readers[0];
    forward.push(readers[0]);
    name = node.output[0];
    if (forward.some((i) => g.graph.node[i].opType === 'ReduceSum')) outs.push({ name, upTo: forward.length });
  }
  if (mulIndex < 0 || !outs.length) return 'no Mul by the attention weights and ReduceSum after the stacked samples';
  const mulNode = g.graph.node[mulIndex];
  const attn = walkBack(g, mulNode.input[isOnPath(g, mulNode.input[0], concat.output[0], forward) ? 1 : 0], LAYOUT);
  const pointSplit = [...points][0];
  const discrete = samplers[0].discrete === true;
  if (discrete && pointSplit < 0) return 'a discrete sampling without the locations split into levels\' points';
  return { nodes, splits: [...splits], forward, outs, valueChain, loc: locs[0], attn, samplers, concatIndex, pointSplit: pointSplit < 0 ? null : pointSplit, discrete };
}

// Whether value `v` is the Concat's output or one of the forward nodes' outputs.
const isOnPath = (g, v, start, forward) => v === start || forward.some((i) => g.graph.node[i].output.includes(v));

/**
 * The chains of `graph` proven equal to the fused node: { blocks: [{ index (of the chain's
 * last node), inputs: [value, samplingLocations (or their offsets), attentionWeights, ...the
 * locationSteps' operands], output, replaced (node indices), spatialShapes, levelStartIndex
 * (BigInt64Arrays), dims (the roles of the inputs' axes: value, loc, attn), bound (role -> the
 * size the chain's constant reshapes fix, checked at every run by onnx/fused_arguments.mjs),
 * locationSteps (onnx/attention_prologue.mjs; where `prologue` and found) }], notFused: [{ near,
 * why }] }. `types(name)`: a value's element type where known.
 */
export function findAttention(graph, { model, opset, types, prologue = true }) {
  const g = graphIndex(graph, model);
  const blocks = [];
  const notFused = [];
  graph.node.forEach((node, index) => {
    if (!isDefaultDomain(node.domain) || node.opType !== 'Concat') return;
    const s = structure(g, index);
    if (s === null) return;
    const near = `node ${quote(node.name || node.output[0])} (Concat)`;
    const found = typeof s === 'string' ? { why: s } : prove(g, s, opset, types, prologue);
    if (found.why) notFused.push({ near, why: found.why });
    else blocks.push(found);
  });
  return { blocks, notFused };
}

// Tries the candidate value sources (nearest first), attention-weight sources (farthest first)
// and, for each, the bindings of free dimensions the proof asks for; the first that proves wins.
// The v2 form (a points split) has Pt, the points of all levels, from its split's sizes.
function prove(g, s, opset, types, prologue) {
  const Pt = s.pointSplit === null ? null : pointTotal(g, s.pointSplit);
  if (Pt === 0) return { why: 'a split of the locations into points without constant sizes' };
  // The reason of the farthest candidate value that may be the value (no proof with it failed
  // for its shape or its split), else the first reason.
  const whys = [];
  for (let v = 0; v < s.valueChain.values.length; ++v) {
    const value = { name: s.valueChain.values[v], nodes: s.valueChain.nodes.slice(0, v) };
    const tried = [];
    for (let k = s.attn.values.length - 1; k >= 0; --k) {
      const c = { value, attn: { name: s.attn.values[k], nodes: s.attn.nodes.slice(0, k) } };
      for (const form of Pt === null ? [5, 4] : [s.discrete ? 'discrete' : 'points']) {
        const r = attempt(g, s, c, form, opset, new Map(Pt === null ? [] : [['Pt', Pt]]), 0);
        if (!r.why) return finish(g, s, c, r, types, prologue);
        tried.push(r.why);
      }
    }
    const notValue = (w) => w.includes("not the value's rows") || (w.startsWith(`${value.name} is `) && w.includes('the fused node takes it'));
    whys.push({ first: tried[0], value: !tried.some(notValue) });
  }
  return { why: (whys.findLast((w) => w.value) ?? whys[0]).first };
}

// The sum of the sizes of the points Split at node index `i`, 0 where they are not constants.
function pointTotal(g, i) {
  const node = g.graph.node[i];
  const sizes = node.input[1] ? constant(g, node.input[1]) : { data: attr(node, 'split') ?? [] };
  return sizes ? Array.from(sizes.data, Number).reduce((a, b) => a + b, 0) : 0;
}

function attempt(g, s, c, form, opset, bound, depth) {
  try {
    return evaluate(g, s, c, form, opset, bound);
  } catch (e) {
    if (e instanceof Need && depth < 6 && !bound.has(e.sym)) {
      let last = { why: `needs ${e.sym} to be known` };
      for (const v of e.values) {
        last = attempt(g, s, c, form, opset, new Map([...bound, [e.sym, v]]), depth + 1);
        if (!last.why) return last;
      }
      return last;
    }
    if (e instanceof Mismatch) return { why: e.message };
    throw e;
  }
}

// The roles of the locations' and weights' axes in form `form` (evaluate's).
const dimRoles = (form) => (typeof form === 'string' ? { loc: ROLES.locPoints, attn: ROLES.attnPoints } : { loc: ROLES.loc, attn: form === 5 ? ROLES.attn5 : ROLES.attn4 });

// The source dimensions of one role: bound numbers, or symbols.
function roleDims(roles, bound, L) {
  return roles.map((r) => (r === 'two' ? int(2) : r === 'L' ? int(L) : r === 'LP' ? mul(int(L), dimOf('P', bound)) : dimOf(r, bound)));
}
const dimOf = (r, bound) => (bound.has(r) ? int(bound.get(r)) : sym(r));

// Binds what the graph declares of the inputs' dimensions (throws Need for the first unbound).
function bindKnown(g, name, roles, bound, L) {
  const known = knownDims(g, name);
  if (known && known.length !== roles.length) throw mismatch(`${name} is ${known.length}-D, the fused node takes it ${roles.length}-D`);
  (known ?? []).forEach((d, i) => {
    if (d === null) return;
    const r = roles[i];
    if (r === 'two' || r === 'L') {
      if (d !== (r === 'two' ? 2 : L)) throw mismatch(`${name} has ${d} at axis ${i}, expected ${r === 'two' ? 2 : L}`);
    } else if (r === 'LP') {
      if (d % L) throw mismatch(`${name} has ${d} at axis ${i}, not a multiple of the ${L} levels`);
      if (!bound.has('P')) throw new Need('P', [d / L]);
      if (bound.get('P') * L !== d) throw mismatch(`${name} has ${d} at axis ${i}, not ${L} levels of ${bound.get('P')} points`);
    } else if (!bound.has(r)) {
      throw new Need(r, [d]);
    } else if (bound.get(r) !== d) {
      throw mismatch(`${name} has ${d} at axis ${i} (${r}), other inputs ${bound.get(r)}`);
    }
  });
}

// Runs the chain's nodes on views (onnx/layout_views.mjs) and checks every step the fused node
// needs; returns what finish() reads, or throws Need / Mismatch.
// `form`: 5 or 4 (the rank of the weights, L levels of P points), or 'points' (the v2 form: the
// levels' points together, Pt in all, one level of Pt points to the weights and the sum).
function evaluate(g, s, c, form, opset, bound) {
  const { value, attn } = c;
  const L = s.samplers.length;
  const roles = dimRoles(form);
  bindKnown(g, value.name, ROLES.value, bound, L);
  bindKnown(g, s.loc, roles.loc, bound, L);
  bindKnown(g, attn.name, roles.attn, bound, L);
  const [N, S, M, D, Lq] = ['N', 'S', 'M', 'D', 'Lq'].map((r) => dimOf(r, bound));
  // The points form sums one run of Pt points where the other sums L runs of P.
  const [Ls, P] = typeof form === 'string' ? [1, dimOf('Pt', bound)] : [L, dimOf('P', bound)];
  const views = new Map([
    [value.name, contiguous('value', roleDims(ROLES.value, bound, L))],
    [s.loc, { ...contiguous('loc', roleDims(roles.loc, bound, L)), step: 0 }],
    [attn.name, contiguous('attn', roleDims(roles.attn, bound, L))],
  ]);
  const [sN, sS, sM] = strides([N, S, M, D]);
  const [lN, lQ, lM, lL] = strides(typeof form === 'string' ? [N, Lq, M, P, int(2)] : [N, Lq, M, int(L), P, int(2)]);
  const [aN, aQ, aM, aL] = strides([N, Lq, M, int(Ls), P]);
  const T = [N, M, D, Lq, int(Ls), P];
  const [tN, tM, tD, tQ, tL] = strides(T);
  const slices = [];
  const points = [];
  const spatial = [];
  const viewOf = (name) => views.get(name);
  const need = (name) => {
    const v = views.get(name);
    if (!v) throw mismatch(`${name} is not computed from the chain's inputs in the model's order`);
    return v;
  };
  const order = [...s.nodes, ...s.splits, ...value.nodes, ...attn.nodes, ...s.forward].sort((a, b) => a - b);
  for (const i of new Set(order)) {
    const node = g.graph.node[i];
    // (2 * loc may be Mul(2, loc): affine() finds the locations among its inputs.)
    const v = ['Mul', 'Add', 'Sub', 'Div'].includes(node.opType) ? null : need(node.input[0]);
    const out = (view) => views.set(node.output[0], view);
    const ints = (k) => shapeValue(g, node.input[k], viewOf).vals.map((m) => {
      if (concrete(m) === null) throw mismatch(`${node.opType} ${node.name}: ${show(m)} where a constant is needed`);
      return concrete(m);
    });
    const axesOf = (k) => (node.input[k] ? ints(k) : attr(node, 'axes'));
    switch (node.opType) {
      case 'Transpose': out(transpose(v, attr(node, 'perm'))); break;
      case 'Identity': out(v); break;
      case 'Flatten': out(flatten(v, attr(node, 'axis', 1))); break;
      case 'Squeeze': out(squeeze(v, axesOf(1))); break;
      case 'Unsqueeze': out(unsqueeze(v, axesOf(1))); break;
      case 'Reshape': {
        const target = shapeValue(g, node.input[1], viewOf).vals;
        try {
          out(reshape(v, reshapeTarget(v, target, attr(node, 'allowzero', 0) !== 0)));
        } catch (e) {
          // A free dimension may be fixed only where the chain fixes it: a target of constant
          // sizes (any other value fails the Reshape); a computed target holds for every value.
          if (e instanceof Need && !target.every((t) => concrete(t) > 0)) throw mismatch(`Reshape ${node.name} holds only where ${e.sym} is ${e.values.join(' or ')}`);
          throw e;
        }
        break;
      }
      case 'Split':
        if (v.src === 'loc') splitPoints(node, v, ints, points, views);
        else splitLevels(node, v, ints, slices, views, bound, sS);
        break;
      case 'Slice':
        splitLevels(node, v, ints, slices, views, bound, sS);
        break;
      case 'Gather': {
        if (form === 'discrete' && views.get(node.input[1])?.src === 'index') {
          out(tap(node, views, slices, points, spatial, { N, M, D, Lq, sN, sS, sM, lN, lQ, lM, tN, tM, tD, tQ }));
          break;
        }
        const idx = constant(g, node.input[1]);
        if (!idx || !['int64', 'int32'].includes(idx.type) || idx.data.length !== 1) throw mismatch(`Gather ${node.name} of more than one constant index`);
        const picked = pick(v, attr(node, 'axis', 0), Number(idx.data[0]));
        out(idx.dims.length ? unsqueeze(picked, [attr(node, 'axis', 0)]) : picked);
        break;
      }
      case 'Mul': case 'Add': case 'Sub': case 'Div':
        if (i === s.forward.find((k) => g.graph.node[k].opType === 'Mul')) out(weigh(node, views, { N, M, D, Lq, L: Ls, P, tN, tM, tD, tQ, tL, aN, aM, aQ, aL }));
        else if (form === 'discrete') out(discreteStep(g, node, views, ints));
        else out(affine(g, node, views));
        break;
      case 'Cast': case 'Clip':
        if (form !== 'discrete') throw mismatch(`a ${node.opType} inside the chain`);
        out(discreteStep(g, node, views, ints));
        break;
      case 'GridSample': {
        const d = { N, M, D, Lq, L, P, sN, sS, sM, lN, lQ, lM, lL, tN, tM, tD, tQ, tL };
        out(typeof form === 'string' ? samplePoints(node, views, slices, points, spatial, opset, d) : sample(node, views, slices, spatial, opset, d));
        break;
      }
      case 'Concat': out(typeof form === 'string' ? stackPoints(node, views) : stack(node, views, tL)); break;
      case 'ReduceSum': out(reduce(g, node, v, ints, Ls, P)); break;
      default: throw mismatch(`a ${node.opType} inside the chain`);
    }
  }
  // The output: [N, Lq, M * D] of the sums Y[n, m, d, q].
  const [yN, yM, yD] = strides([N, M, D, Lq]);
  const want = canon({ src: 'Y', offset: int(0), dims: [[{ n: N, st: yN }], [{ n: Lq, st: int(1) }], [{ n: M, st: yM }, { n: D, st: yD }]] });
  const end = [...s.outs].reverse().find((o) => views.has(o.name) && canon(views.get(o.name)) === want);
  if (!end) throw mismatch(`the result after ReduceSum is not [N, Lq, M * D] (${s.outs.map((o) => views.get(o.name) ? `[${views.get(o.name).dims.map((d) => show(dimSize(d))).join(', ')}]` : '?').join(' then ')})`);
  return { end, slices, spatial, bound, form, points };
}

// The block's nodes (the chain up to its output, the locations' arithmetic where `prologue`
// allows, and the nodes only they read), checked to hand nothing else on; the fused node's
// levels and inputs (value, locations or their offsets, weights, then the arithmetic's operands).
function finish(g, s, { value, attn }, proof, types, prologue) {
  const end = proof.end;
  const replaced = new Set([...s.nodes, ...attn.nodes, ...s.forward.slice(0, end.upTo)]);
  const locDims = dimRoles(proof.form).loc.map((r) => (r === 'two' ? 2 : r === 'L' ? s.samplers.length : proof.bound.get(r)));
  const steps = prologue && locDims.every(Number.isInteger) ? locationSteps(g, s.loc, locDims, replaced, types) : null;
  steps?.nodes.forEach((i) => replaced.add(i));
  const inputs = [value.name, steps?.offsets ?? s.loc, attn.name, ...(steps?.steps.map((st) => st.operand) ?? [])];
  for (const name of inputs.slice(0, 3)) {
    if (types(name) !== 'float32') return { why: `${quote(name)} is ${types(name) ?? 'of unknown type'}; the fused node is float32 only` };
  }
  // Nodes whose results only the block reads (its shape computations, its constants) go with it.
  for (let grew = true; grew;) {
    grew = false;
    g.graph.node.forEach((node, i) => {
      if (replaced.has(i) || !node.output.some(Boolean)) return;
      const readers = node.output.filter(Boolean).flatMap((o) => (g.outputs.has(o) || inputs.includes(o) ? [-1] : g.consumers.get(o) ?? [-1]));
      if (readers.length && readers.every((r) => replaced.has(r))) {
        replaced.add(i);
        grew = true;
      }
    });
  }
  for (const i of replaced) {
    for (const o of g.graph.node[i].output) {
      if (!o || o === end.name) continue;
      if (g.outputs.has(o) || (g.consumers.get(o) ?? []).some((r) => !replaced.has(r))) {
        return { why: `${quote(o)}, inside the chain, is read outside it` };
      }
    }
  }
  const ordered = [...proof.slices].sort((p, q) => p.start - q.start);
  if (ordered[0].start !== 0 || ordered.some((sl, k) => k > 0 && sl.start !== ordered[k - 1].start + ordered[k - 1].n)) {
    return { why: 'levels whose rows are not one after another from row 0' };
  }
  if (proof.spatial.length !== ordered.length || proof.spatial.some((x) => !x)) return { why: 'levels that no GridSample samples' };
  const index = Math.max(...[...replaced].filter((i) => g.graph.node[i].output.includes(end.name)));
  return {
    index,
    inputs,
    output: end.name,
    replaced: [...replaced].sort((a, b) => a - b),
    spatialShapes: BigInt64Array.from(proof.spatial.flat(), BigInt),
    levelStartIndex: BigInt64Array.from(ordered.map((sl) => BigInt(sl.start))),
    dims: { value: ROLES.value, ...dimRoles(proof.form) },
    bound: Object.fromEntries(proof.bound),
    options: typeof proof.form === 'string' ? { pointsPerLevel: proof.points.map((p) => p.n), ...(proof.form === 'discrete' ? { sampling: 'discrete' } : {}) } : {},
    ...(steps ? { locationSteps: steps.steps } : {}),
  };
}
