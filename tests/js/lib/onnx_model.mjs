// Builds small ONNX models in code (with the onnx-proto package) for the onnxruntime interop tests, the example models and the ONNX Runtime rows of bench/.
//
// Built in code so that nothing downloads a model file: a model of a few nodes is a few nested
// messages. onnx-proto is protobufjs static code for onnx/onnx.proto (ONNX 1.10 schema); every
// field written here exists there. Nothing is validated beyond what is needed to encode: a
// wrong graph is onnxruntime's to reject.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const { AttributeType } = onnx.AttributeProto;

// TensorProto.DataType values, and the typed array each dtype's data must come in.
const TYPE = {
  float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, bool: 9,
  float16: 10, float64: 11, uint32: 12, uint64: 13, bfloat16: 16,
};
const ARRAY = {
  float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
  int32: Int32Array, int64: BigInt64Array, bool: Uint8Array, float16: Uint16Array /* bits */,
  float64: Float64Array, uint32: Uint32Array, uint64: BigUint64Array, bfloat16: Uint16Array /* bits */,
};

// raw_data is little-endian; typed arrays are in the machine's order.
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

function elemType(dtype) {
  const t = TYPE[dtype];
  if (t === undefined) throw new TypeError(`onnx_model: unknown dtype '${dtype}'`);
  return t;
}

// An int64 field's value: numbers as they are (protobufjs writes negative ones as ten-byte
// two's complement), BigInts as {low, high} words, which protobufjs takes in place of a Long.
function int64(v) {
  if (typeof v === 'bigint') {
    const u = BigInt.asUintN(64, v);
    return { low: Number(u & 0xffffffffn) | 0, high: Number(u >> 32n) | 0, unsigned: false };
  }
  if (!Number.isSafeInteger(v)) throw new TypeError(`onnx_model: ${v} is not an integer`);
  return v;
}

const utf8 = (s) => new TextEncoder().encode(s);

// TensorProto with the data as raw_data, or, given `external` (its external_data entries, e.g.
// {location, offset, length}), kept in an external file (see externalize).
// t: {name, dtype, dims: numbers, data: TypedArray of the dtype's kind (see ARRAY), external}.
function tensor({ name, dtype, dims, data, external }) {
  const kind = ARRAY[dtype];
  if (!kind) throw new TypeError(`onnx_model: tensor '${name}': unknown dtype '${dtype}'`);
  if (!(data instanceof kind)) throw new TypeError(`onnx_model: tensor '${name}': ${dtype} data must be a ${kind.name}`);
  const count = dims.reduce((a, b) => a * b, 1);
  if (data.length !== count) throw new RangeError(`onnx_model: tensor '${name}': ${data.length} values for dims [${dims}]`);
  if (!LITTLE_ENDIAN && data.BYTES_PER_ELEMENT > 1) throw new Error('onnx_model: big-endian hosts are not supported');
  const where = external
    ? { dataLocation: onnx.TensorProto.DataLocation.EXTERNAL, externalData: Object.entries(external).map(([key, value]) => ({ key, value: String(value) })) }
    : { rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
  return onnx.TensorProto.create({
    dims: dims.map(int64),
    dataType: elemType(dtype),
    ...(name === undefined ? {} : { name }),
    ...where,
  });
}

/**
 * Moves the data of the initializers named in `names` into one external file called
 * `location`, as onnx.save_model(..., save_as_external_data=True) does: returns
 * { initializers (those moved with their `external` entries: location, offset, length),
 * data (the file's bytes) }. Each tensor starts on a 16-byte boundary after 16 bytes of
 * filler, so that no offset is 0 and a wrong offset reads wrong values.
 */
export function externalize(initializers, names, location) {
  const chunks = [];
  let size = 16;
  const moved = initializers.map((t) => {
    if (!names.includes(t.name)) return t;
    const bytes = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    const offset = Math.ceil(size / 16) * 16;
    chunks.push([offset, bytes]);
    size = offset + bytes.length;
    return { ...t, external: { location, offset, length: bytes.length } };
  });
  const data = new Uint8Array(size).fill(0xee);
  for (const [offset, bytes] of chunks) data.set(bytes, offset);
  return { initializers: moved, data };
}

// AttributeProto from a JS value:
//   string -> STRING; integer number or BigInt -> INT; other number -> FLOAT;
//   {i}, {f}, {s}, {t: tensor}, {ints: [...]}, {floats: [...]}, {strings: [...]}, {g: GraphProto
//   fields (onnx-proto's names)} for the kind
//   named (e.g. {f: 1} for a float attribute whose value is integral); {raw: AttributeProto fields}
//   as given, type and value fields free to disagree (for models onnxruntime must refuse).
function attribute(name, value) {
  const a = { name };
  if (typeof value === 'string') return onnx.AttributeProto.create({ ...a, type: AttributeType.STRING, s: utf8(value) });
  if (typeof value === 'bigint' || Number.isInteger(value)) return onnx.AttributeProto.create({ ...a, type: AttributeType.INT, i: int64(value) });
  if (typeof value === 'number') return onnx.AttributeProto.create({ ...a, type: AttributeType.FLOAT, f: value });
  const keys = value && typeof value === 'object' ? Object.keys(value) : [];
  if (keys.length !== 1) throw new TypeError(`onnx_model: attribute '${name}': cannot encode ${value}`);
  const [kind] = keys;
  const v = value[kind];
  switch (kind) {
    case 'i': return onnx.AttributeProto.create({ ...a, type: AttributeType.INT, i: int64(v) });
    case 'f': return onnx.AttributeProto.create({ ...a, type: AttributeType.FLOAT, f: v });
    case 's': return onnx.AttributeProto.create({ ...a, type: AttributeType.STRING, s: utf8(v) });
    case 't': return onnx.AttributeProto.create({ ...a, type: AttributeType.TENSOR, t: tensor(v) });
    case 'ints': return onnx.AttributeProto.create({ ...a, type: AttributeType.INTS, ints: [...v].map(int64) });
    case 'floats': return onnx.AttributeProto.create({ ...a, type: AttributeType.FLOATS, floats: [...v] });
    case 'strings': return onnx.AttributeProto.create({ ...a, type: AttributeType.STRINGS, strings: [...v].map(utf8) });
    case 'g': return onnx.AttributeProto.create({ ...a, type: AttributeType.GRAPH, g: onnx.GraphProto.create(v) });
    case 'raw': return onnx.AttributeProto.create({ ...a, ...v });
    default: throw new TypeError(`onnx_model: attribute '${name}': unknown kind '${kind}'`);
  }
}

// ValueInfoProto with a tensor type; dims are numbers (dim_value) or strings (symbolic,
// dim_param); dims left out (undefined or null) gives a tensor of unknown rank.
function valueInfo({ name, dtype, dims }) {
  if (dtype === undefined) return onnx.ValueInfoProto.create({ name }); // no type: onnxruntime infers it
  const tensorType = { elemType: elemType(dtype) };
  if (dims != null) {
    tensorType.shape = { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: int64(d) })) };
  }
  return onnx.ValueInfoProto.create({ name, type: { tensorType } });
}

