// The standard benchmark workloads of DESIGN.md section 7: deterministic inputs, options and peer applicability.
//
// Inputs are made here in plain JavaScript (a seeded PRNG and affine / flow grids computed in
// double, stored as float32) so that no implementation under test produces another's input.
// The same bytes go to every implementation, including the native binary (through files).

/** Seeded PRNG (mulberry32): the same inputs in every run, on every machine. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    // 24 random bits: exactly representable in float32, uniform in [0, 1).
    return ((t ^ (t >>> 14)) >>> 8) / 16777216;
  };
}

function randomTensor(shape, seed) {
  const size = shape.reduce((a, b) => a * b, 1);
  const next = prng(seed);
  const data = new Float32Array(size);
  for (let i = 0; i < size; ++i) data[i] = next();
  return { data, shape };
}

const prod = (shape) => shape.reduce((a, b) => a * b, 1);

// PyTorch/ONNX base coordinate of pixel i on an axis of size S (align_corners = 0).
const base = (i, S) => (S === 1 ? 0 : (2 * i + 1) / S - 1);

/** 2x3 theta: rotation by `angle` radians and scaling by `scale`, plus a translation. */
function theta2d(angle, scale, tx = 0, ty = 0) {
  const c = Math.cos(angle) * scale;
  const s = Math.sin(angle) * scale;
  return [c, -s, tx, s, c, ty];
}

/** (N, H, W, 2) grid of one theta (align_corners = 0), the same for every batch item. */
function affineGrid2d(theta, N, H, W) {
  const data = new Float32Array(N * H * W * 2);
  let o = 0;
  for (let n = 0; n < N; ++n) {
    for (let h = 0; h < H; ++h) {
      const y = base(h, H);
      for (let w = 0; w < W; ++w) {
        const x = base(w, W);
        data[o++] = theta[0] * x + theta[1] * y + theta[2];
        data[o++] = theta[3] * x + theta[4] * y + theta[5];
      }
    }
  }
  return { data, shape: [N, H, W, 2] };
}

/** (N, D, H, W, 3) grid of a 3x4 theta (align_corners = 0). */
function affineGrid3d(theta, N, D, H, W) {
  const data = new Float32Array(N * D * H * W * 3);
  let o = 0;
  for (let n = 0; n < N; ++n) {
    for (let d = 0; d < D; ++d) {
      const z = base(d, D);
      for (let h = 0; h < H; ++h) {
        const y = base(h, H);
        for (let w = 0; w < W; ++w) {
          const x = base(w, W);
          for (let k = 0; k < 3; ++k) {
            data[o++] = theta[4 * k] * x + theta[4 * k + 1] * y + theta[4 * k + 2] * z + theta[4 * k + 3];
          }
        }
      }
    }
  }
  return { data, shape: [N, D, H, W, 3] };
}

/** X (N, C, H, W) channels-last: (N, H, W, C), the same values. */
function toChannelsLast({ data, shape: [N, C, H, W] }) {
  const out = new Float32Array(data.length);
  for (let n = 0; n < N; ++n) {
    for (let c = 0; c < C; ++c) {
      for (let i = 0; i < H * W; ++i) out[(n * H * W + i) * C + c] = data[(n * C + c) * H * W + i];
    }
  }
  return { data: out, shape: [N, H, W, C] };
}

/** (N, Ho, Wo, 2) grid of scattered points in [-1.05, 1.05]: deformable attention's sampling locations. */
function scatteredGrid(N, Ho, Wo, seed) {
  const next = prng(seed);
  const data = new Float32Array(N * Ho * Wo * 2);
  for (let i = 0; i < data.length; ++i) data[i] = 2.1 * next() - 1.05;
  return { data, shape: [N, Ho, Wo, 2] };
}

/**
 * (N, H, W, 2) identity grid plus a smooth flow of up to `amp` (normalised units), with a
 * different phase per batch item: the optical-flow / deformable-feature case.
 */
