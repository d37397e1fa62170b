// The split session behind gridsample/onnx (js/onnx.mjs): an InferenceSession like onnxruntime's that runs a model's GridSample / AffineGrid nodes on gridsample and the rest on the caller's onnxruntime (DESIGN.md section 8).
import { load } from '#gridsample';

import { nodeCount, ortOptions, partBuilder, readCreateOptions, readModel, wholeModel } from './create.mjs';
import { externalDataOption, readExternalData } from './external_data.mjs';
import { failureReason, OnnxModelError, quote } from './errors.mjs';
import { splitModel } from './graph.mjs';
import { decodeModel, ELEM_TYPES, initializerTensors, loadOnnxReader } from './model_proto.mjs';
import { chooseBackend, GpuNodes, sessionGpu } from './gpu_nodes.mjs';
import { decidePlacement } from './placement.mjs';
import { planOf } from './plan.mjs';
import { computesLocations, fusedArguments } from './fused_arguments.mjs';
import { attentionDims, heapBytes, heapConstant, io, metadata, onCpu, onHost, outputDims, partTiming, preferredLocation, readRun, typeOf } from './values.mjs';

export { OnnxModelError } from './errors.mjs';

const now = () => globalThis.performance.now();
const ignore = () => {};
// The onnxruntime session that runs the whole model (a model with no GridSample or AffineGrid
// node, or placement left every node to onnxruntime), run as it is: else null.
const wholeSession = (parts) => (parts.length === 1 && parts[0].whole ? parts[0].session : null);

/**
 * A model split into onnxruntime sessions and GridSample / AffineGrid nodes run on gridsample.
 * Create it with `await InferenceSession.create(model, { ort, ... })`.
 */
