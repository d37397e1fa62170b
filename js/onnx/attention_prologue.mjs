// The locations' arithmetic before a fused attention chain (onnx/fuse_attention.mjs): the elementwise Mul, Div, Add and Sub that make the sampling locations from offsets of the same shape and smaller tensors (D-FINE's and RT-DETR's reference boxes and point scales, Deformable DETR's offset normaliser), which the fused node then computes itself, step by step in the model's order (onnx/fused_arguments.mjs), where onnxruntime would run one node per step.
import { knownDims, producedBy } from './graph_reading.mjs';

const STEPS = ['Mul', 'Div', 'Add', 'Sub'];

// Which input of elementwise node `node` carries the offsets' shape: the only one another step
// computes, else the only one that is not a constant, else -1 (the walk stops).
function dataSide(g, node) {
  const stepped = node.input.map((name) => producedBy(g, name, STEPS) !== null);
  if (stepped[0] !== stepped[1]) return stepped[0] ? 0 : 1;
  if (stepped[0]) return -1;
  const fixed = node.input.map((name) => g.initializers.has(name) || producedBy(g, name, ['Constant']) !== null);
  return fixed[0] !== fixed[1] ? (fixed[0] ? 1 : 0) : -1;
}

/**
 * The steps from offsets to the chain's locations `loc`, whose dimensions the chain's proof fixed
 * (`dims`, numbers): `{ offsets, steps: [{ op, operand, first }], nodes }`, the steps in the
 * model's order (`first`: the operand is the node's first input, which matters to Sub and Div),
 * or null. The offsets are the farthest value on the way whose dimensions the graph fixes to
 * `dims`; every value on the way after them is read by the next step alone (the locations by
 * `chain`, the chain's nodes, alone) and is no graph output. An operand's dimensions are checked
 * at every run (they must broadcast into `dims`). `types(name)`: a value's element type.
 */
export function locationSteps(g, loc, dims, chain, types) {
  const readBy = (name, allowed) => !g.outputs.has(name) && (g.consumers.get(name) ?? []).every((i) => allowed.has(i));
  if (!readBy(loc, chain)) return null;
  const walk = [];
  for (let name = loc; ;) {
    const p = producedBy(g, name, STEPS);
    const k = p && p.node.input.length === 2 && p.node.input[0] !== p.node.input[1] ? dataSide(g, p.node) : -1;
    if (k < 0) break;
    const operand = p.node.input[1 - k];
    // (An operand the chain itself computes would have no producer left.)
    if (types(operand) !== 'float32' || types(p.node.input[k]) !== 'float32' || chain.has(g.producer.get(operand))) break;
    walk.push({ index: p.index, op: p.node.opType, operand, first: k === 1, from: p.node.input[k] });
    name = p.node.input[k];
    if (!readBy(name, new Set([p.index]))) break;
  }
  const fixed = (name) => {
    const known = knownDims(g, name);
    return known !== null && known.length === dims.length && known.every((d, i) => d === dims[i]);
  };
  const at = walk.findLastIndex((w) => fixed(w.from));
  if (at < 0) return null;
  const taken = walk.slice(0, at + 1).reverse();
  return { offsets: taken[0].from, steps: taken.map(({ op, operand, first }) => ({ op, operand, first })), nodes: taken.map((w) => w.index) };
}
