// Splits an ONNX model's main graph into parts (DESIGN.md section 8): maximal runs of nodes for onnxruntime, and the GridSample / AffineGrid nodes gridsample runs; and a part as a model of its own for onnxruntime.
import { nodeLabel, OnnxModelError, quote, quoteAll } from './errors.mjs';
import { declaredType, ELEM_CODES, encodeModel, num, tensorTypeOf, tensorTypeProto } from './model_proto.mjs';
import { FUSED_OP, findAttention } from './fuse_attention.mjs';
import { isDefaultDomain, isMmcvAttention, isOurs, operatorVersion, OUR_OPS, ourAttributes } from './our_nodes.mjs';
import { valueTypes } from './value_types.mjs';

// The last default-domain opset whose GridSample and AffineGrid gridsample knows: GridSample
// versions 16, 20 and 22, AffineGrid 20, none changed through opset 24. A later opset could
// change them, so it is refused rather than guessed.
const LAST_KNOWN_OPSET = 24;

// Names a node's subgraphs (If / Loop / Scan bodies) read from the enclosing scopes.
function outerNames(node) {
  const names = new Set();
  for (const a of node.attribute) {
    for (const g of [a.g, ...(a.graphs || [])]) {
      if (!g) continue;
      const defined = new Set([...g.input.map((v) => v.name), ...g.initializer.map((t) => t.name)]);
      for (const n of g.node) {
        for (const name of [...n.input, ...outerNames(n)]) if (name && !defined.has(name)) names.add(name);
        for (const name of n.output) defined.add(name);
      }
    }
  }
  return [...names];
}

// The first GridSample / AffineGrid node inside a node's subgraphs, as a path of labels, or null.
function nestedOurs(node, index) {
  for (const a of node.attribute) {
    for (const g of [a.g, ...(a.graphs || [])]) {
      if (!g) continue;
      for (const [i, n] of g.node.entries()) {
        if (isOurs(n)) return `${nodeLabel(n, i)} in the ${quote(a.name)} body of ${nodeLabel(node, index)}`;
        const deeper = nestedOurs(n, i);
        if (deeper) return `${deeper} in the ${quote(a.name)} body of ${nodeLabel(node, index)}`;
      }
    }
  }
  return null;
}

/**
 * Splits a decoded model's main graph. Returns
 * { model, opset, inputs: [{name, type}], outputs: [{name, type}], initializers: Map,
 *   parts: [{ runsOn: 'onnxruntime'|'gridsample', nodes: [{index, node, label, attrs?, version?}],
 *             inputs: [names], outputs: [names], constants: [initializer names] }],
 *   valueInfo: Map name -> ValueInfoProto, types: Map name -> element type (onnx/value_types.mjs),
 *   unused: [labels] }.
 * `keep`: indices of GridSample / AffineGrid nodes to leave in onnxruntime's parts (checked as
 * ours all the same; see onnx/placement.mjs); a fused attention's index there leaves its chain
 * unfused, on onnxruntime. `fuse`: replace the multi-scale deformable attention chains proven
 * equal to the fused node (onnx/fuse_attention.mjs) by it, with the arithmetic that makes
 * their locations where `prologue` (the fused node then computes it on the CPU); the split then
 * also has `fusion`: { blocks, notFused }. Throws OnnxModelError for what gridsample cannot run.
 */
