// The benchmark's rows (IMPLS: every implementation timed and the row of ours each is paired with) and how a row's output is checked against the reference.

import { THREADS } from './settings.mjs';

// Every row of the report, in table order: `vs` names the row of ours its speed-up (or, for
// a floor, our ratio to it) is taken against; `short` is how that row is named; `peer` is the
// peer a row times, as chart.mjs names its bars (one bar per peer: its fastest row); `floor` and
// `baseline` rows are not checked against the reference (a baseline computes other values:
// ours on the workload's inputs with its baseline's settings; only workloads with one have
// it). Ratios pair rows that move the same bytes: onnxruntime copies inputs into its heap and
// the output out on every run(), as our copying API does; OpenCV.js and the plain JS loop
// work on data already in place, as our heap tensors do.
export const IMPLS = [
  { id: 'simd', short: 'ours SIMD heap', label: 'gridsample wasm SIMD, heap tensors (zero-copy)' },
  { id: 'simd-t1', short: 'ours SIMD threads build, 1 thread', label: 'gridsample wasm SIMD with threads (simd-threads, set to 1 thread), heap tensors', vs: 'simd' },
  { id: 'simd-t2', short: 'ours SIMD, 2 threads', label: `gridsample wasm SIMD with threads (simd-threads, ${THREADS} threads), heap tensors` },
  { id: 'simd-base', baseline: true, label: 'gridsample wasm SIMD, heap tensors, baseline settings', vs: 'simd' },
  { id: 'simd-copy', short: 'ours SIMD copying', label: 'gridsample wasm SIMD, copying API', vs: 'simd' },
  { id: 'scalar', label: 'gridsample wasm scalar, heap tensors', vs: 'simd' },
  { id: 'ort-web', peer: 'onnxruntime-web', label: 'onnxruntime-web (wasm SIMD, 1 thread)', vs: 'simd-copy' },
  // In a child process (numThreads is per process), sampled in this workload's rounds.
  { id: 'ort-web-t2', peer: `onnxruntime-web, ${THREADS} threads`, label: `onnxruntime-web (wasm SIMD, numThreads ${THREADS}, child process)`, vs: 'simd-t2' },
  // OpenCV.js 5 and 4 both: 5 is faster at float remap, 4 at the RGBA warpAffine (measured).
  { id: 'cv5', peer: 'OpenCV.js', label: 'OpenCV.js 5, channels-last (remap / warpAffine)', vs: 'simd' },
  { id: 'cv5-planar', peer: 'OpenCV.js', label: 'OpenCV.js 5, one NCHW plane at a time (convertMaps + remap)', vs: 'simd' },
  { id: 'cv4', peer: 'OpenCV.js', label: 'OpenCV.js 4, channels-last (remap / warpAffine)', vs: 'simd' },
  { id: 'cv4-planar', peer: 'OpenCV.js', label: 'OpenCV.js 4, one NCHW plane at a time (convertMaps + remap)', vs: 'simd' },
  { id: 'plain-js', short: 'plain JS', peer: 'plain JS loop', label: 'plain JS loop', vs: 'simd' },
  { id: 'floor-wasm', floor: true, label: 'copy floor: wasm memory.copy', vs: 'simd' },
  { id: 'floor-js', floor: true, label: 'copy floor: TypedArray.set', vs: 'simd' },
  { id: 'native', short: 'ours native', label: 'gridsample native, public API' },
  { id: 'native-base', baseline: true, label: 'gridsample native, public API, baseline settings', vs: 'native' },
  { id: 'native-ref', label: 'gridsample native, scalar reference', vs: 'native' },
  { id: 'ort-node', peer: 'onnxruntime-node', label: 'onnxruntime-node (CPU, 1 thread)', vs: 'native' },
  { id: 'native-t2', short: 'ours native, 2 threads', label: `gridsample native, public API, ${THREADS} threads (its pool)` },
  { id: 'ort-node-t2', peer: `onnxruntime-node, ${THREADS} threads`, label: `onnxruntime-node (CPU, intraOpNumThreads ${THREADS})`, vs: 'native-t2' },
  { id: 'floor-native', floor: true, label: 'copy floor: memcpy', vs: 'native' },
];
export const IMPL = Object.fromEntries(IMPLS.map((impl) => [impl.id, impl]));

/** Whether row `id`'s output is compared with the reference (not a floor's nor a baseline's). */
export const checked = (id) => !IMPL[id].floor && !IMPL[id].baseline;

// Largest accepted |difference| for peers that round on purpose (per mode); else w.tol.
// OpenCV quantises sampling positions to 1/32 pixel (INTER_BITS = 5): a position error of up
// to 1/64 px per axis on data in [0, 1) moves a linear result by at most 2 * (1/64) * 1, a
// Keys cubic one by at most 2 * (1/64) * (max sum |w'| / 2 = 1.5) * (max sum |w| = 1.375).
export const OPENCV_TOL = { nearest: 1e-6, linear: 2 / 64, cubic: (2 / 64) * 1.5 * 1.375 };

/** A number, or a function of the element index, bounding |ours - theirs|. */
export function tolerance(id, w, ref) {
  if (!id.startsWith('cv')) return w.tol;
  if (w.op === 'GridSample') return OPENCV_TOL[w.mode] * 1.01;
  if (w.op === 'WarpAffineRGBA8') return contrastTolerance(ref, w.image.width, w.image.height);
  return w.tol;
}

/**
 * Per-element tolerance for OpenCV's 8-bit warp: 1 level of rounding plus the same 1/64 px
 * per axis position error, which moves a result by at most 2/64 of the value range over one
 * pixel around it (taken from the reference output's 3x3 neighbourhood, per channel). Smooth
 * areas must agree within a level; the image's edge, where alpha drops from 255 to 0 within
 * a pixel, gets up to 9.
 */
function contrastTolerance(ref, width, height) {
  const tol = new Float32Array(ref.length);
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      for (let c = 0; c < 4; ++c) {
        let lo = 255;
        let hi = 0;
        for (let dy = -1; dy <= 1; ++dy) {
          const yy = Math.min(height - 1, Math.max(0, y + dy));
          for (let dx = -1; dx <= 1; ++dx) {
            const xx = Math.min(width - 1, Math.max(0, x + dx));
            const v = ref[4 * (yy * width + xx) + c];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
          }
        }
        tol[4 * (y * width + x) + c] = 1 + (2 / 64) * (hi - lo);
      }
    }
  }
  return tol;
}

export function compare(ref, out, tol) {
  if (!out || out.length !== ref.length) {
    return { maxDiff: Infinity, bad: ref.length, ok: false, note: `output has ${out ? out.length : 0} elements, expected ${ref.length}` };
  }
  const at = typeof tol === 'number' ? () => tol : (i) => tol[i];
  let maxDiff = 0;
  let bad = 0;
  for (let i = 0; i < ref.length; ++i) {
    const d = Math.abs(ref[i] - out[i]);
    if (!(d <= at(i))) ++bad; // NaN counts as a mismatch
    if (!(d <= maxDiff)) maxDiff = Number.isNaN(d) ? Infinity : d;
  }
  return { maxDiff, bad, ok: bad === 0, tol: typeof tol === 'number' ? tol : 'local contrast' };
}
