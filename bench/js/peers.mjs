// Adapters that run one workload through each implementation: ours (wasm), onnxruntime-web/-node, OpenCV.js, plain JS, copy floors.
//
// Every adapter returns either `{ unavailable: reason }` or `{ run, output, dispose }`:
// `run()` (sync or async) does the timed work, `output()` gives the result of the last run as
// a typed array in the workload's output layout, `dispose()` frees what setup made. Inputs are
// prepared once outside `run`, so that each implementation is timed on its own API's work.

import { encodeModel } from '../../tests/js/lib/onnx_model.mjs';
import { affineGrid2d, affineGrid3d, gridSample2d, gridSample3d, warpAffineRgba } from '../../web/demo/plain_gridsample.mjs';

// --- ours: the gridsample npm package ------------------------------------------------------

/** Whether `w` samples a channels-last X (GridSampleChannelsLast; workloads.mjs, layout). */
const channelsLast = (w) => w.layout === 'nhwc';
/** Why the peers (all NCHW, or 1 to 4 channels) do not run a channels-last workload. */
const CHANNELS_LAST = { unavailable: 'channels-last X: ours only (its baseline row is our NCHW call)' };

/**
 * Zero-copy tier: inputs and output are heap tensors, so a call is the kernel plus the
 * binding's argument checks (what a hot loop such as the demo pays).
 */
export function oursHeap(gs, w) {
  if (w.op === 'WarpAffineRGBA8') return oursWarpAffine(gs, w, true);
  let inputs;
  let out;
  let call;
  if (w.op === 'GridSample') {
    inputs = [gs.tensorFrom(w.x), gs.tensorFrom(w.grid)];
    out = gs.tensor('float32', w.yShape);
    const opts = { mode: w.mode, paddingMode: w.paddingMode, alignCorners: w.alignCorners, out };
    const sample = channelsLast(w) ? gs.gridSampleChannelsLast : gs.gridSample;
    call = () => sample(inputs[0], inputs[1], opts);
  } else {
    inputs = [gs.tensorFrom(w.theta)];
    out = gs.tensor('float32', w.gridShape);
    const opts = { alignCorners: w.alignCorners, out };
    call = () => gs.affineGrid(inputs[0], w.size, opts);
  }
  return {
    run: call,
    output: () => out.data.slice(),
    dispose: () => [...inputs, out].forEach((t) => t.dispose()),
  };
}

/**
 * Copying API: plain typed arrays in, a new typed array out, as a caller holding
 * onnxruntime-web CPU tensors does. It moves the same bytes as onnxruntime-web's run().
 */
export function oursCopy(gs, w) {
  if (w.op === 'WarpAffineRGBA8') return oursWarpAffine(gs, w, false);
  let last;
  const sample = channelsLast(w) ? gs.gridSampleChannelsLast : gs.gridSample;
  const run = w.op === 'GridSample'
    ? () => { last = sample(w.x, w.grid, { mode: w.mode, paddingMode: w.paddingMode, alignCorners: w.alignCorners }); }
    : () => { last = gs.affineGrid(w.theta, w.size, { alignCorners: w.alignCorners }); };
  return { run, output: () => last.data, dispose() {} };
}

/**
 * The RGBA image warp, `warpAffine(image, theta, options)` (theta: AffineGrid's normalised
 * 2x3 matrix, align_corners 0). `heap`: the image and the result are [H, W, 4] uint8 heap
 * tensors; else an ImageData-like object in and a new one out. Reported as not available on
 * a build of the package without it.
 */
function oursWarpAffine(gs, w, heap) {
  if (typeof gs.warpAffine !== 'function') {
    return { unavailable: 'not available yet (the package has no warpAffine)' };
  }
  const { data, width, height } = w.image;
  if (!heap) {
    const image = { data, width, height };
    let last;
    return {
      run: () => { last = gs.warpAffine(image, w.theta); },
      output: () => last.data,
      dispose() {},
    };
  }
  const image = gs.tensorFrom({ data, shape: [height, width, 4], dtype: 'uint8' });
  const out = gs.tensor('uint8', [height, width, 4]);
  return {
    run: () => gs.warpAffine(image, w.theta, { out }),
    output: () => out.data.slice(),
    dispose: () => [image, out].forEach((t) => t.dispose()),
  };
}

