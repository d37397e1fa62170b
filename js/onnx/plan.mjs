// A split session's plan() (onnx/session.mjs): which nodes run where and why, the attention chains fused and the nodes each replaced, and those left unfused with the reason.
import { quote } from './errors.mjs';

// Where node `n` of ours runs and why; a GridSample of an attention chain that placement left
// unfused on onnxruntime says why its fused node went there.
function placementOf(split, placed, n) {
  const runsOn = n.ours ? 'gridsample' : 'onnxruntime';
  if (placed.fixed) return { runsOn, why: placed.fixed };
  if (placed.pending) return { runsOn, why: `placement ${quote(placed.option)} decides at the first run, from the shapes it sees` };
  const block = split.fusion.blocks.find((b) => b.replaced.includes(n.index));
  const why = placed.why.get(n.index) ?? (block && placed.why.get(block.index));
  return why && block && !n.fused ? { runsOn, why: `its fused attention's placement: ${why.why}` } : why;
}

// A node of the plan: GridSample / AffineGrid with their attributes, a fused attention with the
// nodes it replaced and its levels, mmdeploy's attention with its domain.
function planNode(split, placed, n) {
  const node = { name: n.node.name, opType: n.node.opType };
  if (n.fused) {
    const f = n.fused;
    const levels = Array.from(f.levelStartIndex, (_, l) => [Number(f.spatialShapes[2 * l]), Number(f.spatialShapes[2 * l + 1])]);
    const fused = {
      replaced: f.replacedNodes.map((r) => ({ ...r })), inputs: [...f.inputs], levels, levelStartIndex: Array.from(f.levelStartIndex, Number), options: structuredClone(f.options ?? {}),
      ...(f.locationSteps ? { locationSteps: structuredClone(f.locationSteps) } : {}),
    };
    return { ...node, fused, placement: placementOf(split, placed, n) };
  }
  if (n.attention) return { ...node, domain: n.node.domain, placement: placementOf(split, placed, n) };
  return n.attrs ? { ...node, version: n.version, attributes: n.attrs, placement: placementOf(split, placed, n) } : node;
}

// The attention chains found: how many are fused, and why the others are not; {} where none.
function attention(split) {
  const fused = split.parts.flatMap((p) => p.nodes).filter((n) => n.fused).length;
  const { notFused } = split.fusion;
  return fused || notFused.length ? { attention: { fused, notFused: structuredClone(notFused) } } : {};
}

/**
 * The plan of `split` (graph.mjs splitModel): `{ model, opset, parts: [{ part, runsOn, nodes,
 * ops, inputs, outputs }], counts, placement, attention }`; `ops` counts the part's nodes by
 * operator; gridsample parts say on which `backend` ('webgpu' or 'wasm') and `why`;
 * `placement` is `{ option, decided, measured }`, `measured` the whole-run times placement
 * 'auto' chose from (placement.mjs decidePlacement); `attention` (where the model has attention chains) `{ fused: how many
 * run as one node, notFused: [{ near, why }] }`.
 * `whole`: the model runs as one onnxruntime session.
 */
export function planOf(split, { backend, placement, whole }) {
  const parts = split.parts.map((p, i) => ({
    part: i + 1,
    runsOn: p.runsOn,
    ...(p.runsOn === 'gridsample' && backend ? backend : {}),
    nodes: p.nodes.map((n) => planNode(split, placement, n)),
    ops: p.nodes.reduce((ops, n) => ({ ...ops, [n.node.opType]: (ops[n.node.opType] ?? 0) + 1 }), {}),
    inputs: p.inputs,
    outputs: p.outputs,
  }));
  const count = (on) => parts.filter((p) => p.runsOn === on).reduce((a, p) => a + p.nodes.length, 0);
  return {
    model: split.model,
    opset: split.opset,
    parts,
    counts: {
      onnxruntimeSessions: whole ? 1 : parts.filter((p) => p.runsOn === 'onnxruntime').length,
      onnxruntimeNodes: count('onnxruntime'),
      gridsampleNodes: count('gridsample'),
      unusedNodes: split.unused.length,
    },
    ...(placement ? { placement: { option: placement.option, decided: !placement.fixed && !placement.pending, measured: structuredClone(placement.measured) } } : {}),
    ...(attention(split)),
  };
}
