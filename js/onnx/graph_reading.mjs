// Reading a decoded main graph for the attention matcher (onnx/fuse_attention.mjs): who writes and reads each value, node attributes, small constants, and the values of integer shape computations (Shape, Gather, Concat, ...) as monomials.
import { ELEM_TYPES, declaredType, initializerTensor, num } from './model_proto.mjs';
import { isDefaultDomain } from './our_nodes.mjs';
import { concrete, div, int, mismatch, mul, sizes } from './layout_views.mjs';

/** The graph's nodes with who writes and who reads each value. */
export function graphIndex(graph, model) {
  const producer = new Map();
  const consumers = new Map();
  graph.node.forEach((node, index) => {
    for (const name of node.output) if (name) producer.set(name, index);
    for (const name of node.input) {
      if (!name) continue;
      if (!consumers.has(name)) consumers.set(name, []);
      consumers.get(name).push(index);
    }
  });
  const initializers = new Map(graph.initializer.map((t) => [t.name, t]));
  const valueInfo = new Map([...graph.valueInfo, ...graph.output, ...graph.input].map((v) => [v.name, v]));
  return { graph, model, producer, consumers, initializers, valueInfo, outputs: new Set(graph.output.map((v) => v.name)) };
}

/** The node (default domain) that writes `name` when it is of one of `ops`, else null. */
export function producedBy(g, name, ops) {
  const i = g.producer.get(name);
  if (i === undefined) return null;
  const node = g.graph.node[i];
  return isDefaultDomain(node.domain) && ops.includes(node.opType) ? { node, index: i } : null;
}

/** Attribute `name` of a node as a number, numbers, string or tensor; `fallback` when absent. */
export function attr(node, name, fallback) {
  const a = node.attribute.find((x) => x.name === name);
  if (!a) return fallback;
  if (a.ints?.length) return a.ints.map(num);
  if (a.t) return a.t;
  if (a.s?.length) return new TextDecoder().decode(a.s);
  if (a.floats?.length) return a.floats;
  return a.type === 1 ? a.f : num(a.i);
}

/** A constant (initializer or Constant node) as { type, dims, data }, or null. */
export function constant(g, name) {
  try {
    if (g.initializers.has(name)) return initializerTensor(g.initializers.get(name), g.model);
    const p = producedBy(g, name, ['Constant']);
    if (!p) return null;
    const a = p.node.attribute[0];
    if (!a) return null;
    if (a.name === 'value') return initializerTensor(a.t, g.model);
    if (a.name === 'value_int') return { type: 'int64', dims: [], data: [num(a.i)] };
    if (a.name === 'value_ints') return { type: 'int64', dims: [a.ints.length], data: a.ints.map(num) };
    if (a.name === 'value_float') return { type: 'float32', dims: [], data: [a.f] };
    if (a.name === 'value_floats') return { type: 'float32', dims: [a.floats.length], data: a.floats };
  } catch {
    return null;
  }
  return null;
}

/** A constant of one float element (any rank), or null. */
export function scalarFloat(g, name) {
  const c = constant(g, name);
  return c && ['float32', 'float64', 'float16'].includes(c.type) && c.data.length === 1 && c.type !== 'float16' ? { value: Number(c.data[0]), rank: c.dims.length } : null;
}

/** The element type of a value as the graph declares it, or undefined. */
export const declaredElem = (g, name) => (g.initializers.has(name) ? ELEM_TYPES[g.initializers.get(name).dataType] : declaredType(g.valueInfo.get(name))?.type);

/**
 * The dimensions of `name` as far as the graph tells them: declared, or a Reshape's constant
 * target (its 0s from the Reshape's input), or those of an elementwise unary op's input; an
 * array of numbers and nulls (unknown), or null for an unknown rank.
 */
export function knownDims(g, name, depth = 0) {
  const declared = declaredType(g.valueInfo.get(name))?.dims;
  if (declared) return declared.map((d) => (typeof d === 'number' ? d : null));
  if (depth > 8) return null;
  const r = producedBy(g, name, ['Reshape']);
  if (r) {
    const target = constant(g, r.node.input[1]);
    if (!target) return null;
    const from = knownDims(g, r.node.input[0], depth + 1);
    return Array.from(target.data, Number).map((d, i) => (d > 0 ? d : d === 0 ? from?.[i] ?? null : null));
  }
  const u = producedBy(g, name, ['Softmax', 'Sigmoid', 'Identity', 'Relu', 'Cast']);
  return u ? knownDims(g, u.node.input[0], depth + 1) : null;
}

// Index arithmetic on shape values: integers and monomials.
const ARITH = {
  Mul: (a, b) => mul(a, b),
  Div: (a, b) => div(a, b),
};

