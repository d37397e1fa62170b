// Values crossing the parts of a gridsample/onnx session: where a tensor lives (CPU or GPU), its type and dimensions, where an onnxruntime part should leave its outputs, and what a node of ours read and wrote.

import { libraryRules } from '../core/api.mjs';
import { describe, quote } from './errors.mjs';
import { formatType } from './model_proto.mjs';
import { ARRAY_CLASSES } from './tensor_types.mjs';

const CPU = new Set(['cpu', 'cpu-pinned']);
const FLOAT_TYPES = new Set(['float32', 'float16', 'bfloat16', 'float64']);

// A tensor's element type: onnxruntime tensors say `type`, gridsample's heap tensors `dtype`.
export const typeOf = (t) => t.type ?? t.dtype;

// Whether JavaScript can read a tensor's data as it is.
export const onHost = (t) => !t.location || CPU.has(t.location);

// A tensor whose data JavaScript can read (GPU tensors are downloaded).
export async function onCpu(ort, t) {
  return onHost(t) ? t : new ort.Tensor(t.type, await t.getData(), t.dims);
}

// The typed array that holds a type's values on the CPU (a plain array of strings for 'string').
const arrayClassOf = (type) => (type === 'uint64' ? BigUint64Array : ARRAY_CLASSES[type]);
const isFloat16Array = (data) => typeof globalThis.Float16Array === 'function' && data instanceof globalThis.Float16Array;

/**
 * What is wrong with a feed for an input the model declares as `declared` ({type, dims}), or
 * null: its type and dimensions against the declaration, and, for data on the CPU, its array
 * against its type and dimensions (so that a plain { type, dims, data } object cannot fail
 * later inside onnxruntime's Tensor constructor).
 */
export function checkFeed(t, declared) {
  // One pass over the dimensions; the words are made only for a message.
  const expected = () => `expected ${formatType(declared)}`;
  if (t === null || typeof t !== 'object' || typeof t.type !== 'string' || !t.dims || typeof t.dims[Symbol.iterator] !== 'function') {
    return `${expected()}, got ${describe(t)} (make it with new ort.Tensor(type, data, dims))`;
  }
  const want = declared.dims;
  let [rank, count, shapeOk] = [0, 1, true];
  for (const dim of t.dims) {
    const d = Number(dim);
    if (!Number.isSafeInteger(d) || d < 0) return `${expected()}, got dimensions [${[...t.dims].map(String).join(', ')}]`;
    if (want && typeof want[rank] === 'number' && want[rank] !== d) shapeOk = false;
    count *= d;
    rank += 1;
  }
  const dims = () => [...t.dims].map(Number).join(', ');
  if (t.type !== declared.type || (want && (!shapeOk || want.length !== rank))) return `${expected()}, got ${t.type} [${dims()}]`;
  if (!onHost(t)) return null;
  const { data } = t;
  const ArrayClass = arrayClassOf(t.type);
  if (ArrayClass ? !(data instanceof ArrayClass || (t.type === 'float16' && isFloat16Array(data))) : !Array.isArray(data)) {
    return `its data must be a ${ArrayClass?.name ?? 'array of strings'} for ${t.type}, got ${describe(data)}`;
  }
  if (data.length !== count) return `${t.type} [${dims()}] has ${count} elements, but its data holds ${data.length}`;
  return null;
}

// The dimensions of a node's result as the library computes them (GridSample from X's and the
// grid's dimensions, AffineGrid from its size input); null when `gs` is a gridsample module of
// another copy of the package, whose results are then taken as they come.
export function outputDims(gs, opType, a, b) {
  const queries = libraryRules(gs);
  if (!queries) return null;
  return opType === 'GridSample' ? queries.gridSample(a.dims, b.dims) : queries.affineGrid(b.data);
}

// The dimensions of multiScaleDeformableAttention's result for its arguments (value,
// spatialShapes, levelStartIndex, samplingLocations, attentionWeights), as outputDims.
export function attentionDims(gs, [value, shapes, starts, loc, weights, options]) {
  return libraryRules(gs)?.multiScaleDeformableAttention(value.dims, shapes, starts, loc.dims, weights.dims, options) ?? null;
}

// onnxruntime's ValueMetadata of values ({name, type: declaredType()}): '' for an unknown dimension.
export const metadata = (values) => values.map(({ name, type }) => ({ name, isTensor: true, type: type?.type, shape: type?.dims?.map((d) => d ?? '') ?? [] }));

// With a GPU execution provider, the outputs of an onnxruntime part that only later
// onnxruntime parts read stay on the GPU ('gpu-buffer'); so do those our nodes read when they
// run on WebGPU (`backend`), but AffineGrid's size; the others come to the CPU (our wasm nodes
// read them there), graph outputs where the caller's preferredOutputLocation says. Values of
// integer or bool type (shapes, indices: the CPU nodes of later parts read them), declared or
// inferred (onnx/value_types.mjs), stay on the CPU: on the GPU, each was read back once a run.
export function outputLocations(options, split, part, backend) {
  if (!usesProvider(options.executionProviders, ['webgpu', 'webnn'])) return {};
  const later = split.parts.slice(split.parts.indexOf(part) + 1);
  const ourNodes = later.filter((p) => p.runsOn === 'gridsample').flatMap((p) => p.nodes);
  const readByOurs = new Set(backend === 'webgpu'
    ? ourNodes.filter((n) => n.node.opType === 'AffineGrid').map((n) => n.node.input[1])
    : ourNodes.flatMap((n) => n.node.input));
  const graphOutputs = new Set(split.outputs.map((v) => v.name));
  const where = (name) => {
    if (graphOutputs.has(name)) return preferredLocation(options.preferredOutputLocation, name);
    const type = split.types.get(name);
    return readByOurs.has(name) || (type && !FLOAT_TYPES.has(type)) ? 'cpu' : 'gpu-buffer';
  };
  return { preferredOutputLocation: Object.fromEntries(part.outputs.map((name) => [name, where(name)])) };
}

