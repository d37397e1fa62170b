// Reads an ONNX model (npm @bufbuild/protobuf with the schema generated from onnx.proto into dist/onnx_pb.mjs) and splits its main graph into parts: maximal runs of nodes for onnxruntime, and the GridSample / AffineGrid nodes gridsample runs (DESIGN.md section 8).
import { ONNX_MODE_NAMES, PADDING_NAMES } from '../core/modes.mjs';
import { importOptional } from '../core/optional_package.mjs';
import { ARRAY_CLASSES, fromBytes } from './tensor_types.mjs';

// The protobuf runtime, an optional peer dependency (the core API's users do not install it),
// and the schema generated from onnx.proto (scripts/gen_onnx_schema.sh), which imports the
// runtime: both loaded by loadOnnxReader() rather than a top-level await, which would hold back
// a module worker's `onmessage` until it resolved, and the worker's first message would be lost.
let onnx = null;

/**
 * Loads the protobuf reader that decodeModel and encodeModel use; without the package, rejects
 * with one line naming it. The runtime comes first, so that its absence is named rather than
 * the schema's failed import of it; the literal import()s are for bundlers, and naming the four
 * functions used lets them drop the rest of the runtime (Vite page: 243 KB of JS, 282 KB with all).
 */
export async function loadOnnxReader() {
  if (onnx) return;
  const runtime = await importOptional('@bufbuild/protobuf', 'gridsample/onnx', async () => {
    const { create, fromBinary, isFieldSet, toBinary } = await import('@bufbuild/protobuf');
    return { create, fromBinary, isFieldSet, toBinary };
  });
  const { AttributeProto_AttributeType, AttributeProtoSchema, ModelProtoSchema } = await import('../dist/onnx_pb.mjs');
  onnx = { ...runtime, AttributeProto_AttributeType, AttributeProtoSchema, ModelProtoSchema };
}

function reader() {
  if (!onnx) throw new Error('gridsample/onnx: loadOnnxReader() must resolve before a model is decoded or encoded');
  return onnx;
}

/** The operators gridsample runs, with the opset each first appeared in. */
export const OUR_OPS = Object.freeze({ GridSample: 16, AffineGrid: 20 });

// The last default-domain opset whose GridSample and AffineGrid gridsample knows: GridSample
// versions 16, 20 and 22, AffineGrid 20, none changed through opset 24. A later opset could
// change them, so it is refused rather than guessed.
const LAST_KNOWN_OPSET = 24;

/** TensorProto.DataType codes as onnxruntime's tensor type names. */
export const ELEM_TYPES = Object.freeze({
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 8: 'string',
  9: 'bool', 10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64', 16: 'bfloat16',
});
/** The element type codes by dtype name ('float32' -> 1). */
export const ELEM_CODES = Object.freeze(Object.fromEntries(Object.entries(ELEM_TYPES).map(([k, v]) => [v, Number(k)])));


const isDefaultDomain = (domain) => !domain || domain === 'ai.onnx';
/** Whether a node is a GridSample or AffineGrid of the default domain (own properties only: an op type such as 'constructor' is not ours). */
export const isOurs = (node) => isDefaultDomain(node.domain) && Object.hasOwn(OUR_OPS, node.opType);
export const num = (v) => (typeof v === 'number' ? v : Number(v)); // int64 fields are bigints

/**
 * A name from the model or the caller as messages print it: JSON-quoted, so that quotes, line
 * breaks and control characters in it can neither end the message's line nor fake its text.
 */
export function quote(name) {
  return JSON.stringify(String(name)).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** What the caller gave, as messages print it: `null`, `a Uint8Array`, `"text"`, `number 42`. */
export function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') {
    let name;
    try {
      name = Object.getPrototypeOf(v)?.constructor?.name;
    } catch {
      // a Proxy whose traps throw
    }
    if (typeof name !== 'string' || !name || name === 'Object') return 'an object';
    return `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`;
  }
  return typeof v === 'string' ? quote(v) : `${typeof v} ${String(v)}`;
}

