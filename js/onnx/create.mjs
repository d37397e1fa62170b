// Making a split session (onnx/session.mjs): create()'s model argument and options read and checked, a model with nothing for gridsample made whole, and the onnxruntime sessions of a split's parts (at create(), and again when the first run's placement leaves nodes to onnxruntime).
import { readBytes } from '#read';

import { counted } from '../core/messages.mjs';
import { describe, OnnxModelError, quote } from './errors.mjs';
import { subModel } from './graph.mjs';
import { checkInputTypes } from './our_nodes.mjs';
import { PLACEMENTS } from './placement.mjs';
import { metadata, outputLocations } from './values.mjs';

const OWN_OPTIONS = ['ort', 'gridsample', 'subgraphs', 'gridsampleParts', 'gridsampleBackend', 'externalData', 'placement', 'fuseAttention'];

// The model's bytes, the name errors call it by (its file name, else its graph's name), and the
// path or URL that external data files sit beside.
export async function readModel(model) {
  if (model instanceof ArrayBuffer) return { bytes: new Uint8Array(model), name: null };
  if (ArrayBuffer.isView(model)) return { bytes: new Uint8Array(model.buffer, model.byteOffset, model.byteLength), name: null };
  if (typeof model === 'string' || model instanceof URL) {
    const text = String(model);
    const name = quote(text.split(/[\\/]/).pop() || text);
    try {
      return { bytes: await readBytes(model), name, base: model };
    } catch (e) {
      throw new OnnxModelError(name, `cannot read ${quote(text)}: ${e.message}`, { cause: e });
    }
  }
  throw new TypeError(`InferenceSession.create: model: expected a Uint8Array, an ArrayBuffer, a URL or a path, got ${describe(model)}`);
}

function checkOrt(ort) {
  if (!ort || typeof ort.InferenceSession?.create !== 'function' || typeof ort.Tensor !== 'function') {
    throw new TypeError("InferenceSession.create: options.ort: expected the onnxruntime module (import * as ort from 'onnxruntime-web' or 'onnxruntime-node'), "
      + `got ${describe(ort)}`);
  }
}

// create()'s own options, checked, with their defaults.
export function readCreateOptions(options) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`InferenceSession.create: options: expected an object with at least { ort }, got ${describe(options)}`);
  }
  const { ort, gridsample, subgraphs = 'error', gridsampleParts = 'gridsample', placement = 'auto', fuseAttention = true } = options;
  checkOrt(ort);
  if (typeof fuseAttention !== 'boolean') throw new TypeError(`InferenceSession.create: options.fuseAttention: expected true or false, got ${describe(fuseAttention)}`);
  for (const [name, value] of [['subgraphs', subgraphs], ['gridsampleParts', gridsampleParts], ['placement', placement]]) {
    const allowed = { subgraphs: ['error', 'onnxruntime'], gridsampleParts: ['gridsample', 'onnxruntime'], placement: PLACEMENTS }[name];
    if (!allowed.includes(value)) {
      throw new TypeError(`InferenceSession.create: options.${name}: expected ${allowed.map(quote).join(' or ')}, got ${describe(value)}`);
    }
  }
  if (gridsample !== undefined && typeof gridsample?.gridSample !== 'function') {
    throw new TypeError(`InferenceSession.create: options.gridsample: expected a module from gridsample's load(), got ${describe(gridsample)}`);
  }
  return { ort, gridsample, subgraphs, gridsampleParts, placement, fuseAttention };
}

// onnxruntime's options for every part: the caller's, less ours, with the external data files
// as bytes (onnxruntime-node takes no paths there; every file is read once, by us).
export function ortOptions(options, files) {
  const passOn = Object.fromEntries(Object.entries(options).filter(([k]) => !OWN_OPTIONS.includes(k)));
  return files.length ? { ...passOn, externalData: files } : passOn;
}

export const nodeCount = (part) => counted(part.nodes.length, 'node');

/**
 * The session's fields for a model with no GridSample or AffineGrid node: onnxruntime's session
 * of its own `bytes`, the one part. Metadata from the model itself, as a split's (onnxruntime-web
 * 1.30 reports an unknown dimension as 4294967295).
 */
