// The demo's module worker: loads the gridsample package like any app, warps the source (warpAffine, or affineGrid/gridSample), times it against plain JavaScript and draws the results.
//
// Everything heavy happens here so that the page stays responsive. Tensors live in the wasm
// heap (the package's zero-copy tier) and are reused across frames. Two paths:
//   - affine θ: `warpAffine` on the RGBA bytes themselves (fused, no grid, no layout change);
//     packages without it take the gridSample path with an `affineGrid` grid;
//   - flow presets: the grid built in JavaScript and turned into a flow in pixels, then
//     `warpFlow` on planar float32 (1, 4, H, W), converted from the RGBA bytes once per source
//     and back for the canvas (the plain-JavaScript baseline samples the grid).
// Output canvases arrive as OffscreenCanvas when the browser can transfer them; otherwise the
// pixels are posted back and the page draws them.
import { load } from '../../js/browser.mjs';
import { flowFromGrid, flowGrid } from '../../js/images/flows.mjs';
import { affineGrid2d, gridSample2d, warpAffineRgba } from './plain_gridsample.mjs';
import { randomThetas } from './transforms.mjs';

const BATCH_SOURCE = 256; // longest side of the batch's (downsampled) input
const LATTICE = 64; // grid subsample sent to the page for the overlay: 65 × 65 points
const JS_EVERY_MS = 600; // while frames stream in, run the slow baseline this often at most
const SETTLE_MS = 150; // no new frame for this long: the state has settled, measure it
const SETTLE_ROUNDS = 3; // rounds of (2 × ours, 1 × baseline) measured per settled state

let gs = null;
let allowFused = true; // ?fused=0 on the page takes the affineGrid + gridSample path instead
let batchSize = 8; // thumbnails in the spatial-transformer view (the page says how many)
let thumb = 128; // thumbnail side
let outCtx = null; // OffscreenCanvasRenderingContext2D of the output, or null (fallback)
let tileCtxs = null;
let source = null; // {id, width, height, rgba}
let rgbaDirty = false; // the heap copy of the source bytes is stale
let planarDirty = false; // the planar float32 copy is stale
let params = null; // latest state from the page
let batchSeed = 1;
let batchDirty = true;
let scheduled = false;
let idleTimer = 0;
let lastJsAt = -Infinity;
let lastFrameAt = -Infinity;
const heap = {}; // name -> HeapTensor, re-created when shapes change

// Threads where the page is cross-origin isolated (load() falls back to one elsewhere): ?threads=N
// on the page, else every core up to 4 (at least 2, to show them on a 2-core machine).
const threadsAsked = Number(new URL(self.location.href).searchParams.get('threads'));
const cores = self.navigator?.hardwareConcurrency ?? 1;
const ready = load({ numThreads: Number.isInteger(threadsAsked) && threadsAsked >= 1 && threadsAsked <= 64 ? threadsAsked : Math.max(2, Math.min(4, cores)) });

/** A heap tensor of this shape, kept across frames (the zero-copy tier). */
function heapTensor(name, dtype, shape) {
  const t = heap[name];
  if (t && t.dtype === dtype && t.shape.length === shape.length && t.shape.every((d, i) => d === shape[i])) return t;
  if (t) t.dispose();
  heap[name] = gs.tensor(dtype, shape);
  return heap[name];
}

// Interleaved RGBA bytes (H, W, 4) into planar float32 (C = 4, H, W) and back. Assigning to a
// Uint8ClampedArray rounds half to even and clamps, as the package does for uint8 results.
function rgbaToPlanar(rgba, planar, plane) {
  for (let i = 0, j = 0; i < plane; ++i, j += 4) {
    planar[i] = rgba[j];
    planar[i + plane] = rgba[j + 1];
    planar[i + 2 * plane] = rgba[j + 2];
    planar[i + 3 * plane] = rgba[j + 3];
  }
}

function planarToRgba(planar, offset, plane, rgba) {
  for (let i = 0, j = 0; i < plane; ++i, j += 4) {
    rgba[j] = planar[offset + i];
    rgba[j + 1] = planar[offset + i + plane];
    rgba[j + 2] = planar[offset + i + 2 * plane];
    rgba[j + 3] = planar[offset + i + 3 * plane];
  }
}

// The fused path needs a package with warpAffine and an affine state.
function fused() {
  return allowFused && params.flow === 'none' && typeof gs.warpAffine === 'function';
}

function options() {
  return { mode: params.mode, paddingMode: params.padding, alignCorners: params.align };
}

function theta32() {
  return Float32Array.from(params.theta);
}