export function splitModel(proto, model, { subgraphs = 'error', keep = new Set(), fuse = false, prologue = true } = {}) {
  const graph = proto.graph;
  const fail = (message) => new OnnxModelError(model, message);
  const opsetEntry = proto.opsetImport.find((o) => isDefaultDomain(o.domain));
  const opset = opsetEntry ? num(opsetEntry.version) : null;
  const initializers = new Map(graph.initializer.map((t) => [t.name, t]));
  const valueInfo = new Map();
  for (const v of [...graph.valueInfo, ...graph.output, ...graph.input]) valueInfo.set(v.name, v);
  const inputs = graph.input.filter((v) => !initializers.has(v.name)).map((v) => ({ name: v.name, type: declaredType(v) }));
  const inputNames = new Set(inputs.map((v) => v.name));
  for (const v of inputs) if (!v.type) throw fail(`graph input ${quote(v.name)} declares no tensor type`);
  const outputs = graph.output.map((v) => ({ name: v.name, type: declaredType(v) }));
  const types = valueTypes(graph, valueInfo);

  // The attention chains fused (those whose fused node `keep` names stay, their GridSample nodes on onnxruntime).
  const fusion = fuse && opset !== null ? findAttention(graph, { model, opset, types: (name) => types.get(name), prologue }) : { blocks: [], notFused: [] };
  const fusedAt = new Map();
  const replaced = new Set();
  keep = new Set(keep);
  for (const b of fusion.blocks) {
    if (keep.has(b.index)) {
      for (const i of b.replaced) if (graph.node[i].opType === 'GridSample') keep.add(i);
      continue;
    }
    fusedAt.set(b.index, b);
    for (const i of b.replaced) replaced.add(i);
  }

  // Which nodes are ours; everything else goes to onnxruntime.
  let nodes = graph.node.flatMap((node, index) => {
    if (replaced.has(index)) return fusedAt.has(index) ? [fusedEntry(graph, fusedAt.get(index))] : [];
    const label = nodeLabel(node, index);
    const entry = { index, node, label, ours: isOurs(node), after: outerNames(node) };
    if (isMmcvAttention(node)) {
      if (node.input.length !== 5 || node.input.some((n) => !n)) throw fail(`${label}: expected 5 inputs (value, spatial_shapes, level_start_index, sampling_locations, attention_weights), got ${node.input.length}`);
      if (node.output.length !== 1 || !node.output[0]) throw fail(`${label}: expected 1 output, got ${node.output.length}`);
      return [{ ...entry, attention: 'mmdeploy' }];
    }
    if (!entry.ours) {
      const nested = nestedOurs(node, index);
      if (nested && subgraphs !== 'onnxruntime') {
        throw fail(`${nested}: gridsample/onnx splits the main graph only; move the node out of the control flow, or pass { subgraphs: 'onnxruntime' } to leave it to onnxruntime`);
      }
      return entry;
    }
    if (opset === null) throw fail(`${label}: the model imports no default-domain (ai.onnx) opset`);
    if (opset < OUR_OPS[node.opType]) throw fail(`${label}: ${node.opType} needs opset ${OUR_OPS[node.opType]} or later; the model imports opset ${opset}`);
    if (opset > LAST_KNOWN_OPSET) throw fail(`${label}: the model imports opset ${opset}; gridsample/onnx knows ${node.opType} up to opset ${LAST_KNOWN_OPSET}`);
    if (node.input.length !== 2 || node.input.some((n) => !n)) throw fail(`${label}: expected 2 inputs, got ${node.input.length} (${quoteAll(node.input)})`);
    if (node.output.length !== 1 || !node.output[0]) throw fail(`${label}: expected 1 output, got ${node.output.length}`);
    entry.version = operatorVersion(node.opType, opset);
    try {
      entry.attrs = ourAttributes(node, entry.version, label);
    } catch (e) {
      throw fail(e.message);
    }
    if (keep.has(index)) entry.ours = false;
    return [entry];
  });

  // Where each value comes from; every name read must exist.
  const producer = new Map();
  for (const n of nodes) {
    for (const name of n.node.output) {
      if (!name) continue;
      if (producer.has(name) || initializers.has(name) || inputNames.has(name)) throw fail(`value ${quote(name)} is defined twice (${n.label} writes it again)`);
      producer.set(name, n);
    }
  }
  const reads = (n) => [...n.node.input.filter(Boolean), ...n.after];
  for (const n of nodes) {
    for (const name of reads(n)) {
      if (!producer.has(name) && !initializers.has(name) && !inputNames.has(name)) {
        throw fail(`${n.label} reads ${quote(name)}, which no node, graph input or initializer provides`);
      }
    }
  }
  for (const v of outputs) {
    if (!producer.has(v.name) && !initializers.has(v.name) && !inputNames.has(v.name)) {
      throw fail(`graph output ${quote(v.name)} is not produced by any node`);
    }
  }

  // Nodes that no graph output depends on are dropped, as onnxruntime drops them.
  const live = new Set();
  const stack = outputs.map((v) => producer.get(v.name)).filter(Boolean);
  while (stack.length) {
    const n = stack.pop();
    if (live.has(n)) continue;
    live.add(n);
    for (const name of reads(n)) if (producer.has(name)) stack.push(producer.get(name));
  }
  const unused = nodes.filter((n) => !live.has(n)).map((n) => n.label);
  nodes = nodes.filter((n) => live.has(n));

  // Greedy topological order (Kahn's): as many onnxruntime nodes as become ready, then every
  // ready node of ours, and again; each run of one kind is a part. Ties go to the model's order.
  const consumers = new Map(nodes.map((n) => [n, []]));
  const pending = new Map();
  for (const n of nodes) {
    const from = new Set(reads(n).filter((name) => producer.has(name)).map((name) => producer.get(name)));
    pending.set(n, from.size);
    for (const p of from) consumers.get(p).push(n);
  }
  const ready = { false: [], true: [] };
  const enqueue = (n) => {
    const queue = ready[n.ours];
    let at = queue.length;
    while (at > 0 && queue[at - 1].index > n.index) --at;
    queue.splice(at, 0, n);
  };
  for (const n of nodes) if (pending.get(n) === 0) enqueue(n);
  const parts = [];
  let scheduled = 0;
  while (scheduled < nodes.length) {
    let progressed = false;
    for (const ours of [false, true]) {
      const part = [];
      while (ready[ours].length) {
        const n = ready[ours].shift();
        part.push(n);
        for (const c of consumers.get(n)) {
          pending.set(c, pending.get(c) - 1);
          if (pending.get(c) === 0) enqueue(c);
        }
      }
      if (part.length) {
        parts.push({ runsOn: ours ? 'gridsample' : 'onnxruntime', nodes: part.sort((a, b) => a.index - b.index) });
        scheduled += part.length;
        progressed = true;
      }
    }
    if (!progressed) {
      const stuck = nodes.find((n) => pending.get(n) > 0);
      throw fail(`the graph has a cycle (${stuck.label} waits on its own output)`);
    }
  }

  // What each part reads and must hand on.
  const graphOutputs = new Set(outputs.map((v) => v.name));
  parts.forEach((part, i) => {
    const made = new Set(part.nodes.flatMap((n) => n.node.output.filter(Boolean)));
    const read = [...new Set(part.nodes.flatMap(reads))].filter((name) => !made.has(name));
    part.constants = read.filter((name) => initializers.has(name) && !inputNames.has(name));
    part.inputs = read.filter((name) => !part.constants.includes(name));
    const laterReads = new Set(parts.slice(i + 1).flatMap((p) => p.nodes.flatMap(reads)));
    part.outputs = [...made].filter((name) => graphOutputs.has(name) || laterReads.has(name));
  });
  return { model, opset, irVersion: num(proto.irVersion), inputs, outputs, initializers, valueInfo, types, parts, unused, fusion };
}

