// Where the split session runs each GridSample / AffineGrid node: decided at the first run, before its result is returned, from what onnxruntime can run as gridsample does, what holding both placements would cost in memory and (placement 'auto') from whole runs of both placements timed on the caller's feeds.
import { MODE_KIND } from '../core/modes.mjs';
import { failureReason, quote } from './errors.mjs';
import { stats } from './stats.mjs';

export const PLACEMENTS = ['auto', 'gridsample', 'onnxruntime'];

// What deciding costs, per placement: untimed runs until WARMUP of them and WARM_TOTAL_MS of
// their time (the first run is the split's; none more once one takes WARM_MS: the engine
// compiles and tiers up code in a placement's first runs, which would count against the one
// timed first), then timed runs until RUNS of them and MIN_MS of their time, at most MAX_RUNS
// of them or BUDGET_MS of their time, at least one: a slow model is decided from one timed run
// of each, a model of microseconds from hundreds. Its first hundred runs can take 2-4 times
// its steady time in either placement: with 9 timed runs, a 3-node model of 26 us alone (47 us
// split) kept the split in 2 of 6 processes; with 30 ms of runs, in none of 6 (bench/README.md).
const WARMUP = 3;
const WARM_TOTAL_MS = 10;
const WARM_MS = 50;
const RUNS = 9;
const MIN_MS = 30;
const MAX_RUNS = 1000;
const BUDGET_MS = 200;

/**
 * Why onnxruntime's CPU kernels (onnxruntime-web's wasm, onnxruntime-node) cannot run node `n`
 * as gridsample does, at the types and dimensions one run saw (`seen`, as onnx/values.mjs io()
 * reports them); null when they can.
 */