/**
 * An error about a model: a one-line message that starts with the model's name. Text quoted from
 * elsewhere (onnxruntime's, the file system's) has its line breaks folded into spaces.
 */
export class OnnxModelError extends Error {
  constructor(model, message, options) {
    super(`gridsample/onnx: ${model}: ${message}`.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' '), options);
    this.name = 'OnnxModelError';
  }
}

/**
 * onnxruntime's own words for a failure, on one line (its lines joined: a name from the model
 * may hold a line break), without its source path and C++ signature.
 */
export function failureReason(e) {
  const text = String(e?.message ?? e).trim().replace(/\s*\n\s*/g, ' ');
  const status = /Status Message: (.*)$/.exec(text)?.[1] ?? text.replace(/^.*ERROR_MESSAGE: /, '');
  return status.replace(/^\S+\.cc:\d+ .*?\) const(?: \[[^\]]*\])? /, '');
}

/** How a node is named in messages: `node "name" (Op)`, or its position when it has no name. */
export function nodeLabel(node, index) {
  const op = /^[A-Za-z_][\w.]*$/.test(node.opType) ? node.opType : quote(node.opType);
  return node.name ? `node ${quote(node.name)} (${op})` : `node #${index} (${op}, unnamed)`;
}

/** Decodes a model's bytes (after loadOnnxReader()); `model` names it in errors. */
export function decodeModel(bytes, model) {
  const { fromBinary, ModelProtoSchema } = reader();
  let proto;
  try {
    proto = fromBinary(ModelProtoSchema, bytes);
  } catch (e) {
    throw new OnnxModelError(model, `not a valid ONNX model (the protobuf does not decode: ${e.message})`, { cause: e });
  }
  if (!proto.graph || (proto.graph.node.length === 0 && proto.graph.output.length === 0)) {
    throw new OnnxModelError(model, 'not a valid ONNX model (it has no graph)');
  }
  return proto;
}

/**
 * Encodes a ModelProto-like object (decoded messages, and plain objects in @bufbuild/protobuf's
 * init shape where the caller builds one) to bytes (after loadOnnxReader()).
 */
export function encodeModel(model) {
  const { create, toBinary, ModelProtoSchema } = reader();
  return toBinary(ModelProtoSchema, create(ModelProtoSchema, model));
}

/** A TypeProto of a tensor in the init shape encodeModel takes: element type code and, when given, dimensions (numbers). */
export function tensorTypeProto(elemType, dims) {
  const shape = dims && { dim: dims.map((d) => ({ value: { case: 'dimValue', value: BigInt(d) } })) };
  return { value: { case: 'tensorType', value: shape ? { elemType, shape } : { elemType } } };
}

// The TypeProto.Tensor a ValueInfoProto declares (TypeProto's `value` oneof), or undefined.
const tensorTypeOf = (valueInfo) => (valueInfo?.type?.value.case === 'tensorType' ? valueInfo.type.value.value : undefined);

// A dimension's size (dim_value, when positive) or name (dim_param), else null (unknown).
function dimension(d) {
  const { case: kind, value } = d.value;
  if (kind === 'dimParam') return value || null;
  return kind === 'dimValue' && value > 0n ? num(value) : null;
}

/** The element type (an onnxruntime type name) and dimensions a ValueInfoProto declares, or null. */
export function declaredType(valueInfo) {
  const t = tensorTypeOf(valueInfo);
  if (!t || !t.elemType) return null;
  const dims = t.shape ? t.shape.dim.map(dimension) : null;
  return { type: ELEM_TYPES[t.elemType] ?? `type ${t.elemType}`, dims };
}

/** `float32 [N, 1, 28, 28]`; unknown dimensions print as `?`. */
export function formatType(t) {
  if (!t) return 'unknown type';
  return t.dims ? `${t.type} [${t.dims.map((d) => d ?? '?').join(', ')}]` : `${t.type} (any shape)`;
}