/**
 * The value of an integer shape computation as monomials ({ vals, scalar }), or a Mismatch
 * thrown: constants; Shape of a value `viewOf(name)` knows (a view, or the dimensions of a
 * source); Gather, Slice, Concat, Unsqueeze, Squeeze, Cast, Identity, Mul and Div of those.
 */
export function shapeValue(g, name, viewOf, depth = 0) {
  const c = constant(g, name);
  if (c) {
    if (!['int64', 'int32'].includes(c.type)) throw mismatch(`${name} is a ${c.type} constant, not an index`);
    return { vals: Array.from(c.data, (v) => int(Number(v))), scalar: c.dims.length === 0 };
  }
  const i = g.producer.get(name);
  if (i === undefined || depth > 32) throw mismatch(`the shape ${name} is not computed from the chain`);
  const node = g.graph.node[i];
  if (!isDefaultDomain(node.domain)) throw mismatch(`the shape ${name} comes from a ${node.opType} of domain ${node.domain}`);
  const arg = (k) => shapeValue(g, node.input[k], viewOf, depth + 1);
  const ints = (k) => arg(k).vals.map((v) => {
    const n = concrete(v);
    if (n === null) throw mismatch(`${node.opType} ${node.name}: an index that is not a constant`);
    return n;
  });
  switch (node.opType) {
    case 'Shape': {
      const v = viewOf(node.input[0]);
      if (!v) throw mismatch(`Shape of ${node.input[0]}, whose dimensions are not known`);
      const all = Array.isArray(v) ? v : sizes(v);
      const clamp = (x) => Math.min(Math.max(x < 0 ? x + all.length : x, 0), all.length);
      return { vals: all.slice(clamp(attr(node, 'start', 0)), clamp(attr(node, 'end', all.length))), scalar: false };
    }
    case 'Identity':
      return arg(0);
    case 'Cast':
      if (![6, 7].includes(attr(node, 'to'))) throw mismatch(`a Cast of a shape to type ${attr(node, 'to')}`);
      return arg(0);
    case 'Gather': {
      const data = arg(0);
      const idx = arg(1);
      if (attr(node, 'axis', 0) !== 0 || data.scalar) throw mismatch(`Gather ${node.name} of a shape along axis ${attr(node, 'axis', 0)}`);
      const vals = ints(1).map((k) => data.vals[k < 0 ? k + data.vals.length : k]);
      if (vals.some((v) => !v)) throw mismatch(`Gather ${node.name}: an index out of range`);
      return { vals, scalar: idx.scalar };
    }
    case 'Slice': {
      const data = arg(0).vals;
      const [starts, ends] = [ints(1), ints(2)];
      const steps = node.input[4] ? ints(4) : [1];
      if (starts.length !== 1 || steps[0] !== 1 || (node.input[3] && ints(3)[0] !== 0 && ints(3)[0] !== -1)) throw mismatch(`Slice ${node.name} of a shape`);
      const clamp = (x) => Math.min(Math.max(x < 0 ? x + data.length : x, 0), data.length);
      return { vals: data.slice(clamp(starts[0]), clamp(ends[0])), scalar: false };
    }
    case 'Unsqueeze': {
      const a = arg(0);
      if (!a.scalar) throw mismatch(`Unsqueeze ${node.name} of a 1-D shape`);
      return { vals: a.vals, scalar: false };
    }
    case 'Squeeze': {
      const a = arg(0);
      if (a.scalar || a.vals.length !== 1) throw mismatch(`Squeeze ${node.name} of a shape of ${a.vals.length}`);
      return { vals: a.vals, scalar: true };
    }
    case 'Concat':
      if (attr(node, 'axis') !== 0 && attr(node, 'axis') !== -1) throw mismatch(`Concat ${node.name} of shapes along axis ${attr(node, 'axis')}`);
      return { vals: node.input.flatMap((_, k) => arg(k).vals), scalar: false };
    case 'Mul':
    case 'Div': {
      const [a, b] = [arg(0), arg(1)];
      const n = Math.max(a.vals.length, b.vals.length);
      if (a.vals.length !== n && a.vals.length !== 1) throw mismatch(`${node.opType} ${node.name}: shapes that do not broadcast`);
      if (b.vals.length !== n && b.vals.length !== 1) throw mismatch(`${node.opType} ${node.name}: shapes that do not broadcast`);
      const vals = Array.from({ length: n }, (_, k) => ARITH[node.opType](a.vals[a.vals.length === 1 ? 0 : k], b.vals[b.vals.length === 1 ? 0 : k]));
      if (vals.some((v) => !v)) throw mismatch(`Div ${node.name}: not an exact division`);
      return { vals, scalar: a.scalar && b.scalar };
    }
    default:
      throw mismatch(`the shape ${name} comes from a ${node.opType}`);
  }
}