export async function wholeModel({ ort, split, bytes, passOn, wrap }) {
  let whole;
  try {
    whole = await ort.InferenceSession.create(bytes, passOn);
  } catch (e) {
    throw wrap(e, 'the whole model (it has no GridSample or AffineGrid node)');
  }
  const outputType = (name) => whole.outputMetadata?.find((m) => m.name === name)?.type;
  return {
    ort, split, parts: [{ index: 0, runsOn: 'onnxruntime', nodes: split.parts[0]?.nodes ?? [], session: whole, whole: true }],
    public: {
      inputNames: whole.inputNames,
      outputNames: whole.outputNames,
      inputMetadata: metadata(split.inputs),
      outputMetadata: metadata(split.outputs.map((v) => ({ name: v.name, type: v.type ?? { type: outputType(v.name), dims: null } }))),
    },
  };
}

// A part of a split model plans no memory pattern unless the caller's options say: each onnxruntime
// session keeps its pattern's block in an arena of its own, so a split into k parts held k of
// them where onnxruntime alone holds one (a 6-layer deformable encoder on onnxruntime-node:
// 1,660 MiB split against 1,304 alone; 1,093 without patterns, and no slower; onnxruntime-web
// the same either way).
const partMemory = (whole) => (whole ? {} : { enableMemPattern: false });

/**
 * `build(split)`: the parts of `split` (`bytes`: the model's own), each `{...part, index}` with its onnxruntime `session`
 * (and `whole: true` where that session is the model's own, every node left to onnxruntime),
 * or `create(known)` where onnxruntime reports no output types and the part reads an earlier
 * one's results, or neither (gridsample runs it); `types` (value name -> type) gains the parts'
 * output types. `wrap(e, what)` turns onnxruntime's failure into the session's error;
 * `backendOf()` is where our nodes run now ('webgpu' or 'wasm': where the parts leave outputs).
 */
export function partBuilder({ ort, proto, bytes, name, passOn, backendOf, types, gridsampleParts, wrap }) {
  return async (split) => {
    const parts = [];
    const partTypes = new Map(types);
    // An onnxruntime session of part `index`, its inputs' types from `known`. A part that is the
    // whole graph (placement left every node to onnxruntime) is made from the model's own bytes:
    // encoding it again would copy every initializer once more.
    const same = (names, values) => names.length === values.length && values.every((v) => names.includes(v.name));
    const whole = split.parts.length === 1 && !split.unused.length && same(split.parts[0].inputs, split.inputs) && same(split.parts[0].outputs, split.outputs);
    const createPart = async (part, index, known) => {
      try {
        return await ort.InferenceSession.create(whole ? bytes : subModel(proto, split, part, known), { ...partMemory(whole), ...passOn, ...outputLocations(passOn, split, part, backendOf()) });
      } catch (e) {
        throw wrap(e, `part ${index + 1} (${nodeCount(part)} from ${part.nodes[0].label})`);
      }
    };
    try {
      for (const [index, part] of split.parts.entries()) {
        if (part.runsOn === 'gridsample') {
          for (const n of part.nodes) {
            checkInputTypes(n, (v) => partTypes.get(v), name);
            partTypes.set(n.node.output[0], partTypes.get(n.node.input[0]));
          }
        }
        if (part.runsOn === 'gridsample' && gridsampleParts === 'gridsample') {
          parts.push({ ...part, index });
          continue;
        }
        // onnxruntime before 1.22 reports no outputMetadata: a part reading an earlier part's
        // results is then made at the first run, from the types of the values it is fed.
        if (part.inputs.some((v) => !split.valueInfo.get(v) && partTypes.get(v) === undefined)) {
          parts.push({ ...part, index, create: (known) => createPart(part, index, known) });
          continue;
        }
        const session = await createPart(part, index, partTypes);
        parts.push({ ...part, index, session, whole });
        for (const meta of session.outputMetadata ?? []) if (meta.isTensor) partTypes.set(meta.name, meta.type);
      }
    } catch (e) {
      await Promise.allSettled(parts.filter((p) => p.session).map((p) => p.session.release()));
      throw e;
    }
    // Types of our results, for outputMetadata.
    for (const [n, t] of partTypes) types.set(n, t);
    return parts;
  };
}
