// An independent oracle for the ONNX runner's tests: GridSample of any rank and AffineGrid in plain JavaScript (float64), written from DESIGN.md section 2, not from our kernels.
//
// One output element at a time, every tap visited: slow and obvious. Coordinates are
// denormalised in float32, weights and sums are float64. Padding is applied to each integer
// tap index (zeros, border clamp, reflection about [-0.5, S-0.5] or [0, S-1]).

const A = -0.75; // Keys cubic kernel

// In float32 steps, as float32 implementations (onnxruntime, PyTorch) compute it: on an axis of
// 4096 pixels one float32 unit of the coordinate is 5e-4 of a pixel, far above the tolerance.
function denormalise(g, size, align) {
  const f = Math.fround;
  const gf = f(g);
  return align ? f(f(f(gf + 1) / 2) * (size - 1)) : f(f(f(f(gf + 1) * size) - 1) / 2);
}

// Reflects index i about [lo, hi] until inside, then clamps to [0, size - 1].
function reflect(i, size, align) {
  if (size === 1) return 0;
  const [lo, hi] = align ? [0, size - 1] : [-0.5, size - 0.5];
  let v = i;
  while (v < lo || v > hi) v = v < lo ? 2 * lo - v : 2 * hi - v;
  return Math.min(size - 1, Math.max(0, Math.round(v)));
}

// The tap index after padding, or -1 for a zeros-padded tap outside.
function padded(i, size, padding, align) {
  if (i >= 0 && i < size) return i;
  if (padding === 'zeros') return -1;
  if (padding === 'border') return Math.min(size - 1, Math.max(0, i));
  return reflect(i, size, align);
}

function cubicWeights(t) {
  const near = (x) => ((A + 2) * x - (A + 3)) * x * x + 1;
  const far = (x) => ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return [far(t + 1), near(t), near(1 - t), far(2 - t)];
}

// Round half to even.
function rint(x) {
  const r = Math.round(x);
  return Math.abs(x - Math.trunc(x)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

// Per axis: [[index, weight], ...] of the taps for coordinate x on an axis of `size`.
function axisTaps(x, size, mode, padding, align) {
  let taps;
  if (mode === 'nearest') taps = [[rint(x), 1]];
  else if (mode === 'linear') {
    const f = Math.floor(x);
    taps = [[f, 1 - (x - f)], [f + 1, x - f]];
  } else {
    const f = Math.floor(x);
    const w = cubicWeights(x - f);
    taps = [-1, 0, 1, 2].map((k, j) => [f + k, w[j]]);
  }
  return taps.map(([i, w]) => [padded(i, size, padding, align), w]);
}

const MODES = { linear: 'linear', bilinear: 'linear', nearest: 'nearest', cubic: 'cubic', bicubic: 'cubic' };

/**
 * GridSample of X (N, C, D1..Dr) with grid (N, O1..Or, r), both {data, dims}; returns
 * {data: Float64Array, dims}. attrs: {mode, paddingMode, alignCorners}.
 */
export function gridSample(x, grid, { mode = 'linear', paddingMode = 'zeros', alignCorners = false } = {}) {
  const m = MODES[mode];
  const [N, C, ...inDims] = x.dims.map(Number);
  const r = inDims.length;
  const outDims = grid.dims.slice(1, -1).map(Number);
  const outCount = outDims.reduce((a, b) => a * b, 1);
  const inCount = inDims.reduce((a, b) => a * b, 1);
  const strides = inDims.map((_, a) => inDims.slice(a + 1).reduce((p, q) => p * q, 1));
  const y = new Float64Array(N * C * outCount);
  for (let n = 0; n < N; ++n) {
    for (let o = 0; o < outCount; ++o) {
      const g = Array.from({ length: r }, (_, k) => Number(grid.data[(n * outCount + o) * r + k]));
      if (!g.every(Number.isFinite)) continue; // 0 for non-finite coordinates
      // grid lists x (innermost axis) first: axis a of X takes coordinate r - 1 - a.
      const perAxis = inDims.map((size, a) => axisTaps(denormalise(g[r - 1 - a], size, alignCorners), size, m, paddingMode, alignCorners));
      for (let c = 0; c < C; ++c) {
        const base = (n * C + c) * inCount;
        let sum = 0;
        const visit = (a, offset, weight) => {
          if (a === r) {
            sum += weight * Number(x.data[base + offset]);
            return;
          }
          for (const [i, w] of perAxis[a]) if (i >= 0 && w !== 0) visit(a + 1, offset + i * strides[a], weight * w);
        };
        visit(0, 0, 1);
        y[(n * C + c) * outCount + o] = sum;
      }
    }
  }
  return { data: y, dims: [N, C, ...outDims] };
}

/** AffineGrid of theta (N, r, r+1) for size [N, C, D1..Dr] (r = 2 or 3): {data: Float64Array, dims}. */
export function affineGrid(theta, size, { alignCorners = false } = {}) {
  const [N, , ...spatial] = Array.from(size.data ?? size, Number);
  const r = spatial.length;
  const count = spatial.reduce((a, b) => a * b, 1);
  const base = (i, s) => (s === 1 ? 0 : alignCorners ? (2 * i - (s - 1)) / (s - 1) : (2 * i + 1 - s) / s);
  const out = new Float64Array(N * count * r);
  for (let n = 0; n < N; ++n) {
    for (let p = 0; p < count; ++p) {
      // Index per axis (D.., H, W), then the point (x, y[, z], 1).
      const idx = spatial.map((_, a) => Math.floor(p / spatial.slice(a + 1).reduce((q, s) => q * s, 1)) % spatial[a]);
      const point = [...idx.map((i, a) => base(i, spatial[a])).reverse(), 1];
      for (let k = 0; k < r; ++k) {
        let v = 0;
        for (let j = 0; j <= r; ++j) v += Number(theta.data[(n * r + k) * (r + 1) + j]) * point[j];
        out[(n * count + p) * r + k] = v;
      }
    }
  }
  return { data: out, dims: [N, ...spatial, r] };
}
