// Hand-encodes tiny ONNX models (protobuf wire format) for the onnxruntime-web interop tests.
// Field numbers are those of onnx/onnx.proto (ModelProto, GraphProto, NodeProto, ...).

const TYPE = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, float16: 10, float64: 11, uint32: 12, bfloat16: 16 };
const ATTR_INT = 2;
const ATTR_STRING = 3;

function varint(n) {
  const out = [];
  let v = BigInt(n);
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

function attribute(name, value) {
  if (typeof value === 'string') return [...str(1, name), ...int(20, ATTR_STRING), ...bytes(4, utf8(value))];
  return [...str(1, name), ...int(20, ATTR_INT), ...int(3, value)];
}

// ValueInfoProto with a tensor type; dims are numbers or strings (symbolic).
function valueInfo(name, dtype, dims) {
  const shape = dims.flatMap((d) => bytes(1, typeof d === 'string' ? str(2, d) : int(1, d)));
  const tensorType = [...int(1, TYPE[dtype]), ...bytes(2, shape)];
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

/**
 * An ONNX model as bytes.
 * nodes: [{op, inputs, outputs, attrs: {name: int|string}}]
 * inputs/outputs: [{name, dtype, dims}]
 */
export function encodeModel({ opset, nodes, inputs, outputs, name = 'g' }) {
  const graph = [
    ...nodes.flatMap((n, i) => bytes(1, [
      ...n.inputs.flatMap((s) => str(1, s)),
      ...n.outputs.flatMap((s) => str(2, s)),
      ...str(3, `n${i}`),
      ...str(4, n.op),
      ...Object.entries(n.attrs || {}).flatMap(([k, v]) => bytes(5, attribute(k, v))),
    ])),
    ...str(2, name),
    ...inputs.flatMap((v) => bytes(11, valueInfo(v.name, v.dtype, v.dims))),
    ...outputs.flatMap((v) => bytes(12, valueInfo(v.name, v.dtype, v.dims))),
  ];
  const model = [
    ...int(1, 8), // ir_version 8 (onnx 1.10+): enough for opset 20
    ...str(2, 'gridsample-tests'),
    ...bytes(7, graph),
    ...bytes(8, [...str(1, ''), ...int(2, opset)]),
  ];
  return new Uint8Array(model);
}