// The attributes of each operator of ours and the type each must have (ONNX operator pages).
const ATTRIBUTES = {
  GridSample: { mode: 'STRING', padding_mode: 'STRING', align_corners: 'INT' },
  AffineGrid: { align_corners: 'INT' },
};

// AttributeProto's value field (its local name) for each attribute type.
const VALUE_FIELDS = {
  FLOAT: 'f', INT: 'i', STRING: 's', TENSOR: 't', GRAPH: 'g', SPARSE_TENSOR: 'sparseTensor', TYPE_PROTO: 'tp',
  FLOATS: 'floats', INTS: 'ints', STRINGS: 'strings', TENSORS: 'tensors', GRAPHS: 'graphs', SPARSE_TENSORS: 'sparseTensors', TYPE_PROTOS: 'typeProtos',
};

// The types of the value fields an attribute holds: a singular field is held when the model sets
// it (proto2 field presence), a repeated one when it is not empty.
const heldTypes = (a) => {
  const { isFieldSet, AttributeProtoSchema } = reader();
  return Object.entries(VALUE_FIELDS).filter(([, field]) => isFieldSet(a, AttributeProtoSchema.field[field])).map(([type]) => type);
};

// The attributes of a GridSample / AffineGrid node by name, checked as onnxruntime checks them
// when it loads a model: each named once, known to the operator, and holding one value, of the
// type its `type` field says and the operator takes (an INTS `mode` is refused, not ignored).
function attributeValues(node, version, where) {
  const types = ATTRIBUTES[node.opType];
  const values = new Map();
  for (const a of node.attribute) {
    const name = quote(a.name);
    if (!a.name) throw new Error(`${where}: an attribute has no name`);
    if (values.has(a.name)) throw new Error(`${where}: attribute ${name} appears more than once`);
    if (!Object.hasOwn(types, a.name)) throw new Error(`${where}: unknown attribute ${name} (${node.opType}-${version} has ${Object.keys(types).join(', ')})`);
    const declared = reader().AttributeProto_AttributeType[a.type] ?? `type ${a.type}`;
    const held = heldTypes(a);
    if (held.length !== 1 || held[0] !== declared) {
      throw new Error(`${where}: attribute ${name} says it is ${declared} but holds ${held.length ? held.join(' and ') : 'no value'}`);
    }
    if (declared !== types[a.name]) throw new Error(`${where}: attribute ${name} is ${declared}; ${node.opType}-${version} takes ${types[a.name]}`);
    values.set(a.name, declared === 'INT' ? num(a.i) : new TextDecoder().decode(a.s));
  }
  return values;
}

const quoteAll = (names) => names.map(quote).join(', ');

// The attributes of a GridSample / AffineGrid node as gridsample's options, after checking them
// against the operator version the model's opset selects.
function ourAttributes(node, version, where) {
  const given = attributeValues(node, version, where);
  const align = given.get('align_corners') ?? 0;
  if (align !== 0 && align !== 1) throw new Error(`${where}: align_corners must be 0 or 1, got ${align}`);
  if (node.opType === 'AffineGrid') return { alignCorners: align === 1 };
  const mode = given.get('mode') ?? ONNX_MODE_NAMES[version][0];
  if (!ONNX_MODE_NAMES[version].includes(mode)) {
    const other = version === 16 ? 20 : 16;
    const hint = ONNX_MODE_NAMES[other].includes(mode) ? ` (${quote(mode)} is GridSample-${other}'s spelling)` : '';
    throw new Error(`${where}: mode ${quote(mode)} is not one of GridSample-${version}'s ${quoteAll(ONNX_MODE_NAMES[version])}${hint}`);
  }
  const padding = given.get('padding_mode') ?? 'zeros';
  if (!PADDING_NAMES.includes(padding)) {
    throw new Error(`${where}: padding_mode ${quote(padding)} is not one of ${quoteAll(PADDING_NAMES)}`);
  }
  return { mode, paddingMode: padding, alignCorners: align === 1 };
}

// The element types each input of ours takes (ONNX operator pages; GridSample's X takes any).
const INPUT_TYPES = {
  GridSample: [null, ['float16', 'float32', 'float64']],
  AffineGrid: [['bfloat16', 'float16', 'float32', 'float64'], ['int64']],
};

