// Where the split session runs each GridSample / AffineGrid node: on gridsample, or left in onnxruntime's part where onnxruntime runs it as gridsample does and the node saves less than its part boundary costs (a measured cost model).
import { MODE_KIND } from '../core/modes.mjs';
import { splitModel } from './graph.mjs';

// The cost model, in ms, for onnxruntime-web's wasm provider on one thread (measured with
// Node.js 20, onnxruntime-web 1.22, on the 2-core machine of bench/RESULTS.md):
// - an onnxruntime session's run() costs ORT_RUN_MS whatever its work (a one-node Relu model
//   on 1 to 4096 floats: 0.015-0.018 ms per run, median of 500);
// - each of our calls OUR_CALL_MS (gridSample 8x8: 0.0062 ms, affineGrid 8x8: 0.0041);
// - each element that crosses a part boundary CROSS_MS_PER_ELEMENT: onnxruntime copies its
//   outputs out of and its inputs into its own heap (the Relu model on 262,144 floats: 0.19 ms,
//   0.68 ns per element for both copies and the Relu);
// - what our kernel saves per output element against onnxruntime's, SAVED_NS (bench/RESULTS.md,
//   "ns / output element" of onnxruntime-web (wasm SIMD, 1 thread) less ours through the
//   copying API; the smallest of the workloads of a kind, so that the saving is not overrated).
const ORT_RUN_MS = 0.015;
const OUR_CALL_MS = 0.006;
const CROSS_MS_PER_ELEMENT = 0.35e-6;
const SAVED_NS = {
  // GridSample by spatial rank and mode: feat2d 4.07 - 1.59 (img2d gives 8.1), nearest2d
  // 11.27 - 3.23, cubic2d 38.81 - 7.95, vol3d 43.48 - 4.02 (3-D nearest: 2-D nearest's).
  GridSample: { 2: { linear: 2.5, nearest: 8.0, cubic: 30.9 }, 3: { linear: 39.5, nearest: 8.0 } },
  // AffineGrid by spatial rank: affinegrid2d 1.62 - 0.82, affinegrid3d 2.20 - 1.10.
  AffineGrid: { 2: 0.8, 3: 1.1 },
};

export const PLACEMENTS = ['auto', 'gridsample', 'onnxruntime'];

const count = (dims) => dims.reduce((a, b) => a * b, 1);

/**
 * Why onnxruntime's CPU kernels (onnxruntime-web's wasm, onnxruntime-node) cannot run node `n`
 * as gridsample does, at the types and dimensions one run saw (`seen`, as onnx/values.mjs io()
 * reports them); null when they can.
 */
export function onnxruntimeCannot(n, seen) {
  const dtype = seen.inputs[0].type;
  if (dtype !== 'float32') return `onnxruntime's CPU ${n.node.opType} is float32 only here, the node is ${dtype}`;
  if (n.node.opType === 'AffineGrid') {
    // onnxruntime follows the ONNX reference on a size-1 axis with align_corners 1 (base
    // coordinate -1), gridsample follows PyTorch (0): DESIGN.md.
    if (n.attrs.alignCorners && (seen.inputs[1].values ?? []).slice(2).some((d) => d === 1)) return 'a size-1 axis with align_corners=1, where onnxruntime differs from PyTorch';
    return null;
  }
  const rank = seen.inputs[0].dims.length;
  if (rank !== 4 && rank !== 5) return `onnxruntime runs 4-D and 5-D GridSample only, X is ${rank}-D`;
  if (rank === 5 && n.version < 20) return 'GridSample-16 is 4-D only';
  if (rank === 5 && MODE_KIND[n.attrs.mode] === 'cubic') return 'onnxruntime has no 5-D cubic GridSample';
  return null;
}

// Estimated ms our kernel saves on node `n` at what one run saw.
function savedMs(n, seen) {
  const spatial = seen.output.dims.length - 2;
  const rates = SAVED_NS[n.node.opType][spatial];
  const ns = n.node.opType === 'AffineGrid' ? rates : rates?.[MODE_KIND[n.attrs.mode]];
  return ((ns ?? 0) * count(seen.output.dims)) / 1e6;
}

const ortParts = (split) => split.parts.filter((p) => p.runsOn === 'onnxruntime').length;
const round = (ms) => (ms < 0.01 ? ms.toPrecision(2) : ms.toFixed(3));

/**
 * Decides, for each node of ours, where it runs, from what the first run saw (`seen`: Map of
 * node index -> as onnxruntimeCannot takes it). Returns { keep: Set of node indices left in
 * onnxruntime, why: Map node index -> { runsOn, why } }. `placement` is the caller's option:
 * 'onnxruntime' keeps every node onnxruntime can run, 'auto' those whose saving is smaller
 * than the part boundary they make. A gridsample part is moved whole or not at all, one part at
 * a time, each judged against the split that the earlier decisions left.
 */
export function placeNodes(proto, model, split, seen, { placement, subgraphs }) {
  const keep = new Set();
  const why = new Map();
  let current = split;
  for (const part of split.parts.filter((p) => p.runsOn === 'gridsample')) {
    const cannot = part.nodes.map((n) => onnxruntimeCannot(n, seen.get(n.index))).find(Boolean);
    if (cannot) {
      for (const n of part.nodes) why.set(n.index, { runsOn: 'gridsample', why: cannot });
      continue;
    }
    const trial = splitModel(proto, model, { subgraphs, keep: new Set([...keep, ...part.nodes.map((n) => n.index)]) });
    const saved = part.nodes.reduce((ms, n) => ms + savedMs(n, seen.get(n.index)), 0);
    const elements = new Set();
    let crossing = 0;
    for (const n of part.nodes) {
      const s = seen.get(n.index);
      n.node.input.forEach((name, i) => {
        if (!elements.has(name) && part.inputs.includes(name)) crossing += count(s.inputs[i].dims);
        elements.add(name);
      });
      if (part.outputs.includes(n.node.output[0])) crossing += count(s.output.dims);
    }
    const boundary = (ortParts(current) - ortParts(trial)) * ORT_RUN_MS + part.nodes.length * OUR_CALL_MS + crossing * CROSS_MS_PER_ELEMENT;
    const estimate = `its part saves an estimated ${round(saved)} ms per run, the part's boundary costs ${round(boundary)} ms`;
    const moved = placement === 'onnxruntime' || saved < boundary;
    const reason = placement === 'onnxruntime' ? "placement 'onnxruntime'" : moved ? `onnxruntime runs it; ${estimate}` : estimate;
    for (const n of part.nodes) why.set(n.index, { runsOn: moved ? 'onnxruntime' : 'gridsample', why: reason });
    if (moved) {
      for (const n of part.nodes) keep.add(n.index);
      current = trial;
    }
  }
  return { keep, why };
}
