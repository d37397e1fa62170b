// ONNX protobuf messages: the reader (npm @bufbuild/protobuf with the schema generated from onnx.proto into dist/onnx_pb.mjs) loaded on demand, models decoded and encoded, tensor types as declared, and initializers as tensors.
import { OnnxModelError, quote } from './errors.mjs';
import { ARRAY_CLASSES, fromBytes } from './tensor_types.mjs';
import { importOptional } from '../core/optional_package.mjs';

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

export function reader() {
  if (!onnx) throw new Error('gridsample/onnx: loadOnnxReader() must resolve before a model is decoded or encoded');
  return onnx;
}

/** TensorProto.DataType codes as onnxruntime's tensor type names. */
export const ELEM_TYPES = Object.freeze({
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 8: 'string',
  9: 'bool', 10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64', 16: 'bfloat16',
});
/** The element type codes by dtype name ('float32' -> 1). */
export const ELEM_CODES = Object.freeze(Object.fromEntries(Object.entries(ELEM_TYPES).map(([k, v]) => [v, Number(k)])));

export const num = (v) => (typeof v === 'number' ? v : Number(v)); // int64 fields are bigints

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
export const tensorTypeOf = (valueInfo) => (valueInfo?.type?.value.case === 'tensorType' ? valueInfo.type.value.value : undefined);

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

// The TensorProto field that holds each element type's values when it has no raw_data.
const TYPED_FIELDS = {
  float32: 'floatData', float64: 'doubleData', int64: 'int64Data', int32: 'int32Data', int16: 'int32Data',
  int8: 'int32Data', uint16: 'int32Data', uint8: 'int32Data', float16: 'int32Data', bfloat16: 'int32Data',
  uint32: 'uint64Data', bool: 'int32Data',
};

/**
 * An initializer as { type, dims, data } (a typed array of its own), for the nodes gridsample
 * runs; `raw` is its data when the model keeps it in an external file. `alloc(type, dims)` may
 * give the tensor to write it into (a heap tensor: its bytes are copied there, and nowhere else).
 */
export function initializerTensor(t, model, raw = t.rawData, alloc = () => null) {
  const type = ELEM_TYPES[t.dataType];
  const name = TYPED_FIELDS[type];
  if (!name) throw new OnnxModelError(model, `initializer ${quote(t.name)} has element type ${type ?? t.dataType}, which gridsample cannot read`);
  const Array_ = ARRAY_CLASSES[type];
  const dims = t.dims.map(num);
  const count = dims.reduce((a, b) => a * b, 1);
  let data;
  const into = alloc(type, dims);
  if (raw && raw.length) {
    if (raw.length !== count * Array_.BYTES_PER_ELEMENT) throw new OnnxModelError(model, `initializer ${quote(t.name)} has ${raw.length} bytes of data, expected ${count * Array_.BYTES_PER_ELEMENT}`);
    if (into) new Uint8Array(into.data.buffer, into.data.byteOffset, into.data.byteLength).set(raw); // wasm is little-endian, as ONNX stores it
    else data = fromBytes(type, raw);
  } else {
    const values = t[name];
    if (values.length !== count) throw new OnnxModelError(model, `initializer ${quote(t.name)} has ${values.length} values, expected ${count}`);
    data = Array_ === BigInt64Array ? BigInt64Array.from(values, (v) => BigInt(String(v))) : Array_.from(values, num);
    into?.data.set(data);
  }
  return into ?? { type, dims, data };
}

/**
 * The initializers among `names` as tensors of their own (initializerTensor), by name; `raw`
 * maps a TensorProto kept in an external file to its bytes (readExternalData).
 */
export function initializerTensors(split, names, raw, alloc) {
  const tensors = new Map();
  for (const name of names) {
    const t = split.initializers.get(name);
    if (t && !tensors.has(name)) tensors.set(name, initializerTensor(t, split.model, raw.get(t), alloc));
  }
  return tensors;
}