function workloadName() {
  const { width: w, height: h } = source;
  const call = fused() ? 'warpAffine' : params.flow === 'none' ? 'affineGrid + gridSample' : `warpFlow (${params.flow} flow)`;
  const data = fused() ? `${w}×${h} RGBA uint8` : `1×4×${h}×${w} float32`;
  return `${call} · ${data} · ${params.mode}/${params.padding}/align ${params.align ? 1 : 0}`;
}

// The heap tensors of the current path, filled from the source when it changed.
function tensors() {
  const { width: w, height: h } = source;
  if (fused()) {
    const S = heapTensor('rgba', 'uint8', [h, w, 4]);
    if (rgbaDirty) {
      S.data.set(source.rgba);
      rgbaDirty = false;
    }
    return { S, O: heapTensor('rgbaOut', 'uint8', [h, w, 4]) };
  }
  const X = heapTensor('x', 'float32', [1, 4, h, w]);
  if (planarDirty) {
    rgbaToPlanar(source.rgba, X.data, w * h);
    planarDirty = false;
  }
  const F = params.flow === 'none' ? null : heapTensor('flow', 'float32', [1, 2, h, w]);
  return { X, F, G: heapTensor('grid', 'float32', [1, h, w, 2]), Y: heapTensor('y', 'float32', [1, 4, h, w]) };
}

/**
 * Our call for the current state into the heap outputs; returns its time in ms. Timed:
 * warpAffine, or affineGrid + gridSample, or (flow presets) warpFlow alone: the preset's grid
 * and its flow are built in JavaScript outside the timing, and the baseline samples the grid.
 */
function ourCall(t) {
  const { width: w, height: h } = source;
  if (t.S) {
    const t0 = performance.now();
    gs.warpAffine(t.S, theta32(), { ...options(), out: t.O });
    return performance.now() - t0;
  }
  let t0 = performance.now();
  if (params.flow === 'none') {
    const T = heapTensor('theta', 'float32', [1, 2, 3]);
    T.data.set(params.theta);
    gs.affineGrid(T, [1, 4, h, w], { alignCorners: params.align, out: t.G });
    gs.gridSample(t.X, t.G, { ...options(), out: t.Y });
    return performance.now() - t0;
  }
  flowGrid(params.flow, params.strength, params.theta, w, h, params.align, t.G.data);
  flowFromGrid(t.G.data, w, h, w, h, params.align, t.F.data);
  t0 = performance.now();
  gs.warpFlow(t.X, t.F, { ...options(), out: t.Y });
  return performance.now() - t0;
}

// The same fused warp on one thread, beside gs's threads (the figure cards' 1 vs N): a
// single-threaded instance with its own copy of the picture, loaded only where gs has threads.
let single = null;
let singleInputs = null;  // { key, S, O }
function singleThreadCall(t) {
  if (!single || !t.S) return null;
  const { id, width: w, height: h } = source;
  const key = `${id}:${w}x${h}`;
  if (singleInputs?.key !== key) {
    singleInputs?.S.dispose();
    singleInputs?.O.dispose();
    singleInputs = { key, S: single.tensorFrom({ data: t.S.data, shape: [h, w, 4] }), O: single.tensor('uint8', [h, w, 4]) };
  }
  const t0 = performance.now();
  single.warpAffine(singleInputs.S, theta32(), { ...options(), out: singleInputs.O });
  return performance.now() - t0;
}

// The same call in plain JavaScript: its time and its largest difference from our output
// (heap views are plain typed arrays to JavaScript; nothing calls into wasm meanwhile).
function baselineCall(t) {
  const { width: w, height: h } = source;
  let jsMs;
  let maxDiff = 0;
  if (t.S) {
    const t0 = performance.now();
    const y = warpAffineRgba(source.rgba, w, h, theta32(), w, h, options());
    jsMs = performance.now() - t0;
    const ours = t.O.data;
    for (let i = 0; i < y.length; ++i) maxDiff = Math.max(maxDiff, Math.abs(y[i] - ours[i]));
  } else {
    const shape = [1, 4, h, w];
    const t0 = performance.now();
    const grid = params.flow === 'none' ? affineGrid2d(theta32(), shape, params.align) : t.G.data;
    const t1 = performance.now();
    const y = gridSample2d(t.X.data, shape, grid, [1, h, w], options());
    const t2 = performance.now();
    jsMs = params.flow === 'none' ? t2 - t0 : t2 - t1;
    const ours = t.Y.data;
    for (let i = 0; i < y.length; ++i) maxDiff = Math.max(maxDiff, Math.abs(y[i] - ours[i]));
  }
  lastJsAt = performance.now();
  return { jsMs, maxDiff };
}

