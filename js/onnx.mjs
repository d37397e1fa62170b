// gridsample/onnx: an InferenceSession like onnxruntime's that runs a model's GridSample / AffineGrid nodes on gridsample and the rest on the caller's onnxruntime (DESIGN.md section 8).
import { load } from '#gridsample';
import { readBytes } from '#read';

import {
  ELEM_TYPES, OnnxModelError, decodeModel, formatType, initializerTensor, splitModel, subModel,
} from './onnx_graph.mjs';
import { io, metadata, onCpu, onHost, outputDims, outputLocations, typeOf } from './onnx_values.mjs';

export { OnnxModelError } from './onnx_graph.mjs';

const OWN_OPTIONS = ['ort', 'gridsample', 'subgraphs', 'gridsampleParts'];
const now = () => globalThis.performance.now();

function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return v.constructor?.name ? `a ${v.constructor.name}` : 'an object';
  return typeof v === 'string' ? `'${v}'` : `${typeof v} ${String(v)}`;
}

// The model's bytes and the name errors call it by (its file name, else its graph's name).
async function readModel(model) {
  if (model instanceof ArrayBuffer) return { bytes: new Uint8Array(model), name: null };
  if (ArrayBuffer.isView(model)) return { bytes: new Uint8Array(model.buffer, model.byteOffset, model.byteLength), name: null };
  if (typeof model === 'string' || model instanceof URL) {
    const text = String(model);
    const name = `'${text.split(/[\\/]/).pop() || text}'`;
    try {
      return { bytes: await readBytes(model), name };
    } catch (e) {
      throw new OnnxModelError(name, `cannot read ${text}: ${e.message}`, { cause: e });
    }
  }
  throw new TypeError(`InferenceSession.create: model: expected a Uint8Array, an ArrayBuffer, a URL or a path, got ${describe(model)}`);
}

function checkOrt(ort) {
  if (!ort || typeof ort.InferenceSession?.create !== 'function' || typeof ort.Tensor !== 'function') {
    throw new TypeError("InferenceSession.create: options.ort: expected the onnxruntime module (import * as ort from 'onnxruntime-web' or 'onnxruntime-node'), "
      + `got ${ort === undefined ? 'nothing' : describe(ort)}`);
  }
}

// onnxruntime's options for every part: the caller's, less ours.
function ortOptions(options) {
  return Object.fromEntries(Object.entries(options).filter(([k]) => !OWN_OPTIONS.includes(k)));
}

const nodeCount = (part) => `${part.nodes.length} node${part.nodes.length === 1 ? '' : 's'}`;

/**
 * A model split into onnxruntime sessions and GridSample / AffineGrid nodes run on gridsample.
 * Create it with `await InferenceSession.create(model, { ort, ... })`.
 */
export class InferenceSession {
  #ort;
  #gs;
  #split;
  #parts;
  #whole; // the onnxruntime session of a model with nothing for gridsample
  #constants = new Map(); // initializers read by our nodes, as tensors
  #heap = new Map(); // results of our nodes that only later parts read: heap tensors, reused by every run
  #graphOutputs;
  #released = false;
  #running = false;

  /** The names of the inputs `run` takes, as onnxruntime reports them. */
  inputNames;
  /** The names of the outputs `run` returns. */
  outputNames;
  /** The inputs' declared types and shapes, as onnxruntime's `inputMetadata` ('' for a dimension the model leaves unknown). */
  inputMetadata;
  /** The outputs' types (as declared, else as computed) and declared shapes, as onnxruntime's `outputMetadata`. */
  outputMetadata;
  /** Per-part timing of the last `run(feeds, { profile: true })`, else null. */
  lastProfile = null;