// --- ONNX Runtime (web and node share this; only options differ) --------------------------

/**
 * The one-node model of a workload, opset 20 (mode names 'linear' | 'nearest' | 'cubic'), IR 9.
 * AffineGrid's `size` is a constant initializer, as in real models where it comes from the
 * graph; theta stays an input, so nothing can be constant-folded.
 */
function ortModel(w) {
  const common = { opset: 20, irVersion: 9, producer: 'gridsample-bench', name: `bench_${w.op}` };
  if (w.op === 'GridSample') {
    return encodeModel({
      ...common,
      nodes: [{
        op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Y'],
        attrs: { align_corners: w.alignCorners ? 1 : 0, mode: w.mode, padding_mode: w.paddingMode },
      }],
      inputs: [{ name: 'X', dtype: 'float32', dims: w.x.shape }, { name: 'grid', dtype: 'float32', dims: w.grid.shape }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: w.yShape }],
    });
  }
  return encodeModel({
    ...common,
    nodes: [{ op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['grid'], attrs: { align_corners: w.alignCorners ? 1 : 0 } }],
    initializers: [{ name: 'size', dtype: 'int64', dims: [w.size.length], data: BigInt64Array.from(w.size, BigInt) }],
    inputs: [{ name: 'theta', dtype: 'float32', dims: w.theta.shape }],
    outputs: [{ name: 'grid', dtype: 'float32', dims: w.gridShape }],
  });
}

async function ortSession(ort, w, sessionOptions) {
  const model = ortModel(w);
  const session = await ort.InferenceSession.create(model, sessionOptions);
  const feeds = w.op === 'GridSample'
    ? { X: new ort.Tensor('float32', w.x.data, w.x.shape), grid: new ort.Tensor('float32', w.grid.data, w.grid.shape) }
    : { theta: new ort.Tensor('float32', w.theta.data, w.theta.shape) };
  const outName = w.op === 'GridSample' ? 'Y' : 'grid';
  let last;
  return {
    run: async () => { last = (await session.run(feeds))[outName]; },
    output: () => last.data,
    dispose: () => session.release(),
  };
}