/**
 * An ONNX model as bytes (Uint8Array).
 * nodes: [{op, inputs, outputs, attrs: {name: value} or [[name, value], ...] (which may repeat a
 *   name), name (default `n${i}`), domain}]; attribute values as `attribute` above (int, float,
 *   string or an explicit {kind: value})
 * inputs/outputs/valueInfo: [{name, dtype, dims}]; dims numbers, or strings for symbolic dims; an
 *   output without dtype declares no type
 * initializers: [{name, dtype, dims, data: TypedArray}], constants that are not graph inputs;
 *   int64 data as BigInt64Array, float16 as Uint16Array of the bits
 * opsetImports: [{domain, version}] besides the default domain's `opset`
 * irVersion: 8 (ONNX 1.10+) reads every opset up to 16; opset 20 goes with 9, 22 with 10
 */
export function encodeModel({
  opset, nodes, inputs, outputs, initializers = [], valueInfo: infos = [], opsetImports = [],
  name = 'g', irVersion = 8, producer = 'gridsample-tests', docString,
}) {
  const graph = onnx.GraphProto.create({
    node: nodes.map((n, i) => onnx.NodeProto.create({
      input: n.inputs,
      output: n.outputs,
      name: n.name ?? `n${i}`,
      opType: n.op,
      attribute: (Array.isArray(n.attrs) ? n.attrs : Object.entries(n.attrs || {})).map(([k, v]) => attribute(k, v)),
      ...(n.domain ? { domain: n.domain } : {}),
    })),
    name,
    initializer: initializers.map(tensor),
    input: inputs.map(valueInfo),
    output: outputs.map(valueInfo),
    valueInfo: infos.map(valueInfo),
  });
  const model = onnx.ModelProto.create({
    irVersion: int64(irVersion),
    producerName: producer,
    ...(docString ? { docString } : {}),
    graph,
    opsetImport: [{ domain: '', version: opset }, ...opsetImports].map((o) => onnx.OperatorSetIdProto.create({
      domain: o.domain ?? '',
      version: int64(o.version),
    })),
  });
  // A plain Uint8Array of its own (in Node, protobufjs hands back a Buffer that may be a view of
  // a shared pool).
  return new Uint8Array(onnx.ModelProto.encode(model).finish());
}
