// The demo worker's sampling jobs on the current state: our call (warpAffine, affineGrid + gridSample or warpFlow), its one-thread and plain-JavaScript peers, the batch view, the overlay's lattice and the output's pixels (the WebGPU peer: worker_gpu.mjs).
import { flowGrid } from '../../js/images/flows.mjs';
import { affineGrid2d, gridSample2d, warpAffineRgba } from './plain_gridsample.mjs';
import { flowFromGrid, randomThetas } from './transforms.mjs';
import { fused, heapTensor, options, state, theta32 } from './worker_state.mjs';

const BATCH_SOURCE = 256; // longest side of the batch's (downsampled) input
const LATTICE = 64; // grid subsample sent to the page for the overlay: 65 × 65 points

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

// The planar float32 copy of the source (1, 4, H, W), converted when the source changed.
function planarSource() {
  const { source } = state;
  const X = heapTensor('x', 'float32', [1, 4, source.height, source.width]);
  if (state.planarDirty) {
    rgbaToPlanar(source.rgba, X.data, source.width * source.height);
    state.planarDirty = false;
  }
  return X;
}

/** The heap tensors of the current path, filled from the source when it changed. */
export function tensors() {
  const { source, params } = state;
  const { width: w, height: h } = source;
  if (fused()) {
    const S = heapTensor('rgba', 'uint8', [h, w, 4]);
    if (state.rgbaDirty) {
      S.data.set(source.rgba);
      state.rgbaDirty = false;
    }
    return { S, O: heapTensor('rgbaOut', 'uint8', [h, w, 4]) };
  }
  const X = planarSource();
  const F = params.flow === 'none' ? null : heapTensor('flow', 'float32', [1, 2, h, w]);
  return { X, F, G: heapTensor('grid', 'float32', [1, h, w, 2]), Y: heapTensor('y', 'float32', [1, 4, h, w]) };
}

/**
 * Our call for the current state into the heap outputs; returns its time in ms. Timed:
 * warpAffine, or affineGrid + gridSample, or (flow presets) warpFlow alone: the preset's grid
 * and its flow are built in JavaScript outside the timing, and the baseline samples the grid.
 */
export function ourCall(t) {
  const { gs, source: { width: w, height: h }, params } = state;
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
  flowGrid(gs, params.flow, params.strength, params.theta, w, h, params.align, t.G.data);
  flowFromGrid(t.G.data, w, h, w, h, params.align, t.F.data);
  t0 = performance.now();
  gs.warpFlow(t.X, t.F, { ...options(), out: t.Y });
  return performance.now() - t0;
}

// The same fused warp on one thread, beside gs's threads (the figure cards' 1 vs N): the
// single-threaded instance with its own copy of the picture.
let singleInputs = null;  // { key, S, O }
export function singleThreadCall(t) {
  const { single } = state;
  if (!single || !t.S) return null;
  const { id, width: w, height: h } = state.source;
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

/**
 * The same call in plain JavaScript: its time and its largest difference from our output
 * (heap views are plain typed arrays to JavaScript; nothing calls into wasm meanwhile).
 */
export function baselineCall(t) {
  const { source, params } = state;
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
  state.lastJsAt = performance.now();
  return { jsMs, maxDiff };
}

/**
 * A (LATTICE + 1)² subsample of the grid's normalised coordinates, for the overlay: read
 * from the grid, or (fused path, no grid) θ applied to the same base coordinates.
 */
export function lattice(t) {
  const { source: { width: w, height: h }, params } = state;
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

/** Our output as RGBA bytes for the canvas. */
export function outputRgba(t) {
  const { width: w, height: h } = state.source;
  const rgba = new Uint8ClampedArray(4 * w * h);
  if (t.O) {
    const o = t.O.data;
    rgba.set(new Uint8ClampedArray(o.buffer, o.byteOffset, o.length));
  } else {
    planarToRgba(t.Y.data, 0, w * h, rgba);
  }
  return rgba;
}

/**
 * The spatial-transformer view: batchSize random thetas over the (downsampled) source, as
 * one affineGrid and one gridSample call with N = batchSize. Drawn into the thumbnails where
 * the worker has them; else their images are returned for the page.
 */
export function renderBatch() {
  state.batchDirty = false;
  const { gs, source: { width, height }, batchSize, thumb } = state;
  const X = planarSource();
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
  T.data.set(randomThetas(batchSize, state.batchSeed));
  const GB = heapTensor('batchGrid', 'float32', [batchSize, thumb, thumb, 2]);
  const YB = heapTensor('batchY', 'float32', [batchSize, 4, thumb, thumb]);

  const t0 = performance.now();
  gs.affineGrid(T, [batchSize, 4, thumb, thumb], { alignCorners: state.params.align, out: GB });
  gs.gridSample(XB, GB, { ...options(), out: YB });
  const ms = performance.now() - t0;

  const images = [];
  const yb = YB.data;
  for (let n = 0; n < batchSize; ++n) {
    const rgba = new Uint8ClampedArray(4 * thumb * thumb);
    planarToRgba(yb, n * 4 * thumb * thumb, thumb * thumb, rgba);
    images.push(new ImageData(rgba, thumb, thumb));
  }
  const info = { ms, seed: state.batchSeed, n: batchSize, inputShape: [batchSize, 4, h, w] };
  if (state.tileCtxs) {
    images.forEach((im, n) => state.tileCtxs[n].putImageData(im, 0, 0));
    return { ...info, images: null };
  }
  return { ...info, images };
}