function flowGrid2d(N, H, W, amp) {
  const data = new Float32Array(N * H * W * 2);
  let o = 0;
  for (let n = 0; n < N; ++n) {
    for (let h = 0; h < H; ++h) {
      const y = base(h, H);
      for (let w = 0; w < W; ++w) {
        const x = base(w, W);
        data[o++] = x + amp * Math.sin(Math.PI * (1.5 * y + 0.7 * x + 0.25 * n));
        data[o++] = y + amp * Math.cos(Math.PI * (1.2 * x - 0.4 * y + 0.5 * n));
      }
    }
  }
  return { data, shape: [N, H, W, 2] };
}

/**
 * Pixel-space 2x3 matrix M (destination pixel -> source pixel, OpenCV's WARP_INVERSE_MAP
 * convention) equivalent to a normalised theta with align_corners = 0, for images of
 * (srcW, srcH) and (dstW, dstH): M = P_src * theta * N_dst, where N_dst maps a pixel index to
 * its base coordinate (2i + 1) / S - 1 and P_src maps g back to ((g + 1) * S - 1) / 2.
 */
export function pixelMatrix(theta, srcW, srcH, dstW, dstH) {
  const n = [2 / dstW, 0, 1 / dstW - 1, 0, 2 / dstH, 1 / dstH - 1]; // N_dst
  const p = [srcW / 2, 0, (srcW - 1) / 2, 0, srcH / 2, (srcH - 1) / 2]; // P_src
  const mul = (a, b) => [
    a[0] * b[0] + a[1] * b[3], a[0] * b[1] + a[1] * b[4], a[0] * b[2] + a[1] * b[5] + a[2],
    a[3] * b[0] + a[4] * b[3], a[3] * b[1] + a[4] * b[4], a[3] * b[2] + a[4] * b[5] + a[5],
  ];
  return mul(p, mul(theta, n));
}

/** A smooth RGBA test picture (gradients and waves, opaque): what a canvas warp sees. */
/** The rgba8 workload's picture: RGBA uint8, every channel varying, opaque. */
export function rgbaImage(width, height) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const i = 4 * (y * width + x);
      data[i] = (255 * x) / (width - 1);
      data[i + 1] = (255 * y) / (height - 1);
      data[i + 2] = 127.5 + 127.5 * Math.sin(x / 23) * Math.cos(y / 31);
      data[i + 3] = 255;
    }
  }
  return { data, width, height };
}

// Mostly inside the image (corners reach slightly out): the headline image warp.
const IMG_THETA = theta2d(0.3, 0.9, 0.02, -0.03);
// Reaches well outside the image (about 40% of outputs), so that padding matters: the grid
// of zeros2d, border2d and reflect2d.
const WIDE_THETA = theta2d(0.5, 1.3, 0.05, 0.0);
// Rotation in the x-y plane, scale, and a tilt of z: a LivePortrait-style volume warp.
const VOL_THETA = [
  0.9 * Math.cos(0.25), -0.9 * Math.sin(0.25), 0.05, 0.03,
  0.9 * Math.sin(0.25), 0.9 * Math.cos(0.25), 0.0, -0.04,
  0.1, 0.0, 0.95, 0.0,
];

// How a baseline's settings are named in the report.
const SETTING_NAMES = { mode: 'mode', paddingMode: 'padding', layout: 'layout' };

/**
 * The same-round baseline of `w`: its own inputs with the settings of the workload
 * `w.baseline.name` (the other fields of `w.baseline`), or null when it has none. Its
 * implementation rows are timed in the same rounds as `w`'s, so targets comparing the two
 * settings do not compare two time windows of a drifting machine.
 */
export function baselineWorkload(w) {
  if (!w.baseline) return null;
  const { name, ...settings } = w.baseline;
  return { ...w, ...settings };
}

/** What `w`'s baseline changes, e.g. "img2d's mode linear". */
export function baselineText(w) {
  const { name, ...settings } = w.baseline;
  const named = Object.entries(settings).filter(([k]) => SETTING_NAMES[k]); // not the inputs a layout brings
  return `${name}'s ${named.map(([k, v]) => `${SETTING_NAMES[k]} ${v}`).join(', ')}`;
}

