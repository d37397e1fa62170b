// TypeScript declarations of gridsample/onnx, the one copy that onnx.d.ts (ES module entry) and onnx.d.cts (CommonJS entry) re-export.
//
// onnxruntime's own types are not imported: onnxruntime-web and onnxruntime-node are optional
// peers, and either may be the one given. The session is generic over the `Tensor` class of
// the module passed as `options.ort`, so its feeds and results have that module's tensor type.

import type { GridSample, HostClass } from './api.cjs';

/** What the runner reads of an onnxruntime tensor (onnxruntime's `Tensor` has all of it). */
export interface OrtTensor {
  /** Element type, e.g. `'float32'`. */
  readonly type: string;
  /** Dimensions. */
  readonly dims: readonly number[];
  /** Where the data is: `'cpu'`, `'cpu-pinned'`, `'gpu-buffer'`, ... */
  readonly location?: string;
  /** Downloads the data of a GPU tensor. */
  getData?(releaseData?: boolean): Promise<unknown>;
  /** Frees a GPU tensor. */
  dispose?(): void;
}

/** What the runner uses of an onnxruntime module (`import * as ort from 'onnxruntime-web'`). */
export interface OrtModule {
  readonly InferenceSession: { create(model: Uint8Array, options?: any): Promise<any> };
  readonly Tensor: abstract new (...args: any[]) => OrtTensor;
}

/** The tensor class of an onnxruntime module. */
export type TensorOf<O extends OrtModule> = InstanceType<O['Tensor']>;

/**
 * A file a model keeps tensor data in, as onnxruntime-web's `ExternalDataFileType`: `path` is the
 * `location` the model names, `data` the file (a path or URL to read, a Blob, or its bytes); a
 * string alone is both.
 */
export type ExternalDataFile =
  | string
  | { readonly path: string; readonly data: string | HostClass<'URL'> | HostClass<'Blob'> | ArrayBuffer | SharedArrayBuffer | Uint8Array };

/** Options of {@link InferenceSession.create}. */
export interface SessionOptions<O extends OrtModule = OrtModule> {
  /** The caller's onnxruntime module: onnxruntime-web or onnxruntime-node (required). */
  ort: O;
  /** A module from gridsample's `load()`; loaded with default options when absent. */
  gridsample?: GridSample;
  /**
   * What to do with GridSample / AffineGrid nodes inside If / Loop / Scan bodies: `'error'`
   * (default: fail, naming the node) or `'onnxruntime'` (leave them to onnxruntime).
   */
  subgraphs?: 'error' | 'onnxruntime';
  /**
   * Where the GridSample / AffineGrid parts run: `'gridsample'` (default) or `'onnxruntime'`
   * (the same split, every part on onnxruntime: a per-part reference for timing).
   */
  gridsampleParts?: 'gridsample' | 'onnxruntime';
  /**
   * Where the GridSample / AffineGrid nodes run: 'auto' (default): on WebGPU (gridsample/webgpu
   * on onnxruntime's device, nothing read back between parts) when `executionProviders` include
   * 'webgpu', else on the wasm module; 'webgpu' (needs the 'webgpu' provider) or 'wasm'.
   */
  gridsampleBackend?: 'auto' | 'webgpu' | 'wasm';
  /**
   * Which GridSample / AffineGrid nodes leave onnxruntime's parts, decided at the first run,
   * before its result is returned, so that every run gives the same bytes (plan() says where
   * each node runs and why): `'auto'` (default; whole runs of the split and of the model with
   * every node onnxruntime runs as gridsample does left to it are timed on the first run's
   * feeds, one placement at a time, and the faster is kept; on WebGPU the split is kept, and
   * untimed where those nodes read a constant of 1 MiB or more, which timing both would hold
   * twice, in gridsample's wasm heap and in onnxruntime's),
   * `'gridsample'` (every node on gridsample) or `'onnxruntime'` (every node onnxruntime runs as
   * gridsample does left to it).
   */
  placement?: 'auto' | 'gridsample' | 'onnxruntime';
  /**
   * Run each multi-scale deformable attention chain (per-level GridSample, stack, Mul,
   * ReduceSum) proven equal to `gs.multiScaleDeformableAttention` as one fused node (default
   * true; wasm only: on WebGPU the chain stays as it is). {@link Plan.attention} says what was
   * fused and why the rest was not.
   */
  fuseAttention?: boolean;
  /**
   * The files the model keeps tensor data in (read once; every onnxruntime part gets their bytes
   * through onnxruntime's own `externalData` option). A model given as a path or URL finds them
   * beside itself without it.
   */
  externalData?: readonly ExternalDataFile[];
  /** Passed on to every onnxruntime part, e.g. `['wasm']` or `['webgpu', 'wasm']`. */
  executionProviders?: readonly unknown[];
  /** Any other onnxruntime session option, passed on to every onnxruntime part. */
  [option: string]: unknown;
}