// The node that stands for fused block `b`, in place of its last node (its output's writer).
function fusedEntry(graph, b) {
  const last = graph.node[b.index];
  const node = { name: `${last.name || b.output}/${FUSED_OP}`, opType: FUSED_OP, domain: 'gridsample', input: b.inputs, output: [b.output], attribute: [] };
  const replaced = b.replaced.map((i) => ({ name: graph.node[i].name, opType: graph.node[i].opType }));
  return { index: b.index, node, label: nodeLabel(node, b.index), ours: true, after: [], attention: 'fused', fused: { ...b, replacedNodes: replaced } };
}

/**
 * The sub-model of an onnxruntime part: its nodes, the initializers they read, the model's
 * opsets and functions. `types` maps each input's name to its onnxruntime type name (declared
 * shapes are kept where the model has them; other inputs have any shape).
 */
export function subModel(proto, split, part, types) {
  const valueInfo = (name) => split.valueInfo.get(name);
  const input = part.inputs.map((name) => {
    const declared = valueInfo(name);
    if (tensorTypeOf(declared)?.elemType) return declared;
    const type = types.get(name);
    if (!type || !(type in ELEM_CODES)) throw new OnnxModelError(split.model, `cannot tell the element type of ${quote(name)} (an input of an onnxruntime part)`);
    return { name, type: tensorTypeProto(ELEM_CODES[type]) };
  });
  const inside = new Set(part.nodes.flatMap((n) => [...n.node.input, ...n.node.output]));
  return encodeModel({
    irVersion: proto.irVersion,
    producerName: proto.producerName,
    opsetImport: proto.opsetImport,
    functions: proto.functions,
    graph: {
      name: proto.graph.name,
      node: part.nodes.map((n) => n.node),
      initializer: part.constants.map((name) => split.initializers.get(name)),
      input,
      output: part.outputs.map((name) => valueInfo(name) ?? { name }),
      valueInfo: proto.graph.valueInfo.filter((v) => inside.has(v.name) && !part.inputs.includes(v.name) && !part.outputs.includes(v.name)),
    },
  });
}