/**
 * Checks the element types of a node of ours where `typeOf(name)` knows them, as onnxruntime's
 * type inference does when it loads the model (a float32 AffineGrid size is refused).
 */
export function checkInputTypes(n, typeOf, model) {
  n.node.input.forEach((name, i) => {
    const allowed = INPUT_TYPES[n.node.opType][i];
    const type = typeOf(name);
    if (allowed && type !== undefined && !allowed.includes(type)) {
      throw new OnnxModelError(model, `${n.label}: input ${quote(name)} is ${type}; ${n.node.opType}-${n.version} takes ${allowed.join(' or ')}`);
    }
  });
}

// The operator version an opset selects (the latest version at or below it).
function operatorVersion(opType, opset) {
  if (opType === 'AffineGrid') return 20;
  return opset >= 22 ? 22 : opset >= 20 ? 20 : 16;
}

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
 *   valueInfo: Map name -> ValueInfoProto, unused: [labels] }.
 * `keep`: indices of GridSample / AffineGrid nodes to leave in onnxruntime's parts (checked as
 * ours all the same; see onnx/placement.mjs). Throws OnnxModelError for what gridsample cannot run.
 */
export function splitModel(proto, model, { subgraphs = 'error', keep = new Set() } = {}) {
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

  // Which nodes are ours; everything else goes to onnxruntime.
  let nodes = graph.node.map((node, index) => {
    const label = nodeLabel(node, index);
    const entry = { index, node, label, ours: isOurs(node), after: outerNames(node) };
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
    return entry;
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
  return { model, opset, irVersion: num(proto.irVersion), inputs, outputs, initializers, valueInfo, parts, unused };
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

// The TensorProto field that holds each element type's values when it has no raw_data.
const TYPED_FIELDS = {
  float32: 'floatData', float64: 'doubleData', int64: 'int64Data', int32: 'int32Data', int16: 'int32Data',
  int8: 'int32Data', uint16: 'int32Data', uint8: 'int32Data', float16: 'int32Data', bfloat16: 'int32Data',
  uint32: 'uint64Data', bool: 'int32Data',
};

/**
 * An initializer as { type, dims, data } (a typed array of its own), for the nodes gridsample
 * runs; `raw` is its data when the model keeps it in an external file.
 */
export function initializerTensor(t, model, raw = t.rawData) {
  const type = ELEM_TYPES[t.dataType];
  const name = TYPED_FIELDS[type];
  if (!name) throw new OnnxModelError(model, `initializer ${quote(t.name)} has element type ${type ?? t.dataType}, which gridsample cannot read`);
  const Array_ = ARRAY_CLASSES[type];
  const dims = t.dims.map(num);
  const count = dims.reduce((a, b) => a * b, 1);
  let data;
  if (raw && raw.length) {
    if (raw.length !== count * Array_.BYTES_PER_ELEMENT) throw new OnnxModelError(model, `initializer ${quote(t.name)} has ${raw.length} bytes of data, expected ${count * Array_.BYTES_PER_ELEMENT}`);
    data = fromBytes(type, raw); // little-endian, as ONNX stores it
  } else {
    const values = t[name];
    if (values.length !== count) throw new OnnxModelError(model, `initializer ${quote(t.name)} has ${values.length} values, expected ${count}`);
    data = Array_ === BigInt64Array ? BigInt64Array.from(values, (v) => BigInt(String(v))) : Array_.from(values, num);
  }
  return { type, dims, data };
}

/**
 * The initializers among `names` as tensors of their own (initializerTensor), by name; `raw`
 * maps a TensorProto kept in an external file to its bytes (readExternalData).
 */
export function initializerTensors(split, names, raw) {
  const tensors = new Map();
  for (const name of names) {
    const t = split.initializers.get(name);
    if (t && !tensors.has(name)) tensors.set(name, initializerTensor(t, split.model, raw.get(t)));
  }
  return tensors;
}