  constructor(token, fields) {
    if (token !== InferenceSession.#token) throw new TypeError('InferenceSession: use await InferenceSession.create(model, { ort })');
    Object.assign(this, fields.public);
    this.#ort = fields.ort;
    this.#gs = fields.gs;
    this.#split = fields.split;
    this.#parts = fields.parts;
    this.#whole = fields.whole;
    this.#graphOutputs = new Set(fields.split.outputs.map((v) => v.name));
  }

  static #token = Symbol('InferenceSession');

  /**
   * Parses `model` (bytes, a URL or a path), splits it and creates the onnxruntime sessions.
   * Options: `ort` (required), `gridsample` (a module from load(); loaded when absent),
   * `subgraphs: 'onnxruntime'` (leave GridSample nodes inside If / Loop / Scan bodies to
   * onnxruntime instead of failing), `gridsampleParts: 'onnxruntime'` (split as usual but run
   * the GridSample / AffineGrid parts on onnxruntime too: the per-part reference timing of
   * `gridsample onnx bench`), and any onnxruntime session option
   * (`executionProviders`, `graphOptimizationLevel`, ...), passed on to every onnxruntime part.
   */
  static async create(model, options) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`InferenceSession.create: options: expected an object with at least { ort }, got ${options === undefined ? 'nothing' : describe(options)}`);
    }
    const { ort, gridsample, subgraphs = 'error', gridsampleParts = 'gridsample' } = options;
    checkOrt(ort);
    for (const [name, value] of [['subgraphs', subgraphs], ['gridsampleParts', gridsampleParts]]) {
      const allowed = name === 'subgraphs' ? ['error', 'onnxruntime'] : ['gridsample', 'onnxruntime'];
      if (!allowed.includes(value)) {
        throw new TypeError(`InferenceSession.create: options.${name}: expected ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${describe(value)}`);
      }
    }
    if (gridsample !== undefined && typeof gridsample?.gridSample !== 'function') {
      throw new TypeError(`InferenceSession.create: options.gridsample: expected a module from gridsample's load(), got ${describe(gridsample)}`);
    }
    const read = await readModel(model);
    const proto = decodeModel(read.bytes, read.name ?? 'the model');
    const name = read.name ?? (proto.graph.name ? `model '${proto.graph.name}'` : 'the model');
    const split = splitModel(proto, name, { subgraphs });
    const passOn = ortOptions(options);
    const wrap = (e, what) => {
      if (e instanceof OnnxModelError) return e;
      return new OnnxModelError(name, `onnxruntime could not create the session of ${what}: ${e?.message ?? e}`, { cause: e });
    };

    if (!split.parts.some((p) => p.runsOn === 'gridsample')) {
      let whole;
      try {
        whole = await ort.InferenceSession.create(read.bytes, passOn);
      } catch (e) {
        throw wrap(e, 'the whole model (it has no GridSample or AffineGrid node)');
      }
      // Metadata from the model itself, as below (onnxruntime-web 1.30 reports an unknown
      // dimension as 4294967295).
      return new InferenceSession(InferenceSession.#token, {
        ort, split, whole, parts: [],
        public: {
          inputNames: whole.inputNames,
          outputNames: whole.outputNames,
          inputMetadata: metadata(split.inputs),
          outputMetadata: metadata(split.outputs.map((v) => ({ name: v.name, type: v.type ?? { type: whole.outputMetadata?.find((m) => m.name === v.name)?.type, dims: null } }))),
        },
      });
    }

    const gs = gridsample ?? await load();
    const types = new Map(split.inputs.map((v) => [v.name, v.type.type]));
    for (const [n, t] of split.initializers) types.set(n, ELEM_TYPES[t.dataType]);
    const parts = [];
    try {
      for (const [index, part] of split.parts.entries()) {
        if (part.runsOn === 'gridsample' && gridsampleParts === 'gridsample') {
          for (const n of part.nodes) types.set(n.node.output[0], types.get(n.node.input[0]));
          parts.push({ ...part, index });
          continue;
        }
        let session;
        try {
          session = await ort.InferenceSession.create(subModel(proto, split, part, types), { ...passOn, ...outputLocations(passOn, split, part) });
        } catch (e) {
          throw wrap(e, `part ${index + 1} (${nodeCount(part)} from ${part.nodes[0].label})`);
        }
        parts.push({ ...part, index, session });
        for (const meta of session.outputMetadata ?? []) if (meta.isTensor) types.set(meta.name, meta.type);
      }
    } catch (e) {
      await Promise.allSettled(parts.filter((p) => p.session).map((p) => p.session.release()));
      throw e;
    }
    return new InferenceSession(InferenceSession.#token, {
      ort, gs, split, parts,
      public: {
        inputNames: split.inputs.map((v) => v.name),
        outputNames: split.outputs.map((v) => v.name),
        inputMetadata: metadata(split.inputs),
        outputMetadata: metadata(split.outputs.map((v) => ({ name: v.name, type: v.type ?? { type: types.get(v.name), dims: null } }))),
      },
    });
  }

  /**
   * Which nodes run where: `{ model, opset, parts: [{ part, runsOn, nodes, ops, inputs,
   * outputs }], counts }`; `ops` counts the part's nodes by operator.
   */
  plan() {
    const s = this.#split;
    const parts = s.parts.map((p, i) => ({
      part: i + 1,
      runsOn: p.runsOn,
      nodes: p.nodes.map((n) => ({ name: n.node.name, opType: n.node.opType, ...(n.attrs ? { version: n.version, attributes: n.attrs } : {}) })),
      ops: p.nodes.reduce((ops, n) => ({ ...ops, [n.node.opType]: (ops[n.node.opType] ?? 0) + 1 }), {}),
      inputs: p.inputs,
      outputs: p.outputs,
    }));
    const count = (on) => parts.filter((p) => p.runsOn === on).reduce((a, p) => a + p.nodes.length, 0);
    return {
      model: s.model,
      opset: s.opset,
      parts,
      counts: {
        onnxruntimeSessions: this.#whole ? 1 : parts.filter((p) => p.runsOn === 'onnxruntime').length,
        onnxruntimeNodes: count('onnxruntime'),
        gridsampleNodes: count('gridsample'),
        unusedNodes: s.unused.length,
      },
    };
  }

  /**
   * Runs the model: `feeds` maps every input name to a tensor of the caller's onnxruntime;
   * resolves to `{ outputName: ort.Tensor }` as onnxruntime's own session does. `fetches` (an
   * array of output names) limits the outputs; `options` are onnxruntime run options, plus
   * `profile: true` to time every part into `session.lastProfile`.
   */
  async run(feeds, fetches, options) {
    if (this.#released) throw new Error(`gridsample/onnx: ${this.#split.model}: run: the session was released`);
    // Runs share the heap tensors that carry values between parts, as onnxruntime's own
    // session allows one run at a time.
    if (this.#running) throw new Error(`gridsample/onnx: ${this.#split.model}: run: another run of this session is in progress; await it first`);
    this.#running = true;
    try {
      return await this.#run(feeds, fetches, options);
    } finally {
      this.#running = false;
    }
  }

  async #run(feeds, fetches, options) {
    if (!Array.isArray(fetches) && fetches !== undefined) [fetches, options] = [undefined, fetches];
    const { profile = false, ...runOptions } = options ?? {};
    const wanted = this.#checkFetches(fetches);
    this.#checkFeeds(feeds);
    if (this.#whole) {
      const t0 = now();
      const out = await this.#whole.run(feeds, wanted, runOptions);
      if (profile) this.lastProfile = { ms: now() - t0, parts: [{ part: 1, runsOn: 'onnxruntime', nodes: this.#split.parts[0]?.nodes.length ?? 0, ms: now() - t0 }] };
      return out;
    }
    const values = new Map(Object.entries(feeds));
    const times = [];
    const start = now();
    const model = this.#split.model;
    const owned = []; // GPU tensors onnxruntime parts made, disposed of unless returned
    for (const part of this.#parts) {
      const t0 = now();
      if (part.session) {
        const subFeeds = Object.fromEntries(part.inputs.map((n) => [n, this.#asOrt(values.get(n))]));
        let out;
        try {
          out = await part.session.run(subFeeds, part.outputs, runOptions);
        } catch (e) {
          throw new OnnxModelError(model, `onnxruntime failed in part ${part.index + 1} (${nodeCount(part)} from ${part.nodes[0].label}): ${e?.message ?? e}`, { cause: e });
        }
        for (const [n, t] of Object.entries(out)) {
          values.set(n, t);
          if (!onHost(t)) owned.push(t);
        }
      } else {
        for (const n of part.nodes) values.set(n.node.output[0], await this.#runOurs(n, values));
      }
      const timing = { part: part.index + 1, runsOn: part.runsOn, nodes: part.nodes.length, ms: now() - t0 };
      if (profile && part.runsOn === 'gridsample') timing.io = part.nodes.map((n) => io(n, values));
      times.push(timing);
    }
    const result = {};
    for (const name of wanted ?? this.outputNames) result[name] = this.#asOrt(values.get(name) ?? this.#constant(name));
    const returned = new Set(Object.values(result));
    for (const t of owned) if (!returned.has(t)) t.dispose?.();
    if (profile) this.lastProfile = { ms: now() - start, parts: times };
    return result;
  }

  /** Releases every onnxruntime session; the session cannot run afterwards. */
  async release() {
    if (this.#released) return;
    this.#released = true;
    const sessions = this.#whole ? [this.#whole] : this.#parts.filter((p) => p.session).map((p) => p.session);
    await Promise.all(sessions.map((s) => s.release()));
    for (const t of this.#heap.values()) t.dispose();
    this.#heap.clear();
  }

  // A GridSample or AffineGrid node on gridsample; errors name the node. A result that only
  // later parts read is written into a heap tensor kept for the next run (a graph output gets
  // an array of its own): onnxruntime reads it from there, our nodes in place, so it is
  // neither allocated again nor copied out of the heap.
  async #runOurs(n, values) {
    const ort = this.#ort;
    let [a, b] = n.node.input.map((name) => values.get(name) ?? this.#constant(name));
    if (!onHost(a) || !onHost(b)) [a, b] = await Promise.all([onCpu(ort, a), onCpu(ort, b)]);
    const name = n.node.output[0];
    try {
      const dims = this.#graphOutputs.has(name) ? null : outputDims(this.#gs, n.node.opType, a, b);
      const out = dims ? this.#heapFor(name, typeOf(a), dims) : undefined;
      const y = n.node.opType === 'GridSample' ? this.#gs.gridSample(a, b, { ...n.attrs, out }) : this.#gs.affineGrid(a, b, { ...n.attrs, out });
      return out ?? { type: y.dtype, dims: y.shape, data: y.data };
    } catch (e) {
      const inputs = n.node.input.map((input, i) => `${input}: ${typeOf([a, b][i])} [${[...[a, b][i].dims].join(', ')}]`).join(', ');
      throw new OnnxModelError(this.#split.model, `${n.label}, opset ${this.#split.opset}, inputs ${inputs}: ${e.message}`, { cause: e });
    }
  }

  // The heap tensor that holds value `name`, (re)made when its type or dimensions change.
  #heapFor(name, dtype, dims) {
    const held = this.#heap.get(name);
    if (held && held.dtype === dtype && held.dims.length === dims.length && held.dims.every((d, i) => d === dims[i])) return held;
    held?.dispose();
    this.#heap.delete(name);
    const fresh = this.#gs.tensor(dtype, dims);
    this.#heap.set(name, fresh);
    return fresh;
  }

  // An initializer as a tensor (converted once).
  #constant(name) {
    if (!this.#constants.has(name)) this.#constants.set(name, initializerTensor(this.#split.initializers.get(name), this.#split.model));
    return this.#constants.get(name);
  }

  // A value as the caller's onnxruntime tensor (feeds of another onnxruntime copy are rewrapped).
  #asOrt(t) {
    const ort = this.#ort;
    return t instanceof ort.Tensor ? t : new ort.Tensor(typeOf(t), t.data, [...t.dims]);
  }

  #checkFetches(fetches) {
    if (fetches === undefined) return undefined;
    for (const name of fetches) {
      if (!this.outputNames.includes(name)) {
        throw new RangeError(`gridsample/onnx: ${this.#split.model}: run: fetches: '${name}' is not an output of the model; its outputs are ${this.outputNames.map((n) => `'${n}'`).join(', ')}`);
      }
    }
    return fetches;
  }

  #checkFeeds(feeds) {
    const model = this.#split.model;
    if (feeds === null || typeof feeds !== 'object' || Array.isArray(feeds)) {
      throw new TypeError(`gridsample/onnx: ${model}: run: feeds: expected an object { inputName: ort.Tensor }, got ${describe(feeds)}`);
    }
    for (const name of Object.keys(feeds)) {
      if (!this.inputNames.includes(name)) {
        throw new RangeError(`gridsample/onnx: ${model}: run: feeds: '${name}' is not an input of the model; its inputs are ${this.inputNames.map((n) => `'${n}'`).join(', ')}`);
      }
    }
    for (const { name, type } of this.#split.inputs) {
      const t = feeds[name];
      const expected = `expected ${formatType(type)}`;
      if (t === undefined) throw new TypeError(`gridsample/onnx: ${model}: run: input '${name}' is missing (${expected})`);
      if (t === null || typeof t !== 'object' || typeof t.type !== 'string' || !t.dims) {
        throw new TypeError(`gridsample/onnx: ${model}: run: input '${name}': ${expected}, got ${describe(t)} (make it with new ort.Tensor(type, data, dims))`);
      }
      const dims = [...t.dims].map(Number);
      const shapeOk = !type.dims || (type.dims.length === dims.length && type.dims.every((d, i) => typeof d !== 'number' || d === dims[i]));
      if (t.type !== type.type || !shapeOk) {
        throw new TypeError(`gridsample/onnx: ${model}: run: input '${name}': ${expected}, got ${t.type} [${dims.join(', ')}]`);
      }
    }
  }
}