/** A model input's or output's type and shape, as onnxruntime's `ValueMetadata` of a tensor. */
export interface ValueMetadata {
  readonly name: string;
  readonly isTensor: boolean;
  /** Element type, e.g. `'float32'`. */
  readonly type?: string;
  /** Dimensions: numbers, symbolic names, or `''` where unknown; empty when the rank is unknown. */
  readonly shape?: readonly (number | string)[];
}

/** Options of {@link InferenceSession.run}: onnxruntime's run options, plus `profile`. */
export interface RunOptions {
  /** Time every part into {@link InferenceSession.lastProfile}. */
  profile?: boolean;
  /** Any onnxruntime run option, passed on to every onnxruntime part. */
  [option: string]: unknown;
}

/** Where a part runs. */
export type RunsOn = 'onnxruntime' | 'gridsample';

/** Time spent in one part of a run. */
export interface PartTiming {
  /** The part's number, from 1, as in {@link Plan}. */
  part: number;
  runsOn: RunsOn;
  /** How many nodes the part has. */
  nodes: number;
  /** Milliseconds, including the onnxruntime call or the gridsample kernels. */
  ms: number;
  /** For gridsample parts: what each node read and wrote. */
  io?: NodeIO[];
}

/** A tensor a node read or wrote in a profiled run. */
export interface ValueShape {
  name: string;
  type?: string;
  dims?: number[];
  /** AffineGrid's size input: its values. */
  values?: number[];
}

/** The types and shapes a GridSample / AffineGrid node saw in a profiled run. */
export interface NodeIO {
  name: string;
  opType: string;
  inputs: ValueShape[];
  output: ValueShape;
}

/** Per-part timing of one run. */
export interface Profile {
  /** The whole run, in milliseconds. */
  ms: number;
  parts: PartTiming[];
  /** The first run only: what placement decided after it (its parts are the split's). */
  placement?: PlacementDecision;
}

/** Whole-run times of one placement, in milliseconds. */
export interface RunTimes {
  median: number;
  p90: number;
  runs: number;
}

/** How the session placed its GridSample / AffineGrid nodes ({@link Plan.placement}). */
export interface PlacementDecision {
  option: 'auto' | 'gridsample' | 'onnxruntime';
  /** Whether the first run has decided (false before it, and where the option or WebGPU fixes the split). */
  decided: boolean;
  /**
   * placement 'auto': the whole-run times it chose from (the smaller median wins), else null (not
   * timed). The split is timed first; where onnxruntime's placement then looked as fast, the split
   * was made and timed again (warm, as onnxruntime's was): `split` is that second timing and
   * `firstSplit` the first.
   */
  measured: { split: RunTimes; onnxruntime: RunTimes; firstSplit?: RunTimes } | null;
}

/** The chain a fused attention node replaced, and the levels it proved ({@link PlanNode.fused}). */
export interface FusedAttention {
  /** The model's nodes it runs in their place, in the model's order. */
  replaced: { name: string; opType: string }[];
  /**
   * What it reads: the value [N, S, M, D], the sampling locations [N, Lq, M, L, P, 2], the attention weights ([N, Lq, M, L, P] or [N, Lq, M, L * P]); for RT-DETRv2's and D-FINE's v2 form [N, Lq, M, sum(P_l), 2] and [N, Lq, M, sum(P_l)].
   * Where it also took the arithmetic that makes the locations ({@link FusedAttention.locationSteps}), the second is the offsets that arithmetic starts from, and each step's operand follows the weights.
   */
  inputs: string[];
  /**
   * The elementwise steps (in the model's order) that make the sampling locations from the offsets, which the fused node computes on the CPU as onnxruntime would, step by step in float32 (D-FINE's and RT-DETR's reference boxes, Deformable DETR's offset normaliser): each an operator, the operand it reads (broadcast into the offsets), and whether the operand comes first (`operand - offsets`, `operand / offsets`). Absent where onnxruntime computes the locations (and on WebGPU, where the node reads them in place).
   */
  locationSteps?: { op: 'Mul' | 'Div' | 'Add' | 'Sub'; operand: string; first: boolean }[];
  /** Each level's [H, W], in the value's row order. */
  levels: [number, number][];
  /** The row each level starts at. */
  levelStartIndex: number[];
  /** The options of its gs.multiScaleDeformableAttention call: `{}`, or for the v2 form `{ pointsPerLevel }` (method 'default') or `{ pointsPerLevel, sampling: 'discrete' }`. */
  options: { pointsPerLevel?: number[]; sampling?: 'discrete' };
}

