// The GridSample and AffineGrid nodes gridsample runs: which nodes are ours, the operator version an opset selects, and their attributes and input types checked as onnxruntime checks them.
import { ONNX_MODE_NAMES, PADDING_NAMES } from '../core/modes.mjs';
import { OnnxModelError, quote, quoteAll } from './errors.mjs';
import { num, reader } from './model_proto.mjs';

/** The operators gridsample runs, with the opset each first appeared in. */
export const OUR_OPS = Object.freeze({ GridSample: 16, AffineGrid: 20 });

export const isDefaultDomain = (domain) => !domain || domain === 'ai.onnx';
/** Whether a node is a GridSample or AffineGrid of the default domain (own properties only: an op type such as 'constructor' is not ours). */
export const isOurs = (node) => (isDefaultDomain(node.domain) && Object.hasOwn(OUR_OPS, node.opType)) || isMmcvAttention(node);

/** mmdeploy's multi-scale deformable attention node, which gridsample runs (onnxruntime has no kernel for it). */
export const MMCV_ATTENTION = 'MMCVMultiScaleDeformableAttention';
export const isMmcvAttention = (node) => node.domain === 'mmdeploy' && node.opType === MMCV_ATTENTION;

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

// The attributes of a GridSample / AffineGrid node as gridsample's options, after checking them
// against the operator version the model's opset selects.
export function ourAttributes(node, version, where) {
  const given = attributeValues(node, version, where);
  // onnxruntime reads any non-zero align_corners as true (static_cast<bool>), and so do we.
  const alignCorners = (given.get('align_corners') ?? 0) !== 0;
  if (node.opType === 'AffineGrid') return { alignCorners };
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
  return { mode, paddingMode: padding, alignCorners };
}

// The element types each input of ours takes (ONNX operator pages; GridSample's X takes any).
const INPUT_TYPES = {
  GridSample: [null, ['float16', 'float32', 'float64']],
  AffineGrid: [['bfloat16', 'float16', 'float32', 'float64'], ['int64']],
  // The fused attention (onnx/fuse_attention.mjs) and mmdeploy's: float32 here.
  MultiScaleDeformableAttention: [['float32'], ['float32'], ['float32']],
  [MMCV_ATTENTION]: [['float32'], ['int64', 'int32'], ['int64', 'int32'], ['float32'], ['float32']],
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
      throw new OnnxModelError(model, `${n.label}: input ${quote(name)} is ${type}; ${n.node.opType}${n.version ? `-${n.version}` : ''} takes ${allowed.join(' or ')}`);
    }
  });
}

// The operator version an opset selects (the latest version at or below it).
export function operatorVersion(opType, opset) {
  if (opType === 'AffineGrid') return 20;
  return opset >= 22 ? 22 : opset >= 20 ? 20 : 16;
}