// A (LATTICE + 1)² subsample of the grid's normalised coordinates, for the overlay: read
// from the grid, or (fused path, no grid) θ applied to the same base coordinates.
function lattice(t) {
  const { width: w, height: h } = source;
  const out = new Float32Array((LATTICE + 1) * (LATTICE + 1) * 2);
  const grid = t.G ? t.G.data : null;
  const [a, b, c, d, e, f] = theta32();
  const base = (i, n) => (n === 1 ? 0 : params.align ? (2 * i - (n - 1)) / (n - 1) : (2 * i + 1 - n) / n);
  let k = 0;
  for (let p = 0; p <= LATTICE; ++p) {
    const i = Math.round((p * (h - 1)) / LATTICE);
    for (let q = 0; q <= LATTICE; ++q) {
      const j = Math.round((q * (w - 1)) / LATTICE);
      if (grid) {
        out[k++] = grid[2 * (i * w + j)];
        out[k++] = grid[2 * (i * w + j) + 1];
      } else {
        out[k++] = a * base(j, w) + b * base(i, h) + c;
        out[k++] = d * base(j, w) + e * base(i, h) + f;
      }
    }
  }
  return out;
}

function outputRgba(t) {
  const { width: w, height: h } = source;
  const rgba = new Uint8ClampedArray(4 * w * h);
  if (t.O) {
    const o = t.O.data;
    rgba.set(new Uint8ClampedArray(o.buffer, o.byteOffset, o.length));
  } else {
    planarToRgba(t.Y.data, 0, w * h, rgba);
  }
  return rgba;
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    try {
      render();
    } catch (e) {
      postMessage({ type: 'error', message: `${e && e.message ? e.message : e}` });
    }
  }, 0);
}

function render() {
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
  if (params.compareJs && streaming && frameStart - lastJsAt > JS_EVERY_MS) Object.assign(frame, baselineCall(t));
  const batch = batchDirty ? renderBatch() : null;
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
  if (!source || !params || rounds <= 0) return;
  const t = tensors();
  const ours = [ourCall(t), ourCall(t)];
  const oneMs = single && t.S ? [singleThreadCall(t), singleThreadCall(t)] : null;
  const stats = params.compareJs ? baselineCall(t) : { jsMs: null, maxDiff: null };
  postMessage({ type: 'stats', seq: params.seq, workload: workloadName(), oursMs: ours, oneMs, ...stats });
  if (params.gpu && t.S) {
    const seqNow = params.seq;
    const gpuStats = await gpuCall(t);
    if (params.seq === seqNow) postMessage({ type: 'gpu', seq: seqNow, workload: workloadName(), ...gpuStats });
  }
  idleTimer = setTimeout(() => settle(rounds - 1), 30);
}

// The WebGPU switch: the same fused warp through gridsample/webgpu on this worker's GPU device,
// on the source uploaded once per picture; its time per call including the read back to the
// CPU (what a page that draws on a 2-D canvas pays), and its largest difference from the wasm
// output of the same state (t.O, just computed).
let gpu = null; // Promise of createGpu's API, or of an Error where WebGPU is missing
let gpuSource = null; // {id, image}
function gpuApi() {
  gpu ??= import('../../js/webgpu/index.mjs').then(({ createGpu }) => createGpu({ wasm: gs })).catch((e) => e);
  return gpu;
}
async function gpuCall(t) {
  const api = await gpuApi();
  if (api instanceof Error) return { error: api.message };
  const { id, width: w, height: h } = source;
  if (gpuSource?.id !== id) {
    gpuSource?.image.dispose();
    gpuSource = { id, image: api.upload({ data: source.rgba, width: w, height: h }) };
  }
  const times = [];
  let y = null;
  try {
    for (let r = 0; r < 2; ++r) {
      const t0 = performance.now();
      y = await api.warpAffine(gpuSource.image, theta32(), options());
      const read = await api.read(y);
      times.push(performance.now() - t0);
      y.dispose();
      y = read;
    }
  } catch (e) {
    return { error: e.message };
  }
  let maxDiff = 0;
  const ours = t.O.data;
  for (let i = 0; i < ours.length; ++i) maxDiff = Math.max(maxDiff, Math.abs(y.data[i] - ours[i]));
  const info = api.device.adapterInfo ?? {};
  return { gpuMs: times, gpuDiff: maxDiff, adapter: [info.vendor, info.architecture, info.description].filter(Boolean).join(' ') };
}