/** Whether onnxruntime's execution providers (names or { name } objects) include one of `names`. */
export function usesProvider(executionProviders, names) {
  return (executionProviders ?? []).some((ep) => names.includes(typeof ep === 'string' ? ep : ep?.name));
}

/** Where the caller's preferredOutputLocation (one for all, or per name) puts graph output `name`. */
export function preferredLocation(preferred, name) {
  return (typeof preferred === 'string' ? preferred : preferred?.[name]) ?? 'cpu';
}

// What a node of ours read and wrote: types and dimensions (AffineGrid's size with its values).
// `valueOf(name)`: the value a run holds by that name (a result, a feed or a constant).
export function io(n, valueOf) {
  const shape = (name) => {
    const t = valueOf(name);
    return t ? { name, type: typeOf(t), dims: [...t.dims].map(Number) } : { name };
  };
  const inputs = n.node.input.map(shape);
  const size = valueOf(n.node.input[1]);
  if (n.node.opType === 'AffineGrid' && size && onHost(size)) inputs[1].values = Array.from(size.data, Number);
  return { name: n.node.name, opType: n.node.opType, inputs, output: shape(n.node.output[0]) };
}

/** A part's entry in lastProfile (PartTiming): its time `ms`, and for a gridsample part what each node read and wrote. */
export function partTiming(part, ms, valueOf) {
  const time = { part: part.index + 1, runsOn: part.runsOn, nodes: part.nodes.length, ms };
  if (part.runsOn === 'gridsample') time.io = part.nodes.map((n) => io(n, valueOf));
  return time;
}

// Constants of gridsample parts this large live in the wasm heap (a heap tensor): the session's
// only copy, read there by every run, rather than a JavaScript copy copied in at every call.
const HEAP_CONSTANT_BYTES = 1 << 20;
const HEAP_TYPES = new Set(['float32', 'float16', 'float64']);

/** initializerTensor's `alloc` for the constants of gridsample parts run on `backend` ('wasm' or 'webgpu'). */
export const heapConstant = (gs, backend) => (type, dims) => {
  const bytes = dims.reduce((a, b) => a * b, 1) * ARRAY_CLASSES[type].BYTES_PER_ELEMENT;
  return backend === 'wasm' && HEAP_TYPES.has(type) && bytes >= HEAP_CONSTANT_BYTES ? gs.tensor(type, dims) : null;
};

/** The bytes a constant holds in the wasm heap (a heap tensor, from heapConstant); 0 for one held in JavaScript. */
export const heapBytes = (t) => (typeof t?.dispose === 'function' ? t.byteLength : 0);

/**
 * run(feeds, fetches, options)'s arguments as one run's request, `{ feeds, wanted, runOptions,
 * profile }` (readFeeds, readFetches, splitProfile; `fetches` may be left out), checked against
 * the session's `inputNames` and `outputNames` and the model's declared `inputs`.
 */
export function readRun([feeds, fetches, options], { inputNames, outputNames }, inputs, error) {
  if (!Array.isArray(fetches) && fetches !== undefined) [fetches, options] = [undefined, fetches];
  const [runOptions, profile] = splitProfile(options);
  return { feeds: readFeeds(feeds, inputNames, inputs, error), wanted: readFetches(fetches, outputNames, error), runOptions, profile };
}

/**
 * run()'s feeds as a Map of their own, checked against the model's inputs (names, then each
 * declared {name, type}); `error(message)` makes the session's error.
 */
export function readFeeds(feeds, inputNames, inputs, error) {
  if (feeds === null || typeof feeds !== 'object' || Array.isArray(feeds)) {
    throw error(`run: feeds: expected an object { inputName: ort.Tensor }, got ${describe(feeds)}`);
  }
  for (const name of Object.keys(feeds)) {
    if (!inputNames.includes(name)) {
      throw error(`run: feeds: ${quote(name)} is not an input of the model; its inputs are ${inputNames.map(quote).join(', ')}`);
    }
  }
  const checked = new Map();
  for (const { name, type } of inputs) {
    const t = feeds[name];
    if (t === undefined) throw error(`run: input ${quote(name)} is missing (expected ${formatType(type)})`);
    const problem = checkFeed(t, type);
    if (problem) throw error(`run: input ${quote(name)}: ${problem}`);
    checked.set(name, t);
  }
  return checked;
}

/**
 * run()'s options as [onnxruntime's run options, our `profile` flag]: an object of the run's
 * own (onnxruntime-web writes its defaults into the options it is given: a frozen or shared
 * object would fail, and the caller's would change), undefined where the caller gave none.
 */
export function splitProfile(options) {
  if (options == null) return [undefined, false];
  const { profile, ...runOptions } = options;
  return [runOptions, Boolean(profile)];
}

/** run()'s fetches (output names) as an array of their own, or undefined for every output. */
export function readFetches(fetches, outputNames, error) {
  if (fetches === undefined) return undefined;
  // onnxruntime's own words (onnxruntime-common's run(), web and node alike).
  if (fetches.length === 0) throw error("run: 'fetches' cannot be an empty array.");
  for (const name of fetches) {
    if (!outputNames.includes(name)) {
      throw error(`run: fetches: ${describe(name)} is not an output of the model; its outputs are ${outputNames.map(quote).join(', ')}`);
    }
  }
  return [...fetches];
}