/** onnxruntime-web, wasm backend, one thread (ort.env.wasm.numThreads = 1 set by the caller). */
export async function onnxruntimeWeb(ort, w) {
  if (w.op === 'WarpAffineRGBA8') return { unavailable: 'no RGBA uint8 image warp in ONNX' };
  if (channelsLast(w)) return CHANNELS_LAST;
  return ortSession(ort, w, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

/** onnxruntime-node, CPU provider, `threads` intra-op threads and one inter-op thread. */
export async function onnxruntimeNode(ort, w, threads = 1) {
  if (w.op === 'WarpAffineRGBA8') return { unavailable: 'no RGBA uint8 image warp in ONNX' };
  if (channelsLast(w)) return CHANNELS_LAST;
  return ortSession(ort, w, {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
}

// --- OpenCV.js -------------------------------------------------------------------------------

const CV_PADDING = { zeros: 'BORDER_CONSTANT', border: 'BORDER_REPLICATE', reflection: 'BORDER_REFLECT' };
const CV_INTERP = { linear: 'INTER_LINEAR', nearest: 'INTER_NEAREST', cubic: 'INTER_CUBIC' };

// Pixel-space map (CV_32FC2) of batch item n of a normalised grid, align_corners 0, in float32
// steps as the kernels do; made before timing, as an OpenCV user holds pixel maps already.
function pixelMap(cv, w, n) {
  const [, , H, W] = w.x.shape;
  const [, Ho, Wo] = w.grid.shape;
  const f = Math.fround;
  const map = new cv.Mat(Ho, Wo, cv.CV_32FC2);
  const g = w.grid.data.subarray(n * Ho * Wo * 2, (n + 1) * Ho * Wo * 2);
  const m = map.data32F;
  for (let i = 0; i < g.length; i += 2) {
    m[i] = f(f(f(f(g[i] + 1) * W) - 1) / 2);
    m[i + 1] = f(f(f(f(g[i + 1] + 1) * H) - 1) / 2);
  }
  return map;
}

function openCvApplicable(w) {
  if (w.op === 'AffineGrid') return 'no AffineGrid in OpenCV';
  if (channelsLast(w)) return CHANNELS_LAST.unavailable;
  if (w.x.shape.length !== 4) return 'remap is 2-D only';
  if (w.alignCorners) return 'align_corners 1 is not mapped';
  return null;
}

/**
 * OpenCV.js in its strongest form: `remap` on a channels-last (interleaved) Mat, one call per
 * batch item with the float pixel map; the RGBA warp is `warpAffine`. The NCHW input is
 * transposed to channels-last before timing (and the output back after), so this row does
 * not pay for a layout OpenCV does not use. BORDER_REPLICATE and BORDER_REFLECT
 * ("fedcba|abcdef") are border and align-0 reflection padding of integer taps.
 */
export function openCv(cv, w) {
  if (w.op === 'WarpAffineRGBA8') return openCvWarpAffine(cv, w);
  const skip = openCvApplicable(w);
  if (skip) return { unavailable: skip };
  const [N, C, H, W] = w.x.shape;
  const [, Ho, Wo] = w.grid.shape;
  // OpenCV 5 widened the depth field of a type, so build CV_32FC(C) from the constants.
  const type = cv.CV_32FC1 + (C - 1) * (cv.CV_32FC2 - cv.CV_32FC1);
  const mats = [];
  const keep = (m) => { mats.push(m); return m; };
  const srcs = [];
  const dsts = [];
  const maps = [];
  for (let n = 0; n < N; ++n) {
    const src = keep(new cv.Mat(H, W, type));
    const d = src.data32F;
    for (let c = 0; c < C; ++c) {
      const plane = w.x.data.subarray((n * C + c) * H * W, (n * C + c + 1) * H * W);
      for (let i = 0; i < plane.length; ++i) d[i * C + c] = plane[i];
    }
    srcs.push(src);
    dsts.push(keep(new cv.Mat(Ho, Wo, type)));
    maps.push(keep(pixelMap(cv, w, n)));
  }
  const none = keep(new cv.Mat());
  const zero = new cv.Scalar(0, 0, 0, 0);
  const interp = cv[CV_INTERP[w.mode]];
  const border = cv[CV_PADDING[w.paddingMode]];
  return {
    run() {
      for (let n = 0; n < N; ++n) cv.remap(srcs[n], dsts[n], maps[n], none, interp, border, zero);
    },
    output() {
      const y = new Float32Array(N * C * Ho * Wo);
      dsts.forEach((dst, n) => {
        const d = dst.data32F;
        for (let c = 0; c < C; ++c) {
          const o = (n * C + c) * Ho * Wo;
          for (let i = 0; i < Ho * Wo; ++i) y[o + i] = d[i * C + c];
        }
      });
      return y;
    },
    dispose: () => mats.forEach((m) => m.delete()),
  };
}

/**
 * OpenCV.js on the NCHW planes as they are: convertMaps once per batch item (OpenCV's way to
 * reuse a map across planes; timed, as the grid is an input), then one remap per plane.
 */
export function openCvPlanar(cv, w) {
  if (w.op === 'WarpAffineRGBA8') return { unavailable: 'the image is channels-last: see the row above' };
  const skip = openCvApplicable(w);
  if (skip) return { unavailable: skip };
  const [N, C, H, W] = w.x.shape;
  const [, Ho, Wo] = w.grid.shape;
  const mats = [];
  const keep = (m) => { mats.push(m); return m; };
  const planes = [];
  const dsts = [];
  const maps = [];
  for (let n = 0; n < N; ++n) {
    for (let c = 0; c < C; ++c) {
      const plane = keep(new cv.Mat(H, W, cv.CV_32FC1));
      plane.data32F.set(w.x.data.subarray((n * C + c) * H * W, (n * C + c + 1) * H * W));
      planes.push(plane);
      dsts.push(keep(new cv.Mat(Ho, Wo, cv.CV_32FC1)));
    }
    maps.push(keep(pixelMap(cv, w, n)));
  }
  const fixed1 = keep(new cv.Mat());
  const fixed2 = keep(new cv.Mat());
  const none = keep(new cv.Mat());
  const zero = new cv.Scalar(0, 0, 0, 0);
  const interp = cv[CV_INTERP[w.mode]];
  const border = cv[CV_PADDING[w.paddingMode]];
  const nearest = w.mode === 'nearest';
  return {
    run() {
      for (let n = 0; n < N; ++n) {
        cv.convertMaps(maps[n], none, fixed1, fixed2, cv.CV_16SC2, nearest);
        for (let c = 0; c < C; ++c) {
          cv.remap(planes[n * C + c], dsts[n * C + c], fixed1, nearest ? none : fixed2, interp, border, zero);
        }
      }
    },
    output() {
      const y = new Float32Array(N * C * Ho * Wo);
      dsts.forEach((d, i) => y.set(d.data32F, i * Ho * Wo));
      return y;
    },
    dispose: () => mats.forEach((m) => m.delete()),
  };
}

function openCvWarpAffine(cv, w) {
  const { data, width, height } = w.image;
  const src = new cv.Mat(height, width, cv.CV_8UC4);
  src.data.set(data);
  const dst = new cv.Mat(height, width, cv.CV_8UC4);
  const m = cv.matFromArray(2, 3, cv.CV_64FC1, w.matrix);
  const size = new cv.Size(width, height);
  const zero = new cv.Scalar(0, 0, 0, 0);
  // WARP_INVERSE_MAP: the matrix maps destination pixels to source pixels, like the grid.
  const flags = cv.INTER_LINEAR | cv.WARP_INVERSE_MAP;
  return {
    run: () => cv.warpAffine(src, dst, m, size, flags, cv.BORDER_CONSTANT, zero),
    output: () => dst.data.slice(),
    dispose: () => [src, dst, m].forEach((x) => x.delete()),
  };
}

// --- plain JavaScript: the demo's baseline (web/demo/plain_gridsample.mjs) -----------------

export function plainJs(w) {
  if (channelsLast(w)) return CHANNELS_LAST;
  let last;
  let run;
  if (w.op === 'GridSample') {
    const opts = { mode: w.mode, paddingMode: w.paddingMode, alignCorners: w.alignCorners };
    if (w.x.shape.length === 4) {
      run = () => { last = gridSample2d(w.x.data, w.x.shape, w.grid.data, w.grid.shape, opts); };
    } else if (w.x.shape.length === 5 && w.mode !== 'cubic') {
      run = () => { last = gridSample3d(w.x.data, w.x.shape, w.grid.data, w.grid.shape, opts); };
    } else {
      return { unavailable: `no plain JS loop for rank ${w.x.shape.length} ${w.mode}` };
    }
  } else if (w.op === 'AffineGrid') {
    const affineGrid = w.size.length === 4 ? affineGrid2d : affineGrid3d;
    run = () => { last = affineGrid(w.theta.data, w.size, w.alignCorners); };
  } else {
    const { data, width, height } = w.image;
    run = () => { last = warpAffineRgba(data, width, height, w.theta, width, height); };
  }
  return { run, output: () => last, dispose() {} };
}