// The spatial-transformer view: batchSize random thetas over the (downsampled) source, as
// one affineGrid and one gridSample call with N = batchSize.
function renderBatch() {
  batchDirty = false;
  const { width, height } = source;
  const X = heapTensor('x', 'float32', [1, 4, height, width]);
  if (planarDirty) {
    rgbaToPlanar(source.rgba, X.data, width * height);
    planarDirty = false;
  }
  // Downsample with the package too: an identity grid at the smaller size.
  const scale = Math.min(1, BATCH_SOURCE / Math.max(width, height));
  const h = Math.max(1, Math.round(height * scale));
  const w = Math.max(1, Math.round(width * scale));
  const identity = heapTensor('identity', 'float32', [1, 2, 3]);
  identity.data.set([1, 0, 0, 0, 1, 0]);
  const small = heapTensor('small', 'float32', [1, 4, h, w]);
  const smallGrid = heapTensor('smallGrid', 'float32', [1, h, w, 2]);
  gs.affineGrid(identity, [1, 4, h, w], { out: smallGrid });
  gs.gridSample(X, smallGrid, { mode: 'bilinear', out: small });
  const XB = heapTensor('batchX', 'float32', [batchSize, 4, h, w]);
  const smallData = small.data;
  const xb = XB.data;
  for (let n = 0; n < batchSize; ++n) xb.set(smallData, n * smallData.length);
  const T = heapTensor('batchTheta', 'float32', [batchSize, 2, 3]);
  T.data.set(randomThetas(batchSize, batchSeed));
  const GB = heapTensor('batchGrid', 'float32', [batchSize, thumb, thumb, 2]);
  const YB = heapTensor('batchY', 'float32', [batchSize, 4, thumb, thumb]);

  const t0 = performance.now();
  gs.affineGrid(T, [batchSize, 4, thumb, thumb], { alignCorners: params.align, out: GB });
  gs.gridSample(XB, GB, { ...options(), out: YB });
  const ms = performance.now() - t0;

  const images = [];
  const yb = YB.data;
  for (let n = 0; n < batchSize; ++n) {
    const rgba = new Uint8ClampedArray(4 * thumb * thumb);
    planarToRgba(yb, n * 4 * thumb * thumb, thumb * thumb, rgba);
    images.push(new ImageData(rgba, thumb, thumb));
  }
  const info = { ms, seed: batchSeed, n: batchSize, inputShape: [batchSize, 4, h, w] };
  if (tileCtxs) {
    images.forEach((im, n) => tileCtxs[n].putImageData(im, 0, 0));
    return { ...info, images: null };
  }
  return { ...info, images };
}

// Median timings of `reps` runs of ours and `jsReps` of the baseline (the Benchmark button).
function benchmark(reps, jsReps) {
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

onmessage = async ({ data: msg }) => {
  try {
    switch (msg.type) {
      case 'init': {
        if (msg.output) outCtx = msg.output.getContext('2d');
        if (msg.tiles) tileCtxs = msg.tiles.map((c) => c.getContext('2d'));
        allowFused = msg.fused !== false;
        batchSize = msg.batch;
        thumb = msg.thumb;
        gs = await ready;
        if (gs.threads > 1) single = await load({ variant: 'simd', numThreads: 1 });
        postMessage({ type: 'ready', backend: gs.backend, threads: gs.threads, isolated: self.crossOriginIsolated === true,
          target: gs.target, offscreen: !!outCtx,
          warpAffine: typeof gs.warpAffine === 'function' && allowFused });
        schedule();
        break;
      }
      case 'source':
        source = { id: msg.id, width: msg.width, height: msg.height, rgba: new Uint8ClampedArray(msg.pixels) };
        rgbaDirty = true;
        planarDirty = true;
        batchDirty = true;
        schedule();
        break;
      case 'params': {
        const before = params;
        params = msg.params;
        if (!before || before.mode !== params.mode || before.padding !== params.padding || before.align !== params.align) {
          batchDirty = true;
        }
        schedule();
        break;
      }
      case 'shuffle':
        batchSeed = msg.seed;
        batchDirty = true;
        schedule();
        break;
      case 'benchmark':
        await ready;
        if (!source || !params) throw new Error('nothing to benchmark yet: no source picture');
        postMessage({ type: 'benchmark', ...benchmark(msg.reps || 20, msg.jsReps || 5) });
        break;
      case 'read': {
        // What the output canvas (or a thumbnail) holds, read back from it: for the browser test.
        const ctx = msg.tile === undefined ? outCtx : tileCtxs[msg.tile];
        const im = ctx.getImageData(0, 0, ctx.canvas.width, ctx.canvas.height);
        postMessage({ type: 'read', id: msg.id, width: im.width, height: im.height, data: im.data }, [im.data.buffer]);
        break;
      }
      default:
        throw new Error(`unknown message ${msg.type}`);
    }
  } catch (e) {
    postMessage({ type: 'error', message: `${e && e.message ? e.message : e}` });
  }
};
