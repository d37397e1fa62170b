// Hand-encodes small ONNX models (protobuf wire format) for the onnxruntime-web interop tests and the ONNX Runtime rows of bench/.
//
// Built in code so that nothing downloads a model file or needs a protobuf package: a model of
// a few nodes is a few nested length-delimited messages. Field numbers are those of
// onnx/onnx.proto (ModelProto, GraphProto, NodeProto, AttributeProto, ValueInfoProto,
// TypeProto, TensorShapeProto, TensorProto, OperatorSetIdProto).

// TensorProto.DataType values.
const TYPE = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, float16: 10, float64: 11, uint32: 12, bfloat16: 16 };
const ATTR_INT = 2;
const ATTR_STRING = 3;

// --- protobuf wire format -----------------------------------------------------------------

function varint(n) {
  // Non-negative values only (every integer written here is a size, a version, an enum or a
  // non-negative attribute); a negative one would need ten-byte two's complement.
  let v = BigInt(n);
  if (v < 0n) throw new RangeError(`varint: negative value ${n}`);
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}

const utf8 = (s) => [...new TextEncoder().encode(s)];
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, n) => [...key(field, 0), ...varint(n)];
const bytes = (field, b) => [...key(field, 2), ...varint(b.length), ...b];
const str = (field, s) => bytes(field, utf8(s));

// --- ONNX messages ------------------------------------------------------------------------

// AttributeProto: name = 1, i = 3, s = 4, type = 20.
function attribute(name, value) {
  if (typeof value === 'string') return [...str(1, name), ...int(20, ATTR_STRING), ...bytes(4, utf8(value))];
  return [...str(1, name), ...int(20, ATTR_INT), ...int(3, value)];
}

// ValueInfoProto (name = 1, type = 2) with a tensor type (TypeProto.tensor_type = 1;
// Tensor: elem_type = 1, shape = 2); dims are numbers (dim_value = 1) or strings (symbolic,
// dim_param = 2).
function valueInfo(name, dtype, dims) {
  const shape = dims.flatMap((d) => bytes(1, typeof d === 'string' ? str(2, d) : int(1, d)));
  const tensorType = [...int(1, TYPE[dtype]), ...bytes(2, shape)];
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

// TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (the typed array's
// little-endian bytes).
function tensor(name, dtype, dims, data) {
  const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return [...dims.flatMap((d) => int(1, d)), ...int(2, TYPE[dtype]), ...str(8, name), ...bytes(9, [...raw])];
}

/**
 * An ONNX model as bytes.
 * nodes: [{op, inputs, outputs, attrs: {name: int|string}}]
 * inputs/outputs: [{name, dtype, dims}]
 * initializers: [{name, dtype, dims, data: TypedArray}], constants that are not graph inputs
 * irVersion: 8 (ONNX 1.10+) reads every opset used here; the bench's models say 9 (ONNX 1.15)
 */
export function encodeModel({ opset, nodes, inputs, outputs, initializers = [], name = 'g', irVersion = 8, producer = 'gridsample-tests' }) {
  // GraphProto: node = 1, name = 2, initializer = 5, input = 11, output = 12.
  // NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5.
  const graph = [
    ...nodes.flatMap((n, i) => bytes(1, [
      ...n.inputs.flatMap((s) => str(1, s)),
      ...n.outputs.flatMap((s) => str(2, s)),
      ...str(3, `n${i}`),
      ...str(4, n.op),
      ...Object.entries(n.attrs || {}).flatMap(([k, v]) => bytes(5, attribute(k, v))),
    ])),
    ...str(2, name),
    ...initializers.flatMap((t) => bytes(5, tensor(t.name, t.dtype, t.dims, t.data))),
    ...inputs.flatMap((v) => bytes(11, valueInfo(v.name, v.dtype, v.dims))),
    ...outputs.flatMap((v) => bytes(12, valueInfo(v.name, v.dtype, v.dims))),
  ];
  // ModelProto: ir_version = 1, producer_name = 2, graph = 7, opset_import = 8
  // (OperatorSetIdProto: domain = 1, empty for the default ONNX domain; version = 2).
  const model = [
    ...int(1, irVersion),
    ...str(2, producer),
    ...bytes(7, graph),
    ...bytes(8, [...str(1, ''), ...int(2, opset)]),
  ];
  return new Uint8Array(model);
}
