// The demo worker's frame loop: renders the latest state once per task (drawn or posted, with the lattice, the batch and now and then the baseline), measures a settled state a few more times, and runs the Benchmark button's medians.
import { baselineCall, lattice, ourCall, outputRgba, renderBatch, singleThreadCall, tensors } from './worker_jobs.mjs';
import { gpuCall } from './worker_gpu.mjs';
import { state, workloadName } from './worker_state.mjs';

const JS_EVERY_MS = 600; // while frames stream in, run the slow baseline this often at most
const SETTLE_MS = 150; // no new frame for this long: the state has settled, measure it
const SETTLE_ROUNDS = 3; // rounds of (2 × ours, 1 × baseline) measured per settled state

let scheduled = false;
let idleTimer = 0;
let lastFrameAt = -Infinity;

/** The error message posted to the page for an exception `e`. */
export const errorMessage = (e) => ({ type: 'error', message: `${e && e.message ? e.message : e}` });

/** Renders a frame in a task of its own, once however many messages ask for it meanwhile. */
export function schedule() {
  if (scheduled) return;
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    try {
      render();
    } catch (e) {
      postMessage(errorMessage(e));
    }
  }, 0);
}

function render() {
  const { gs, source, params, outCtx } = state;
  if (!gs || !source || !params) return;
  const { width, height } = source;
  const frameStart = performance.now();
  const t = tensors();
  const oursMs = ourCall(t);

  const image = new ImageData(outputRgba(t), width, height);
  let posted = null;
  if (outCtx) {
    if (outCtx.canvas.width !== width || outCtx.canvas.height !== height) {
      outCtx.canvas.width = width;
      outCtx.canvas.height = height;
    }
    outCtx.putImageData(image, 0, 0);
  } else {
    posted = image;
  }

  const frame = {
    type: 'frame',
    seq: params.seq,
    sourceId: source.id,
    width,
    height,
    path: t.S ? 'warpAffine' : t.F ? 'warpFlow' : 'gridSample',
    oursMs,
    frameMs: 0,
    workload: workloadName(),
    lattice: lattice(t),
    align: params.align, // of this lattice (the page may have moved on)
    image: posted,
    jsMs: null,
    maxDiff: null,
  };
  // While frames stream in (a slider is moving, the webcam runs), time the slow baseline now
  // and then; a settled state is measured properly below.
  const streaming = frameStart - lastFrameAt < 100;
  lastFrameAt = frameStart;
  if (params.compareJs && streaming && frameStart - state.lastJsAt > JS_EVERY_MS) Object.assign(frame, baselineCall(t));
  const batch = state.batchDirty ? renderBatch() : null;
  frame.frameMs = performance.now() - frameStart;
  frame.batch = batch;
  const transfer = [frame.lattice.buffer];
  if (posted) transfer.push(posted.data.buffer);
  if (batch && batch.images) transfer.push(...batch.images.map((im) => im.data.buffer));
  postMessage(frame, transfer);

  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => settle(SETTLE_ROUNDS), SETTLE_MS);
}

// Measures the settled state: a few more runs of ours (the first frame of a state pays for
// heap growth and warm-up) and of the baseline, one round per task so messages get through;
// with the WebGPU switch, the same warp on the GPU too.
async function settle(rounds) {
  const { source, params } = state;
  if (!source || !params || rounds <= 0) return;
  const t = tensors();
  const ours = [ourCall(t), ourCall(t)];
  const oneMs = state.single && t.S ? [singleThreadCall(t), singleThreadCall(t)] : null;
  const stats = params.compareJs ? baselineCall(t) : { jsMs: null, maxDiff: null };
  postMessage({ type: 'stats', seq: params.seq, workload: workloadName(), oursMs: ours, oneMs, ...stats });
  if (params.gpu && t.S) {
    const seqNow = params.seq;
    const gpuStats = await gpuCall(t);
    if (state.params.seq === seqNow) postMessage({ type: 'gpu', seq: seqNow, workload: workloadName(), ...gpuStats });
  }
  idleTimer = setTimeout(() => settle(rounds - 1), 30);
}

/** Median timings of `reps` runs of ours and `jsReps` of the baseline (the Benchmark button). */
export function benchmark(reps, jsReps) {
  const t = tensors();
  // One untimed run of each first: JIT tiers and heap growth are not what is measured.
  ourCall(t);
  baselineCall(t);
  const ours = Array.from({ length: reps }, () => ourCall(t));
  const js = [];
  let maxDiff = 0;
  for (let r = 0; r < jsReps; ++r) {
    const s = baselineCall(t);
    js.push(s.jsMs);
    maxDiff = Math.max(maxDiff, s.maxDiff);
  }
  const median = (a) => a.slice().sort((p, q) => p - q)[a.length >> 1];
  return { oursMs: median(ours), jsMs: median(js), reps, jsReps, maxDiff, workload: workloadName() };
}
