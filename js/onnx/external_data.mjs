// Reads the tensor data an ONNX model keeps in external files (onnxruntime's `externalData` option, else files beside the model), each tensor's location, offset and length checked, for gridsample/onnx's own nodes and its onnxruntime parts.
import { readBytes } from '#read';

import { describe, nodeLabel, OnnxModelError, quote } from './errors.mjs';
import { num } from './model_proto.mjs';

// Bytes per element of each TensorProto.DataType that can be stored outside (string cannot);
// the 4-bit types (uint4, int4, float4e2m1) pack two elements a byte.
const ELEMENT_BYTES = {
  1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 14: 8, 15: 16, 16: 2,
  17: 1, 18: 1, 19: 1, 20: 1, 21: 0.5, 22: 0.5, 23: 0.5,
};
const EXTERNAL = 1; // TensorProto.DataLocation.EXTERNAL

const isBlob = (v) => typeof Blob === 'function' && v instanceof Blob;
const isBuffer = (v) => v instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer);

/**
 * `options.externalData` checked and as `{ path, data }` entries: onnxruntime-web's
 * `ExternalDataFileType[]`, where a string is both the path the model names and where to read it.
 */
export function externalDataOption(value) {
  const where = 'InferenceSession.create: options.externalData';
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${where}: expected an array of { path, data } objects or paths/URLs, got ${describe(value)}`);
  return value.map((entry, i) => {
    if (typeof entry === 'string') return { path: entry, data: entry };
    if (entry === null || typeof entry !== 'object') throw new TypeError(`${where}[${i}]: expected { path, data } or a path/URL string, got ${describe(entry)}`);
    if (typeof entry.path !== 'string' || !entry.path) throw new TypeError(`${where}[${i}].path: expected the file name the model gives as location (a non-empty string), got ${describe(entry.path)}`);
    const { data } = entry;
    if (!(typeof data === 'string' || data instanceof URL || data instanceof Uint8Array || isBuffer(data) || isBlob(data))) {
      throw new TypeError(`${where}[${i}].data: expected a path or URL, a Blob, an ArrayBuffer or a Uint8Array, got ${describe(data)}`);
    }
    return { path: entry.path, data };
  });
}

// Every tensor of a graph that keeps its data outside, with how messages name it: initializers,
// sparse initializers, attribute tensors, and those of subgraphs and functions.
function* externalTensors(graph) {
  for (const t of graph.initializer ?? []) yield [t, `initializer ${quote(t.name)}`];
  for (const s of graph.sparseInitializer ?? []) {
    for (const t of [s.values, s.indices]) if (t) yield [t, `sparse initializer ${quote(s.values?.name ?? '')}`];
  }
  yield* nodeTensors(graph.node ?? []);
}

function* nodeTensors(nodes) {
  for (const [i, node] of nodes.entries()) {
    for (const a of node.attribute ?? []) {
      const label = `attribute ${quote(a.name)} of ${nodeLabel(node, i)}`;
      for (const t of [a.t, ...(a.tensors ?? [])]) if (t) yield [t, `the tensor of ${label}`];
      for (const s of [a.sparseTensor, ...(a.sparseTensors ?? [])]) {
        for (const t of [s?.values, s?.indices]) if (t) yield [t, `the sparse tensor of ${label}`];
      }
      for (const g of [a.g, ...(a.graphs ?? [])]) if (g) yield* externalTensors(g);
    }
  }
}

// A tensor's external_data entries: location, and offset and length as byte counts.
function placement(t, fail) {
  const entries = new Map(t.externalData.map((e) => [e.key, e.value]));
  const location = entries.get('location');
  if (!location) throw fail('keeps its data outside the model but gives no location');
  const count = (key) => {
    const text = entries.get(key);
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw fail(`external data ${key} ${quote(text)} is not a byte count`);
    return Number(text);
  };
  return { location, offset: count('offset') ?? 0, length: count('length') };
}

// The bytes a tensor's type and dimensions take.
function byteSize(t, fail) {
  const dims = t.dims.map(num);
  if (dims.some((d) => !Number.isSafeInteger(d) || d < 0)) throw fail(`has dimensions [${dims.join(', ')}]`);
  const per = ELEMENT_BYTES[t.dataType];
  if (per === undefined) throw fail(`has element type ${t.dataType}, which cannot be kept in an external file`);
  return Math.ceil(dims.reduce((a, b) => a * b, 1) * per);
}

// A location named relative to the model's path or URL (`base`): the file beside the model.
function beside(base, location) {
  const text = String(base);
  if (base instanceof URL || (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text))) return new URL(location, text);
  return text.replace(/[^\\/]*$/, '') + location;
}

// A location the model may name beside itself: relative, and inside the model's folder.
const staysBeside = (location) => !/^([\\/]|[a-z][a-z0-9+.-]*:)/i.test(location) && !location.split(/[\\/]/).includes('..');

async function bytesOf(data) {
  if (typeof data === 'string' || data instanceof URL) return readBytes(data);
  if (data instanceof Uint8Array) return data;
  if (isBuffer(data)) return new Uint8Array(data);
  return new Uint8Array(await data.arrayBuffer()); // a Blob
}

/**
 * Reads the external data of every tensor of `proto` that keeps it outside: from the entry of
 * `entries` (externalDataOption) whose path is the tensor's location, else, for a model given as a
 * path or URL (`base`), from the file beside it. Each file is read once. Resolves to `{ files:
 * [{ path, data }] (onnxruntime's externalData option: every location the model names, with its
 * bytes), raw: Map TensorProto -> its bytes }`. Throws OnnxModelError naming the tensor for a file
 * that cannot be read, a range past its end, or a length that does not fit the tensor.
 */
export async function readExternalData(proto, { entries, base, model }) {
  const loaded = new Map(); // location less any '../' -> { paths: the model's spellings, bytes: a Promise }
  const raw = new Map();
  const key = (path) => path.replace(/^(\.\/)+/, '');
  const tensors = [...externalTensors(proto.graph), ...(proto.functions ?? []).flatMap((f) => [...nodeTensors(f.node)])];
  for (const [t, label] of tensors) {
    if (num(t.dataLocation) !== EXTERNAL) continue;
    const fail = (message) => new OnnxModelError(model, `${label} ${message}`);
    const { location, offset, length } = placement(t, fail);
    const size = byteSize(t, fail);
    if (length !== undefined && length !== size) throw fail(`has external data of length ${length} bytes, expected ${size} for its type and dimensions`);
    if (!loaded.has(key(location))) {
      const entry = entries.find((e) => key(e.path) === key(location));
      if (!entry && base === undefined) {
        throw fail(`keeps its data in ${quote(location)}: pass that file as options.externalData: [{ path: ${quote(location)}, data }]`);
      }
      if (!entry && !staysBeside(location)) throw fail(`keeps its data in ${quote(location)}, which is not a file beside the model`);
      const source = entry ? entry.data : beside(base, location);
      const bytes = bytesOf(source).catch((e) => {
        const from = typeof source === 'string' || source instanceof URL ? ` (${quote(source)})` : '';
        throw new OnnxModelError(model, `cannot read the external data file ${quote(location)}${from}: ${e?.message ?? e}`, { cause: e });
      });
      loaded.set(key(location), { paths: new Set(), bytes });
    }
    const file = loaded.get(key(location));
    file.paths.add(location);
    const bytes = await file.bytes;
    if (offset + size > bytes.length) {
      throw fail(`has external data at offset ${offset}, ${size} bytes, past the end of ${quote(location)} (${bytes.length} bytes)`);
    }
    raw.set(t, bytes.subarray(offset, offset + size));
  }
  const files = [];
  for (const { paths, bytes } of loaded.values()) for (const path of paths) files.push({ path, data: await bytes });
  return { files, raw };
}