export function onnxruntimeCannot(n, seen) {
  // mmdeploy's node has no onnxruntime kernel; a fused chain goes back to onnxruntime unfused.
  if (n.attention === 'mmdeploy') return `onnxruntime has no ${n.node.opType} (domain ${quote(n.node.domain)})`;
  const dtype = seen.inputs[0].type;
  if (dtype !== 'float32') return `onnxruntime's CPU ${n.node.opType} is float32 only here, the node is ${dtype}`;
  if (n.attention) return null;
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

// The nodes onnxruntime can take, from what the first run saw (`seen`: node index -> io()): a
// gridsample part goes to onnxruntime whole or not at all. { keep: Set of node indices, why:
// Map node index -> { runsOn, why } for the nodes it cannot take }.
function movable(split, seen) {
  const keep = new Set();
  const why = new Map();
  for (const part of split.parts.filter((p) => p.runsOn === 'gridsample')) {
    const cannot = part.nodes.map((n) => onnxruntimeCannot(n, seen.get(n.index))).find(Boolean);
    for (const n of part.nodes) {
      if (cannot) why.set(n.index, { runsOn: 'gridsample', why: cannot });
      else keep.add(n.index);
    }
  }
  return { keep, why };
}

/**
 * The first memory rule of placement 'auto': the constants the split holds in the wasm heap for
 * the nodes that would go to onnxruntime (initializers of 1 MiB or more that they read, copied
 * there at create(): onnx/values.mjs heapConstant), as [{ name, bytes }]. The other placement
 * makes onnxruntime hold the same bytes again, in its own heap, and a wasm heap never gives
 * memory back: ours lives on in a module the caller passed; a module the session loaded itself
 * is let go, but its memory only when the garbage collector takes it (not before the other
 * placement was made, measured), and is filled again if the split wins. Timing both placements
 * would so hold these bytes twice, above onnxruntime alone's peak on the same model by about
 * their size (tests/js/onnx_memory.test.mjs); where there are any, 'auto' keeps the split
 * untimed: it holds them once, and its onnxruntime parts not at all.
 */
export function heldTwice(split, keep, heapBytes) {
  const names = new Set(split.parts.flatMap((p) => p.nodes).filter((n) => keep.has(n.index)).flatMap((n) => n.node.input));
  return [...names].map((name) => ({ name, bytes: heapBytes(name) })).filter((c) => c.bytes > 0);
}

const mib = (bytes) => `${Math.round(bytes / 2 ** 20)} MiB`;

// A fused attention whose chain would stack at least this many bytes of samples runs fused
// untimed (unfusedSamples).
const UNFUSED_SAMPLES_BYTES = 32 * 2 ** 20;

/**
 * The second memory rule of placement 'auto': the fused multi-scale deformable attention nodes
 * among those that would go to onnxruntime whose chain, run there unfused, would materialise at
 * least 32 MiB of per-level samples (value channels D times the attention weights' N * Lq * M *
 * L * P, float32: the stack, and the Mul's product again), from what the first run saw, as
 * [{ label, bytes }]. onnxruntime's wasm heap keeps what that run grew it to, so timing the
 * other placement would lift the split's peak above onnxruntime alone's (a Deformable-DETR
 * encoder layer at 640x640: 139 MB stacked; tests/js/onnx_memory.test.mjs), while at such sizes
 * the fused node is the faster by far (the block with its projections, 257 ms split against
 * 421 ms alone; bench/RESULTS.md's encoder_block_640): 'auto' keeps the split untimed there.
 */
export function unfusedSamples(split, keep, seen) {
  const count = (dims) => dims.reduce((a, b) => a * b, 1);
  return split.parts.flatMap((p) => p.nodes)
    .filter((n) => keep.has(n.index) && n.fused && seen.get(n.index)?.inputs[2].dims)
    .map((n) => {
      const [value, , weights] = seen.get(n.index).inputs;
      return { label: n.label, bytes: 4 * count(weights.dims) * value.dims.at(-1) };
    })
    .filter((c) => c.bytes >= UNFUSED_SAMPLES_BYTES);
}

const round = (ms) => (ms < 0.01 ? ms.toPrecision(2) : ms.toFixed(3));

// Times runs of the placement in use after `first`, its first run ({ result, ms }), each result
// but the last given to `drop`: { last: { result, ms }, ms: [times] }.
async function timeRuns(run, drop, first) {
  let last = first;
  const next = async () => {
    const r = await run();
    drop(last.result);
    last = r;
  };
  for (let i = 1, total = last.ms; (i < WARMUP || total < WARM_TOTAL_MS) && last.ms < WARM_MS; ++i, total += last.ms) await next();
  const ms = [];
  for (let total = 0; (ms.length < RUNS || total < MIN_MS) && ms.length < MAX_RUNS && total < BUDGET_MS; total += last.ms) {
    await next();
    ms.push(last.ms);
  }
  return { last, ms };
}

/**
 * Decides where the nodes of ours run, at the first run, before its result is returned; the
 * session runs the chosen placement from then on, so every run gives the same bytes.
 * `first`: the first run, on the split ({ result, ms }); `seen`: what its nodes of ours saw;
 * `option`: 'auto' or 'onnxruntime'. The session's hooks: `heapBytes(name)` is the size of
 * constant `name` in the wasm heap (0 where it is not there; see heldTwice); `run()` runs the
 * placement in use on the first run's feeds ({ result, ms }); `use(keep)` releases the
 * placement in use (its onnxruntime sessions) and makes the one that leaves the nodes in `keep`
 * to onnxruntime (an empty set: the split; throws where onnxruntime cannot make it);
 * `drop(result)` frees a result not returned. One placement exists at a time, so deciding needs
 * no more memory than the larger of the two, but for the wasm heaps, which keep what they grew
 * to: where they would hold constants twice (heldTwice) or stack a large fused attention's
 * samples unfused (unfusedSamples), 'auto' does not time. The result
 * returned is of the placement kept, run last (a result of sessions since released, on the
 * GPU, could be neither read nor freed).
 * Resolves to { result: the chosen placement's result of the feeds, why: Map node index ->
 * { runsOn, why }, measured: { split, onnxruntime: stats() of whole runs } | null }.
 */
export async function decidePlacement(option, split, first, seen, { heapBytes, run, use, drop }) {
  const { keep, why } = movable(split, seen);
  const place = (runsOn, reason) => {
    for (const i of keep) why.set(i, { runsOn, why: reason });
  };
  if (keep.size === 0) return { result: first.result, why, measured: null };
  // The split again, where onnxruntime could not make or run the other placement.
  const fallBack = async (e) => {
    await use(new Set());
    place('gridsample', `onnxruntime could not take it: ${failureReason(e)}`);
    return { result: (await run()).result, why, measured: null };
  };
  if (option === 'onnxruntime') {
    drop(first.result);
    try {
      await use(keep);
      const { result } = await run();
      place('onnxruntime', "placement 'onnxruntime'");
      return { result, why, measured: null };
    } catch (e) {
      return fallBack(e);
    }
  }
  const twice = heldTwice(split, keep, heapBytes);
  if (twice.length) {
    const held = twice.map((c) => `${quote(c.name)} (${mib(c.bytes)})`).join(', ');
    place('gridsample', `placement 'auto' kept it on gridsample untimed: timing the other placement would hold ${held} twice, `
      + "in gridsample's wasm heap and in onnxruntime's");
    return { result: first.result, why, measured: null };
  }
  const stacked = unfusedSamples(split, keep, seen);
  if (stacked.length) {
    const what = stacked.map((c) => `${c.label} (${mib(c.bytes)})`).join(', ');
    place('gridsample', `placement 'auto' kept it on gridsample untimed: timing the other placement would stack the samples of ${what} `
      + "unfused in onnxruntime's wasm heap, which keeps what it grows to");
    return { result: first.result, why, measured: null };
  }
  const splitRuns = await timeRuns(run, drop, first);
  drop(splitRuns.last.result);
  let merged;
  try {
    await use(keep);
    merged = await timeRuns(run, drop, await run());
  } catch (e) {
    return fallBack(e);
  }
  const measured = { split: stats(splitRuns.ms), onnxruntime: stats(merged.ms) };
  // The split was timed first, in runs where the engine may still compile and tier up its code
  // (a fresh process's first runs of a wasm module are 2-4 times slower): before onnxruntime's
  // placement wins, the split is made and timed again, as warm as onnxruntime's was.
  let again = null;
  if (measured.onnxruntime.median <= measured.split.median) {
    drop(merged.last.result);
    await use(new Set());
    again = await timeRuns(run, drop, await run());
    [measured.firstSplit, measured.split] = [measured.split, stats(again.ms)];
  }
  const retimed = again ? ` (timed again after onnxruntime's runs; ${round(measured.firstSplit.median)} ms in its first)` : '';
  const reason = `placement 'auto' timed whole runs on the first feeds: ${round(measured.split.median)} ms split${retimed}, `
    + `${round(measured.onnxruntime.median)} ms with it on onnxruntime (medians of ${measured.split.runs} and ${measured.onnxruntime.runs})`;
  if (measured.onnxruntime.median <= measured.split.median) {
    drop(again.last.result);
    try {
      await use(keep);
    } catch (e) {
      return fallBack(e);
    }
    place('onnxruntime', reason);
    return { result: (await run()).result, why, measured };
  }
  if (again) {
    place('gridsample', reason);
    return { result: again.last.result, why, measured };
  }
  drop(merged.last.result);
  await use(new Set());
  place('gridsample', reason);
  return { result: (await run()).result, why, measured };
}