export class InferenceSession {
  #ort;
  #gs;
  #split;
  #parts;
  #placement; // {option, pending, fixed, why: Map node index -> {runsOn, why}, measured, rebuild(keep)}: see #decide
  #whole; // the onnxruntime session of the model itself, where every node runs on onnxruntime (wholeSession)
  #constants; // initializers our nodes read or the graph returns, as tensors (read at create())
  #heap = new Map(); // 'value <name>': results of our nodes only later parts read; 'locations of <name>': a fused node's computed locations: heap tensors, reused by every run
  #backend; // {backend: 'webgpu' | 'wasm', why}: where our nodes run
  #gpuNodes; // our nodes on WebGPU (GpuNodes), or null
  #preferred; // the caller's preferredOutputLocation
  #graphOutputs;
  #passedThrough; // graph outputs that are initializers or graph inputs: returned as copies
  #queue = Promise.resolve(); // settles (or rejects) when the last run called so far does
  #pending = 0; // runs called and not yet settled
  #released = false;
  #releasing = null;

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
    this.#placement = fields.placement ?? null;
    this.#whole = wholeSession(fields.parts);
    this.#constants = fields.constants ?? new Map();
    this.#backend = fields.backend ?? null;
    this.#gpuNodes = fields.gpuNodes ?? null;
    this.#preferred = fields.preferred;
    this.#graphOutputs = new Set(fields.split.outputs.map((v) => v.name));
    const inputs = new Set(fields.split.inputs.map((v) => v.name));
    this.#passedThrough = new Set([...this.#graphOutputs].filter((n) => inputs.has(n) || fields.split.initializers.has(n)));
  }

  static #token = Symbol('InferenceSession');

  /**
   * Parses `model` (bytes, a URL or a path), splits it and creates the onnxruntime sessions.
   * Options: `ort` (required), `gridsample` (a module from load(); loaded when absent),
   * `subgraphs: 'onnxruntime'` (leave GridSample nodes inside If / Loop / Scan bodies to
   * onnxruntime instead of failing), `gridsampleParts: 'onnxruntime'` (split as usual but run
   * the GridSample / AffineGrid parts on onnxruntime too: the per-part reference timing of
   * `gridsample onnx bench`), `gridsampleBackend` ('auto': on WebGPU when `executionProviders`
   * include 'webgpu', else wasm; or 'webgpu', 'wasm'), `placement` ('auto': at the first run,
   * before its result is returned, whole runs of the split and of the model with every node
   * onnxruntime runs as gridsample does left to it are timed on its feeds, and the faster is
   * kept, see onnx/placement.mjs; 'gridsample': every node on gridsample; 'onnxruntime': every
   * node onnxruntime runs left to it), `externalData` (onnxruntime-web's option: the files a model keeps its
   * weights in, as `{ path, data }` or paths/URLs; a model given as a path or URL finds them beside
   * itself without it), and any onnxruntime session option (`executionProviders`,
   * `graphOptimizationLevel`, ...), passed on to every onnxruntime part.
   */
  static async create(model, options) {
    const { ort, gridsample, subgraphs, gridsampleParts, placement, fuseAttention } = readCreateOptions(options);
    const entries = externalDataOption(options.externalData);
    const read = await readModel(model);
    await loadOnnxReader();
    const proto = decodeModel(read.bytes, read.name ?? 'the model');
    const name = read.name ?? (proto.graph.name ? `model ${quote(proto.graph.name)}` : 'the model');
    const external = await readExternalData(proto, { entries, base: read.base, model: name });
    const passOn = ortOptions(options, external.files);
    let backend = chooseBackend(options.gridsampleBackend ?? 'auto', passOn.executionProviders);
    // The attention is fused where gridsample runs it (its locations' arithmetic off WebGPU only).
    const [fuse, prologue] = [fuseAttention && gridsampleParts === 'gridsample', backend.backend !== 'webgpu' && computesLocations(gridsample)];
    const split = splitModel(proto, name, { subgraphs, fuse, prologue });
    const wrap = (e, what) => {
      if (e instanceof OnnxModelError) return e;
      return new OnnxModelError(name, `onnxruntime could not create the session of ${what}: ${failureReason(e)}`, { cause: e });
    };

    if (!split.parts.some((p) => p.runsOn === 'gridsample')) {
      return new InferenceSession(InferenceSession.#token, await wholeModel({ ort, split, bytes: read.bytes, passOn, wrap }));
    }

    // The initializers the session reads itself (those the graph returns, and those its gridsample
    // parts read: large ones straight into the wasm heap), converted once per placement; a
    // gridsample module the session loads itself goes (its heap with it) while no node runs on it.
    const oursIn = (s) => (gridsampleParts === 'gridsample' ? s.parts.filter((p) => p.runsOn === 'gridsample') : []);
    const constantsOf = (s, gs) => new Map([...initializerTensors(s, s.outputs.map((v) => v.name), external.raw),
      ...initializerTensors(s, oursIn(s).flatMap((p) => p.constants), external.raw, heapConstant(gs, backend.backend))]);
    const loadGs = () => gridsample ?? load();
    const gs = await loadGs();
    const [ours, constants] = [oursIn(split), constantsOf(split, gs)];
    const types = new Map(split.inputs.map((v) => [v.name, v.type.type]));
    for (const [n, t] of split.initializers) types.set(n, ELEM_TYPES[t.dataType]);
    const build = partBuilder({ ort, proto, bytes: read.bytes, name, passOn, backendOf: () => backend.backend, types, gridsampleParts, wrap });
    const parts = await build(split);
    let gpuNodes = null;
    if (backend.backend === 'webgpu' && ours.length) {
      const { gpu, why } = await sessionGpu(ort, gs, parts.some((p) => p.session));
      if (gpu) gpuNodes = new GpuNodes(ort, gpu);
      else backend = { backend: 'wasm', why };
    }
    const fixed = gridsampleParts === 'onnxruntime' ? "gridsampleParts 'onnxruntime' times the split as it is"
      : placement === 'gridsample' ? "placement 'gridsample'"
        : gpuNodes ? 'on WebGPU a part boundary costs a submission, which is not timed yet' : null;
    const rebuild = async (keep) => {
      const next = splitModel(proto, name, { subgraphs, keep, fuse, prologue });
      const [parts, gs] = [await build(next), oursIn(next).length ? await loadGs() : null];
      return { split: next, parts, constants: constantsOf(next, gs), gs };
    };
    const placed = { option: placement, pending: !fixed, fixed, why: null, measured: null, rebuild };
    return new InferenceSession(InferenceSession.#token, {
      ort, gs, split, parts, constants, backend, gpuNodes, placement: placed, preferred: passOn.preferredOutputLocation,
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
   * outputs }], counts, placement, attention }` (onnx/plan.mjs).
   */
  plan() {
    return planOf(this.#split, { backend: this.#backend, placement: this.#placement, whole: Boolean(this.#whole) });
  }

  /**
   * Runs the model: `feeds` maps every input name to a tensor of the caller's onnxruntime;
   * resolves to `{ outputName: ort.Tensor }` as onnxruntime's own session does. `fetches` (an
   * array of output names) limits the outputs; `options` are onnxruntime run options, plus
   * `profile: true` to time every part into `session.lastProfile`. Runs called before others
   * have finished wait for them and run in the order called (they share the tensors that carry
   * values between parts); a run that fails does not stop the next.
   */
  run(feeds, fetches, options) {
    let request;
    try {
      if (this.#released) throw this.#error('run: the session was released');
      // Checked now, so that a mistake is reported against this call; the feeds are copied so
      // that a caller reusing the object for the next call does not change this run's.
      request = readRun([feeds, fetches, options], this, this.#split.inputs, (message) => this.#error(message));
    } catch (e) {
      return Promise.reject(e);
    }
    // A run called while others are pending waits its turn (release() meanwhile cancels it).
    // The run's own promise is the queue: a model left whole to onnxruntime pays no more promises.
    const turn = this.#pending++ > 0 ? this.#queue.then(() => this.#turn(request, true), () => this.#turn(request, true)) : this.#turn(request, false);
    this.#queue = turn;
    return turn;
  }

  async #turn(request, waited) {
    try {
      if (waited && this.#released) throw this.#error('run: the session was released before this run started');
      return await (this.#placement?.pending ? this.#decide(request) : this.#runPlaced(request));
    } finally {
      --this.#pending;
    }
  }

  // One run of the placement in use: the model's own onnxruntime session as it is, else the parts.
  #runPlaced(request) {
    return this.#whole ? this.#runWhole(request) : this.#run(request);
  }

  // onnxruntime reads run options only after fetches: options without fetches go with every output named.
  async #runWhole({ feeds, wanted, runOptions, profile }, t0 = now()) {
    try {
      const out = await this.#whole.run(this.#ortFeeds(feeds, feeds.keys()), runOptions ? wanted ?? this.outputNames : wanted, runOptions);
      if (profile) this.lastProfile = { ms: now() - t0, parts: [{ part: 1, runsOn: 'onnxruntime', nodes: this.#parts[0].nodes.length, ms: now() - t0 }] };
      return out;
    } catch (e) {
      throw this.#error(`onnxruntime failed: ${failureReason(e)}`, e);
    }
  }

  // One run of the parts in use; `seen` (a Map) gets what each node of ours saw (io()).
  async #run({ feeds, wanted, runOptions, profile }, seen = null) {
    const values = new Map(feeds);
    const times = [];
    const start = now();
    const valueOf = (name) => values.get(name) ?? this.#constants.get(name);
    const owned = []; // GPU tensors onnxruntime parts made, disposed of unless returned
    for (const part of this.#parts) {
      const t0 = now();
      if (part.create) part.session ??= await part.create(new Map(part.inputs.map((n) => [n, typeOf(values.get(n))])));
      if (part.session) {
        let out;
        try {
          out = await part.session.run(this.#ortFeeds(values, part.inputs), part.outputs, runOptions);
        } catch (e) {
          throw this.#error(`onnxruntime failed in part ${part.index + 1} (${nodeCount(part)} from ${part.nodes[0].label}): ${failureReason(e)}`, e);
        }
        for (const [n, t] of Object.entries(out)) {
          values.set(n, t);
          if (!onHost(t)) owned.push(t);
        }
      } else {
        for (const n of part.nodes) {
          values.set(n.node.output[0], await this.#runOurs(n, values));
          if (seen) seen.set(n.index, io(n, valueOf));
        }
      }
      if (!profile) continue;
      times.push(partTiming(part, now() - t0, valueOf));
    }
    const result = {};
    for (const name of wanted ?? this.outputNames) result[name] = this.#output(name, values);
    const returned = owned.length ? new Set(Object.values(result)) : null;
    // Our batched GPU work, which may read onnxruntime's tensors, submitted before they go.
    try {
      if (owned.length) await this.#gpuNodes?.gpu.flush();
    } finally {
      for (const t of owned) if (!returned.has(t)) t.dispose?.();
    }
    if (profile) this.lastProfile = { ms: now() - start, parts: times };
    return result;
  }

  // The first run: the split runs once (what our nodes see decides what onnxruntime can take; a
  // profile is of this run), then placement decides and returns (onnx/placement.mjs); if it fails, the next run decides.
  async #decide(request) {
    const placed = this.#placement;
    const timed = async (t0 = now()) => ({ result: await this.#runPlaced({ ...request, profile: false }), ms: now() - t0 });
    const [seen, t0] = [new Map(), now()];
    const first = { result: await this.#run(request, seen), ms: now() - t0 };
    // The placement in use is let go (sessions, heap tensors, constants, gridsample module) first.
    const use = async (keep) => {
      await this.#releaseParts();
      this.#gs = null;
      ({ split: this.#split, parts: this.#parts, constants: this.#constants, gs: this.#gs } = await placed.rebuild(keep));
      this.#whole = wholeSession(this.#parts);
    };
    const drop = (result) => Object.values(result).forEach((t) => !onHost(t) && t.dispose?.());
    const decided = await decidePlacement(placed.option, this.#split, first, seen, { heapBytes: (name) => heapBytes(this.#constants.get(name)), run: timed, use, drop });
    [placed.why, placed.measured, placed.pending] = [decided.why, decided.measured, false];
    if (request.profile) this.lastProfile.placement = this.plan().placement;
    return decided.result;
  }

  // Releases the parts in use: onnxruntime sessions, heap tensors between parts, constants.
  async #releaseParts() {
    const old = this.#parts;
    [this.#parts, this.#whole] = [[], null];
    await Promise.allSettled(old.filter((p) => p.session).map((p) => p.session.release()));
    for (const t of [...this.#heap.values(), ...this.#constants.values()]) t.dispose?.();
    this.#heap.clear();
    this.#constants = new Map();
  }

  // A graph output as the caller's onnxruntime tensor. An initializer or a feed returned as it
  // is gets an array of its own, as onnxruntime's session returns it: changing a result must
  // change neither the session's constant (which our nodes read) nor the caller's feed.
  #output(name, values) {
    const t = values.get(name) ?? this.#constants.get(name);
    if (!this.#passedThrough.has(name) || !onHost(t)) return this.#asOrt(t);
    return new this.#ort.Tensor(typeOf(t), t.data.slice(), [...t.dims]);
  }

  /**
   * Releases every onnxruntime session; the session cannot run afterwards. A run in progress
   * finishes first; runs waiting for their turn reject.
   */
  release() {
    this.#releasing ??= this.#free();
    return this.#releasing;
  }

  async #free() {
    this.#released = true;
    await this.#queue.then(ignore, ignore);
    await this.#releaseParts();
    this.#gpuNodes?.release();
  }

  // An error of a run, naming the model; `cause` is what onnxruntime or gridsample threw.
  #error(message, cause) {
    return new OnnxModelError(this.#split.model, message, cause === undefined ? undefined : { cause });
  }

  // A GridSample or AffineGrid node on gridsample; errors name the node. A result that only
  // later parts read is written into a heap tensor kept for the next run (a graph output gets
  // an array of its own): onnxruntime reads it from there, our nodes in place, so it is
  // neither allocated again nor copied out of the heap.
  async #runOurs(n, values) {
    if (n.attention) return this.#runAttention(n, values);
    const ort = this.#ort;
    let [a, b] = n.node.input.map((name) => values.get(name) ?? this.#constants.get(name));
    const name = n.node.output[0];
    if (this.#gpuNodes) {
      // AffineGrid's size is read on the CPU (onnxruntime parts leave it there).
      if (n.node.opType === 'AffineGrid' && !onHost(b)) b = await onCpu(ort, b);
    } else if (!onHost(a) || !onHost(b)) {
      [a, b] = await Promise.all([onCpu(ort, a), onCpu(ort, b)]);
    }
    try {
      if (this.#gpuNodes) {
        const graphOutput = this.#graphOutputs.has(name);
        const location = preferredLocation(this.#preferred, name);
        return await this.#gpuNodes.run(n, a, b, { graphOutput, location, dtype: typeOf(a), dims: outputDims(this.#gs, n.node.opType, a, b) });
      }
      const dims = this.#graphOutputs.has(name) ? null : outputDims(this.#gs, n.node.opType, a, b);
      const out = dims ? this.#heapFor(`value ${name}`, typeOf(a), dims) : undefined;
      const y = n.node.opType === 'GridSample' ? this.#gs.gridSample(a, b, { ...n.attrs, out }) : this.#gs.affineGrid(a, b, { ...n.attrs, out });
      return out ?? { type: y.dtype, dims: y.shape, data: y.data };
    } catch (e) {
      const inputs = n.node.input.map((input, i) => `${quote(input)}: ${typeOf([a, b][i])} [${[...[a, b][i].dims].join(', ')}]`).join(', ');
      throw this.#error(`${n.label}, opset ${this.#split.opset}, inputs ${inputs}: ${e.message}`, e);
    }
  }

  // A multi-scale deformable attention node (fused from a chain, or mmdeploy's). On WebGPU on
  // gridsample/webgpu, its inputs read in place (mmdeploy's levels are int64: onnxruntime parts
  // leave them on the CPU) and its result kept as #runOurs keeps it; else on the wasm kernel,
  // GPU inputs read back and a result only later parts read written into a heap tensor kept across runs.
  async #runAttention(n, values) {
    const gpu = this.#gpuNodes;
    const levels = (i) => !n.fused && (i === 1 || i === 2);
    const inputs = await Promise.all(n.node.input.map((name, i) => {
      const t = values.get(name) ?? this.#constants.get(name);
      return gpu && !levels(i) ? t : onCpu(this.#ort, t);
    }));
    try {
      const name = n.node.output[0];
      const args = n.fused ? fusedArguments(n.fused, inputs, this.#gs, (dims) => this.#heapFor(`locations of ${name}`, 'float32', dims)) : inputs;
      const graphOutput = this.#graphOutputs.has(name);
      if (gpu) {
        const where = { graphOutput, location: preferredLocation(this.#preferred, name), dtype: typeOf(args[0]), dims: attentionDims(this.#gs, args) };
        return await gpu.attention(n, args, where);
      }
      const dims = graphOutput ? null : attentionDims(this.#gs, args);
      const out = dims ? this.#heapFor(`value ${name}`, typeOf(args[0]), dims) : undefined;
      const y = this.#gs.multiScaleDeformableAttention(...args.slice(0, 5), { ...args[5], out });
      return out ?? { type: y.dtype, dims: y.shape, data: y.data };
    } catch (e) {
      const shapes = n.node.input.map((input, i) => `${quote(input)}: ${typeOf(inputs[i])} [${[...inputs[i].dims].join(', ')}]`).join(', ');
      throw this.#error(`${n.label}, inputs ${shapes}: ${e.message}`, e);
    }
  }

  // The heap tensor of #heap's `key`, (re)made when its type or dimensions change.
  #heapFor(key, dtype, dims) {
    const held = this.#heap.get(key);
    if (held && held.dtype === dtype && held.dims.length === dims.length && held.dims.every((d, i) => d === dims[i])) return held;
    held?.dispose();
    this.#heap.delete(key);
    const fresh = this.#gs.tensor(dtype, dims);
    this.#heap.set(key, fresh);
    return fresh;
  }

  // A value as the caller's onnxruntime tensor (feeds of another onnxruntime copy are rewrapped).
  #asOrt(t) {
    const ort = this.#ort;
    return t instanceof ort.Tensor ? t : new ort.Tensor(typeOf(t), t.data, [...t.dims]);
  }

  // The feeds of an onnxruntime session: the values named, as the caller's onnxruntime tensors.
  #ortFeeds(values, names) {
    const feeds = {};
    for (const n of names) feeds[n] = this.#asOrt(values.get(n));
    return feeds;
  }
}