function gridSampleWorkload(name, summary, x, grid, mode, paddingMode, extra = {}) {
  const yShape = [x.shape[0], x.shape[1], ...grid.shape.slice(1, -1)];
  return {
    name, summary, op: 'GridSample', x, grid, yShape, mode, paddingMode, alignCorners: false,
    outElems: prod(yShape),
    inBytes: 4 * (x.data.length + grid.data.length),
    outBytes: 4 * prod(yShape),
    // Largest |difference| between two correct float32 implementations (different but exact
    // summation orders); anything beyond means different work.
    tol: mode === 'nearest' ? 1e-6 : mode === 'cubic' ? 1e-4 : 1e-5,
    ...extra,
  };
}

/**
 * GridSampleChannelsLast (`layout: 'nhwc'`) on X (N, C, H, W) made channels-last, bilinear/zeros;
 * its baseline is GridSample on X itself (layout nchw: the same values, timed in the same
 * rounds), so that the two layouts compare on one machine state.
 */
function channelsLastWorkload(name, summary, x, grid) {
  const nchw = gridSampleWorkload(name, summary, x, grid, 'linear', 'zeros');
  const [N, C] = x.shape;
  return {
    ...nchw,
    layout: 'nhwc',
    x: toChannelsLast(x),
    yShape: [N, ...grid.shape.slice(1, -1), C],
    baseline: { name, layout: 'nchw', x, yShape: nchw.yShape },
  };
}

function affineGridWorkload(name, summary, theta, size) {
  const r = size.length - 2;
  const gridShape = [size[0], ...size.slice(2), r];
  return {
    name, summary, op: 'AffineGrid', theta, size, gridShape, alignCorners: false,
    outElems: prod(gridShape),
    inBytes: 4 * theta.data.length,
    outBytes: 4 * prod(gridShape),
    tol: 1e-5,
  };
}

/** rgba8's theta: rotation 0.3 rad, scale 0.9, a small shift. */
export const RGBA_THETA = theta2d(0.3, 0.9, 0.02, -0.03);

/**
 * Builds every workload (about 60 MB of inputs).
 * @returns {object[]} in report order
 */
