// The element type of every value of a model's main graph: what it declares (inputs, outputs, value_info, initializers), else inferred from the nodes by ONNX's type rules, for where a split session leaves the values crossing its parts.
import { isDefaultDomain } from './our_nodes.mjs';
import { declaredType, ELEM_TYPES, num } from './model_proto.mjs';

// Operators whose outputs are int64 indices or sizes, or bools, whatever they read.
const INT64 = new Set(['Shape', 'Size', 'NonZero', 'ArgMax', 'ArgMin']);
const BOOL = new Set(['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual', 'And', 'Or', 'Xor', 'Not', 'IsNaN', 'IsInf']);
// Operators whose first output has the type of another input than the first.
const TYPE_OF_INPUT = { Where: 1, CastLike: 1 };
// Operators whose later outputs are int64 indices (the first has the data's type).
const INDEX_OUTPUTS = new Set(['TopK', 'Unique', 'MaxPool']);
// Operators with nested graphs: their outputs' types are the subgraphs', left unknown here.
const NESTED = new Set(['If', 'Loop', 'Scan', 'SequenceMap']);

const attribute = (node, name) => node.attribute.find((a) => a.name === name);
const tensorType = (t) => (t ? ELEM_TYPES[t.dataType] : undefined);

// The type of output `k` of `node` from its inputs' types (`typeOf(name)`), or undefined.
function outputType(node, k, typeOf) {
  const op = node.opType;
  if (!isDefaultDomain(node.domain) || NESTED.has(op)) return undefined;
  if (INT64.has(op)) return 'int64';
  if (BOOL.has(op)) return 'bool';
  if (op === 'Cast') return ELEM_TYPES[num(attribute(node, 'to')?.i ?? 0)];
  if (op === 'Constant') {
    const a = node.attribute[0];
    if (!a) return undefined;
    if (a.name === 'value') return tensorType(a.t);
    return { value_float: 'float32', value_floats: 'float32', value_int: 'int64', value_ints: 'int64' }[a.name];
  }
  if (op === 'ConstantOfShape') return tensorType(attribute(node, 'value')?.t) ?? 'float32';
  if (k > 0 && INDEX_OUTPUTS.has(op)) return 'int64';
  return typeOf(node.input[TYPE_OF_INPUT[op] ?? 0]);
}

/**
 * Map value name -> element type (an onnxruntime type name) for the values of `graph` whose type
 * it declares or its nodes imply; `valueInfo` is the split's (name -> ValueInfoProto). A value
 * missing from the map has a type that cannot be told without running the model.
 */
export function valueTypes(graph, valueInfo) {
  const types = new Map();
  for (const t of graph.initializer) if (tensorType(t)) types.set(t.name, tensorType(t));
  const known = new Set(Object.values(ELEM_TYPES));
  for (const [name, v] of valueInfo) {
    const declared = declaredType(v)?.type;
    if (known.has(declared)) types.set(name, declared);
  }
  const typeOf = (name) => types.get(name);
  // Passes in the model's order until one types nothing new: one pass where the nodes are in
  // topological order, as ONNX asks (onnxruntime sorts them itself, so a model may not be).
  for (let grew = true; grew;) {
    grew = false;
    for (const node of graph.node) {
      node.output.forEach((name, k) => {
        if (!name || types.has(name)) return;
        const type = outputType(node, k, typeOf);
        if (type) {
          types.set(name, type);
          grew = true;
        }
      });
    }
  }
  return types;
}