/** One node of a {@link PlanPart}. */
export interface PlanNode {
  name: string;
  /** The model's operator, or `'MultiScaleDeformableAttention'` for a fused attention chain. */
  opType: string;
  /** mmdeploy's `MMCVMultiScaleDeformableAttention`: its domain, `'mmdeploy'`. */
  domain?: string;
  /** A fused attention chain: the nodes it replaced and its levels. */
  fused?: FusedAttention;
  /** For GridSample / AffineGrid nodes: the operator version the model's opset selects. */
  version?: number;
  /** For GridSample / AffineGrid nodes: their attributes as gridsample's options. */
  attributes?: { mode?: string; paddingMode?: string; alignCorners: boolean };
  /** For GridSample / AffineGrid and attention nodes: where the node runs and why (see `placement`). */
  placement?: { runsOn: RunsOn; why: string };
}

/** A part of the split model: a run of onnxruntime nodes (one session) or gridsample nodes. */
export interface PlanPart {
  part: number;
  runsOn: RunsOn;
  /** gridsample parts: what runs them ('webgpu' or 'wasm'), and why. */
  backend?: 'webgpu' | 'wasm';
  why?: string;
  nodes: PlanNode[];
  /** The part's nodes counted by operator. */
  ops: Record<string, number>;
  /** Values the part reads from the feeds or earlier parts. */
  inputs: string[];
  /** Values the part hands on to later parts or returns. */
  outputs: string[];
}

/** How a model was split. */
export interface Plan {
  /** The model's name in messages (its file name, else its graph's name). */
  model: string;
  /** The default-domain opset the model imports. */
  opset: number | null;
  parts: PlanPart[];
  counts: {
    onnxruntimeSessions: number;
    onnxruntimeNodes: number;
    gridsampleNodes: number;
    /** Nodes whose results nothing reads (dropped, as onnxruntime drops them). */
    unusedNodes: number;
  };
  /** Absent for a model without GridSample / AffineGrid nodes (one onnxruntime session). */
  placement?: PlacementDecision;
  /**
   * Where the model has multi-scale deformable attention chains (and `fuseAttention` looked
   * for them): how many run fused, and each one left as it was, near which node and why.
   */
  attention?: { fused: number; notFused: { near: string; why: string }[] };
}

/**
 * A drop-in for onnxruntime's `InferenceSession`: GridSample and AffineGrid nodes of the main
 * graph run on gridsample, every other node on the caller's onnxruntime.
 */
export declare class InferenceSession<T extends OrtTensor = OrtTensor> {
  private constructor();
  /** Parses and splits `model` (bytes, a URL or a path) and creates its onnxruntime sessions. */
  static create<O extends OrtModule>(model: Uint8Array | ArrayBuffer | HostClass<'URL'> | string, options: SessionOptions<O>): Promise<InferenceSession<TensorOf<O>>>;
  /** The model's input names. */
  readonly inputNames: readonly string[];
  /** The model's output names. */
  readonly outputNames: readonly string[];
  /** The inputs' declared types and shapes, as onnxruntime's `inputMetadata` (`''` for an unknown dimension). */
  readonly inputMetadata: readonly ValueMetadata[];
  /** The outputs' types and declared shapes, as onnxruntime's `outputMetadata`. */
  readonly outputMetadata: readonly ValueMetadata[];
  /** Per-part timing of the last `run(feeds, { profile: true })`, else null. */
  readonly lastProfile: Profile | null;
  /** Which nodes run where. */
  plan(): Plan;
  /**
   * Runs the model; resolves to onnxruntime tensors by output name. Runs called before earlier
   * ones have finished wait their turn and run in the order called; errors are {@link OnnxModelError}s.
   */
  run(feeds: Readonly<Record<string, T>>, options?: RunOptions): Promise<Record<string, T>>;
  /** Runs the model and returns only the outputs named in `fetches`. */
  run(feeds: Readonly<Record<string, T>>, fetches: readonly string[], options?: RunOptions): Promise<Record<string, T>>;
  /** Releases the onnxruntime sessions after the run in progress; runs still waiting reject. */
  release(): Promise<void>;
}

/** A model gridsample/onnx cannot take, or a failure inside one of its parts; the message names the model and the node. */
export declare class OnnxModelError extends Error {
  name: 'OnnxModelError';
}

/**
 * The session as gridsample/ort and gridsample/transformers hand it to code written for
 * onnxruntime: also onnxruntime's `handler.dispose()` (which is `release()`).
 */
export type OrtShapedSession<T extends OrtTensor = OrtTensor> = InferenceSession<T> & { readonly handler: { dispose(): Promise<void> } };

/** The `InferenceSession` of gridsample/ort and gridsample/transformers: onnxruntime's `create()` forms, `options.ort` filled in. */
export interface OrtShapedSessionFactory<O extends OrtModule = OrtModule> {
  create(model: Uint8Array | ArrayBuffer | HostClass<'URL'> | string, options?: Partial<SessionOptions<O>>): Promise<OrtShapedSession<TensorOf<O>>>;
  create(buffer: ArrayBuffer | SharedArrayBuffer, byteOffset: number, byteLength?: number, options?: Partial<SessionOptions<O>>): Promise<OrtShapedSession<TensorOf<O>>>;
}