export function makeWorkloads() {
  const img = randomTensor([1, 3, 512, 512], 1);
  const imgGrid = affineGrid2d(IMG_THETA, 1, 512, 512);
  const wideGrid = affineGrid2d(WIDE_THETA, 1, 512, 512);
  const feat = randomTensor([4, 32, 64, 64], 2);
  const flow = flowGrid2d(4, 64, 64, 0.08);
  const vol = randomTensor([1, 32, 16, 64, 64], 3);
  const volGrid = affineGrid3d(VOL_THETA, 1, 16, 64, 64);
  const image = rgbaImage(1024, 1024);
  // Issue #44: channels-last at 1 to 5, 32 and 256 channels, points x 4 (and x 1) as deformable
  // attention samples them.
  const feat4 = randomTensor([8, 4, 80, 80], 6);
  const featSmall = [1, 2, 3, 4, 5].map((c) => (c === 4 ? feat4 : randomTensor([8, c, 80, 80], 10 + c)));
  const feat32 = randomTensor([8, 32, 80, 80], 7);
  const feat256 = randomTensor([1, 256, 64, 64], 8);
  const points = scatteredGrid(8, 300, 4, 9);

  return [
    gridSampleWorkload('img2d', '1x3x512x512 -> 512x512, rotation 0.3 rad + scale 0.9, linear/zeros', img, imgGrid, 'linear', 'zeros'),
    gridSampleWorkload('feat2d', '4x32x64x64, identity + smooth flow (<= 0.08), linear/zeros', feat, flow, 'linear', 'zeros'),
    gridSampleWorkload('nearest2d', 'img2d with mode nearest', img, imgGrid, 'nearest', 'zeros', { baseline: { name: 'img2d', mode: 'linear' } }),
    gridSampleWorkload('cubic2d', 'img2d with mode cubic', img, imgGrid, 'cubic', 'zeros'),
    gridSampleWorkload('zeros2d', 'img2d shape, wide grid (rotation 0.5 rad + scale 1.3, ~40% outside), linear/zeros: the settings border2d and reflect2d are compared with', img, wideGrid, 'linear', 'zeros'),
    gridSampleWorkload('border2d', 'zeros2d with padding border', img, wideGrid, 'linear', 'border', { baseline: { name: 'zeros2d', paddingMode: 'zeros' } }),
    gridSampleWorkload('reflect2d', 'zeros2d with padding reflection', img, wideGrid, 'linear', 'reflection', { baseline: { name: 'zeros2d', paddingMode: 'zeros' } }),
    gridSampleWorkload('vol3d', '1x32x16x64x64, 3-D affine grid 1x16x64x64x3, trilinear/zeros', vol, volGrid, 'linear', 'zeros'),
    gridSampleWorkload('cubic3d', 'vol3d with mode cubic (tricubic, 64 taps): no issue target, the 5-D cubic case onnxruntime lacks', vol, volGrid, 'cubic', 'zeros'),
    ...featSmall.map((feat, i) => channelsLastWorkload(`cl${i + 1}`, `GridSampleChannelsLast 8x80x80x${i + 1}, 300x4 scattered points, linear/zeros (baseline: GridSample on the NCHW copy)`, feat, points)),
    channelsLastWorkload('cl32', 'GridSampleChannelsLast 8x80x80x32, 300x4 scattered points, linear/zeros (baseline: GridSample on the NCHW copy)', feat32, points),
    channelsLastWorkload('cl256', 'GridSampleChannelsLast 1x64x64x256, 4096x1 scattered points, linear/zeros (baseline: GridSample on the NCHW copy)', feat256, scatteredGrid(1, 4096, 1, 10)),
    affineGridWorkload('affinegrid2d', 'theta 1x2x3 -> grid 1x512x512x2 (size 1x3x512x512)', { data: Float32Array.from(IMG_THETA), shape: [1, 2, 3] }, [1, 3, 512, 512]),
    affineGridWorkload('affinegrid3d', 'theta 1x3x4 -> grid 1x16x64x64x3 (size 1x32x16x64x64)', { data: Float32Array.from(VOL_THETA), shape: [1, 3, 4] }, [1, 32, 16, 64, 64]),
    {
      name: 'rgba8',
      summary: '1024x1024 RGBA uint8 image, affine warp (rotation 0.3 rad + scale 0.9), bilinear, transparent-black outside',
      op: 'WarpAffineRGBA8',
      image,
      theta: Float32Array.from(RGBA_THETA),
      matrix: pixelMatrix(RGBA_THETA, 1024, 1024, 1024, 1024),
      outElems: 1024 * 1024 * 4,
      inBytes: 1024 * 1024 * 4,
      outBytes: 1024 * 1024 * 4,
      // Exact implementations differ by rounding only; OpenCV's fixed-point positions get a
      // tolerance that grows with the local contrast (impls.mjs, tolerance()).
      tol: 1,
    },
  ];
}

/**
 * Two calls that measure the scaling model's per-call costs (report_scaling.mjs, scalingModel),
 * timed by the native binary only, on 1 and 2 threads. `probe` names the role:
 * - tiny: 1x1x8x8 -> 8x8, linear/zeros: never split (64 pixels); its time is the fixed cost of
 *   a call (checks, dispatch, setup), the model's serial part;
 * - split: 1x12x128x256 -> 128x256, linear/zeros: 32,768 pixels of 12 x 4 taps + 16 = 64 cost
 *   units (src/kernels/threads/parallel.h, PixelCost) = 2^21 = 32 x kMinPieceCost, so on 2 threads it
 *   is cut into 32 equal pieces, 16 per thread (kPiecesPerThread); its 2-thread time beyond
 *   half its 1-thread time is what splitting a call costs (waking and joining the workers).
 */
export function modelProbes() {
  const tiny = randomTensor([1, 1, 8, 8], 4);
  const split = randomTensor([1, 12, 128, 256], 5);
  return [
    { ...gridSampleWorkload('probe_tiny', '1x1x8x8 -> 8x8, linear/zeros', tiny, affineGrid2d(IMG_THETA, 1, 8, 8), 'linear', 'zeros'), probe: 'tiny' },
    { ...gridSampleWorkload('probe_split', '1x12x128x256 -> 128x256, linear/zeros', split, affineGrid2d(IMG_THETA, 1, 128, 256), 'linear', 'zeros'), probe: 'split' },
  ];
}
