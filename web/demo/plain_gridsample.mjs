// The plain-JavaScript baseline of the demo's live figures and of bench/'s "plain JS loop" row: AffineGrid, GridSample and an RGBA affine warp written the way a web developer would, with the package's semantics.
//
// One output pixel at a time: its taps and weights once, then every channel. No wasm, no
// tricks, but no needless slowness either (per-mode loops, typed arrays). Coordinates are
// denormalised in float32 steps (Math.fround) like the C++ kernels, so nearest ties round
// the same way; blending runs in double. The demo shows how far its output is from ours.

const f32 = Math.fround;
const FAR = 8388608; // 2^23: beyond this every float32 is an integer (the kernels clamp here too)
const A = -0.75; // Keys cubic kernel, as PyTorch and ONNX
const PADDING = { zeros: 0, border: 1, reflection: 2 };
const MODE = { linear: 0, bilinear: 0, nearest: 1, cubic: 2, bicubic: 2 };

// AffineGrid's base coordinate of index i on an axis of size n, in [-1, 1] (0 for n = 1).
const base = (i, n, align) => (n === 1 ? 0 : align ? (2 * i - (n - 1)) / (n - 1) : (2 * i + 1 - n) / n);

/** AffineGrid for theta (N, 2, 3) and size [N, C, H, W]: a Float32Array grid (N, H, W, 2). */
export function affineGrid2d(theta, [N, , H, W], alignCorners, out) {
  const grid = out || new Float32Array(N * H * W * 2);
  let k = 0;
  for (let n = 0; n < N; ++n) {
    const [a, b, c, d, e, f] = theta.subarray(6 * n, 6 * n + 6);
    for (let i = 0; i < H; ++i) {
      const y = base(i, H, alignCorners);
      for (let j = 0; j < W; ++j) {
        const x = base(j, W, alignCorners);
        grid[k++] = a * x + b * y + c;
        grid[k++] = d * x + e * y + f;
      }
    }
  }
  return grid;
}

/** AffineGrid for theta (N, 3, 4) and size [N, C, D, H, W]: a Float32Array grid (N, D, H, W, 3). */
export function affineGrid3d(theta, [N, , D, H, W], alignCorners, out) {
  const grid = out || new Float32Array(N * D * H * W * 3);
  let k = 0;
  for (let n = 0; n < N; ++n) {
    const t = theta.subarray(12 * n, 12 * n + 12);
    for (let i = 0; i < D; ++i) {
      const z = base(i, D, alignCorners);
      for (let j = 0; j < H; ++j) {
        const y = base(j, H, alignCorners);
        for (let l = 0; l < W; ++l) {
          const x = base(l, W, alignCorners);
          grid[k++] = t[0] * x + t[1] * y + t[2] * z + t[3];
          grid[k++] = t[4] * x + t[5] * y + t[6] * z + t[7];
          grid[k++] = t[8] * x + t[9] * y + t[10] * z + t[11];
        }
      }
    }
  }
  return grid;
}

// Pixel coordinate of normalised g on an axis of size s, in float32 steps, clamped far away
// so that floor() stays exact; reflection first folds |g| > 3 (its period is 4).
function denormalize(g, s, align, padding) {
  if (padding === 2 && Math.abs(g) > 3) g %= 4;
  const gc = f32(g);
  let x = align
    ? (s === 1 ? 0 : f32(f32(f32(gc + 1) / 2) * (s - 1)))
    : f32(f32(f32(f32(gc + 1) * s) - 1) / 2);
  if (!(x >= -FAR)) x = -FAR;
  if (!(x <= f32(s + FAR))) x = f32(s + FAR);
  return x;
}

// The index read for integer tap i on an axis of size s, or -1 for a zero tap.
function pad(i, s, padding, align) {
  if (i >= 0 && i < s) return i;
  if (padding === 0) return -1;
  if (padding === 1) return i < 0 ? 0 : s - 1;
  if (align) {
    if (s === 1) return 0;
    const period = 2 * (s - 1);
    let m = i % period;
    if (m < 0) m += period;
    return m < s ? m : period - m;
  }
  const period = 2 * s;
  let m = i % period;
  if (m < 0) m += period;
  return m < s ? m : period - 1 - m;
}

// Math.round rounds half up; ONNX nearest rounds half to even.
function roundHalfEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

// Keys weights of a tap at distance u: below 1 (near) and from 1 to 2 (far).
const cubicNear = (u) => ((A + 2) * u - (A + 3)) * u * u + 1;
const cubicFar = (u) => ((A * u - 5 * A) * u + 8 * A) * u - 4 * A;

function cubicWeights(t, w) {
  w[0] = cubicFar(t + 1);
  w[1] = cubicNear(t);
  w[2] = cubicNear(1 - t);
  w[3] = cubicFar(2 - t);
}

/**
 * GridSample of x (N, C, H, W) with grid (N, Ho, Wo, 2), both Float32Array; options as the
 * package's. Returns (or fills `out`) a Float32Array (N, C, Ho, Wo).
 */
export function gridSample2d(x, [N, C, H, W], grid, [, Ho, Wo], options = {}, out) {
  const mode = MODE[options.mode ?? 'linear'];
  const padding = PADDING[options.paddingMode ?? 'zeros'];
  const align = options.alignCorners ? 1 : 0;
  if (mode === undefined || padding === undefined) throw new RangeError('gridSample2d: unknown mode or padding');
  const plane = H * W;
  const outPlane = Ho * Wo;
  const y = out || new Float32Array(N * C * outPlane);
  const ix = new Int32Array(4);
  const iy = new Int32Array(4);
  const wx = new Float64Array(4);
  const wy = new Float64Array(4);
  for (let n = 0; n < N; ++n) {
    const xn = n * C * plane;
    const yn = n * C * outPlane;
    for (let p = 0; p < outPlane; ++p) {
      const gx = grid[2 * (n * outPlane + p)];
      const gy = grid[2 * (n * outPlane + p) + 1];
      if (!Number.isFinite(gx) || !Number.isFinite(gy)) {
        for (let c = 0; c < C; ++c) y[yn + c * outPlane + p] = 0;
        continue;
      }
      const px = denormalize(gx, W, align, padding);
      const py = denormalize(gy, H, align, padding);
      if (mode === 1) {
        const cx = pad(roundHalfEven(px), W, padding, align);
        const cy = pad(roundHalfEven(py), H, padding, align);
        const src = xn + cy * W + cx;
        for (let c = 0; c < C; ++c) y[yn + c * outPlane + p] = cx < 0 || cy < 0 ? 0 : x[src + c * plane];
      } else if (mode === 0) {
        const x0 = Math.floor(px);
        const y0 = Math.floor(py);
        const tx = px - x0;
        const ty = py - y0;
        const xa = pad(x0, W, padding, align);
        const xb = pad(x0 + 1, W, padding, align);
        const ya = pad(y0, H, padding, align);
        const yb = pad(y0 + 1, H, padding, align);
        for (let c = 0; c < C; ++c) {
          const src = xn + c * plane;
          const v00 = ya >= 0 && xa >= 0 ? x[src + ya * W + xa] : 0;
          const v01 = ya >= 0 && xb >= 0 ? x[src + ya * W + xb] : 0;
          const v10 = yb >= 0 && xa >= 0 ? x[src + yb * W + xa] : 0;
          const v11 = yb >= 0 && xb >= 0 ? x[src + yb * W + xb] : 0;
          y[yn + c * outPlane + p] = (1 - ty) * ((1 - tx) * v00 + tx * v01) + ty * ((1 - tx) * v10 + tx * v11);
        }
      } else {
        const x0 = Math.floor(px);
        const y0 = Math.floor(py);
        cubicWeights(px - x0, wx);
        cubicWeights(py - y0, wy);
        for (let k = 0; k < 4; ++k) {
          ix[k] = pad(x0 - 1 + k, W, padding, align);
          iy[k] = pad(y0 - 1 + k, H, padding, align);
        }
        for (let c = 0; c < C; ++c) {
          const src = xn + c * plane;
          let sum = 0;
          for (let j = 0; j < 4; ++j) {
            if (iy[j] < 0) continue;
            const row = src + iy[j] * W;
            let s = 0;
            for (let k = 0; k < 4; ++k) if (ix[k] >= 0) s += wx[k] * x[row + ix[k]];
            sum += wy[j] * s;
          }
          y[yn + c * outPlane + p] = sum;
        }
      }
    }
  }
  return y;
}

/**
 * GridSample of x (N, C, D, H, W) with grid (N, Do, Ho, Wo, 3), both Float32Array, trilinear
 * or nearest (ONNX has no 3-D cubic); options as the package's. Returns (or fills `out`) a
 * Float32Array (N, C, Do, Ho, Wo).
 */
export function gridSample3d(x, [N, C, D, H, W], grid, [, Do, Ho, Wo], options = {}, out) {
  const mode = MODE[options.mode ?? 'linear'];
  const padding = PADDING[options.paddingMode ?? 'zeros'];
  const align = options.alignCorners ? 1 : 0;
  if (mode === undefined || mode === 2 || padding === undefined) throw new RangeError('gridSample3d: unknown mode or padding (3-D has linear and nearest)');
  const vol = D * H * W;
  const outVol = Do * Ho * Wo;
  const y = out || new Float32Array(N * C * outVol);
  const offs = new Int32Array(8); // the taps that are read: offsets and weights
  const ws = new Float64Array(8);
  for (let n = 0; n < N; ++n) {
    const xn = n * C * vol;
    const yn = n * C * outVol;
    for (let p = 0; p < outVol; ++p) {
      const gx = grid[3 * (n * outVol + p)];
      const gy = grid[3 * (n * outVol + p) + 1];
      const gz = grid[3 * (n * outVol + p) + 2];
      let taps = 0;
      if (Number.isFinite(gx) && Number.isFinite(gy) && Number.isFinite(gz)) {
        const px = denormalize(gx, W, align, padding);
        const py = denormalize(gy, H, align, padding);
        const pz = denormalize(gz, D, align, padding);
        if (mode === 1) {
          const cx = pad(roundHalfEven(px), W, padding, align);
          const cy = pad(roundHalfEven(py), H, padding, align);
          const cz = pad(roundHalfEven(pz), D, padding, align);
          if (cx >= 0 && cy >= 0 && cz >= 0) {
            const src = xn + (cz * H + cy) * W + cx;
            for (let c = 0; c < C; ++c) y[yn + c * outVol + p] = x[src + c * vol];
            continue;
          }
        } else {
          const x0 = Math.floor(px);
          const y0 = Math.floor(py);
          const z0 = Math.floor(pz);
          const tx = px - x0;
          const ty = py - y0;
          const tz = pz - z0;
          for (let k = 0; k < 8; ++k) {
            const cx = pad(x0 + (k & 1), W, padding, align);
            const cy = pad(y0 + ((k >> 1) & 1), H, padding, align);
            const cz = pad(z0 + (k >> 2), D, padding, align);
            if (cx < 0 || cy < 0 || cz < 0) continue;
            offs[taps] = (cz * H + cy) * W + cx;
            ws[taps] = (k & 1 ? tx : 1 - tx) * ((k >> 1) & 1 ? ty : 1 - ty) * (k >> 2 ? tz : 1 - tz);
            ++taps;
          }
        }
      }
      for (let c = 0; c < C; ++c) {
        const src = xn + c * vol;
        let s = 0;
        for (let k = 0; k < taps; ++k) s += ws[k] * x[src + offs[k]];
        y[yn + c * outVol + p] = s;
      }
    }
  }
  return y;
}

/**
 * The affine warp of interleaved RGBA bytes (a canvas ImageData) that `warpAffine` does: output
 * pixel (i, j) samples the source at θ·[x_j, y_i, 1] (AffineGrid's base coordinates, the
 * coordinate rounded to float32 as AffineGrid stores it), then each channel is rounded half to
 * even and clamped (a Uint8ClampedArray does that on assignment).
 */
export function warpAffineRgba(src, width, height, theta, outWidth, outHeight, options = {}) {
  const mode = MODE[options.mode ?? 'linear'];
  const padding = PADDING[options.paddingMode ?? 'zeros'];
  const align = options.alignCorners ? 1 : 0;
  if (mode === undefined || padding === undefined) throw new RangeError('warpAffineRgba: unknown mode or padding');
  const [a, b, c, d, e, f] = Array.from(theta, f32);
  const out = new Uint8ClampedArray(4 * outWidth * outHeight);
  const row = 4 * width;
  const ix = new Int32Array(4);
  const iy = new Int32Array(4);
  const wx = new Float64Array(4);
  const wy = new Float64Array(4);
  const acc = new Float64Array(4);
  let o = 0;
  for (let i = 0; i < outHeight; ++i) {
    const by = base(i, outHeight, align);
    for (let j = 0; j < outWidth; ++j, o += 4) {
      const bx = base(j, outWidth, align);
      const px = denormalize(f32(a * bx + b * by + c), width, align, padding);
      const py = denormalize(f32(d * bx + e * by + f), height, align, padding);
      if (mode === 1) {
        const cx = pad(roundHalfEven(px), width, padding, align);
        const cy = pad(roundHalfEven(py), height, padding, align);
        if (cx < 0 || cy < 0) continue; // zeros: the output is already 0
        const s = cy * row + 4 * cx;
        out[o] = src[s];
        out[o + 1] = src[s + 1];
        out[o + 2] = src[s + 2];
        out[o + 3] = src[s + 3];
        continue;
      }
      const x0 = Math.floor(px);
      const y0 = Math.floor(py);
      if (mode === 0) {
        // Bilinear, unrolled: the same weights and order of summation as the cubic loop below.
        const xa = pad(x0, width, padding, align);
        const xb = pad(x0 + 1, width, padding, align);
        const ya = pad(y0, height, padding, align);
        const yb = pad(y0 + 1, height, padding, align);
        const wx0 = x0 + 1 - px;
        const wx1 = px - x0;
        const wy0 = y0 + 1 - py;
        const wy1 = py - y0;
        const w00 = ya >= 0 && xa >= 0 ? wy0 * wx0 : 0; // 0: a zero tap, not read
        const w01 = ya >= 0 && xb >= 0 ? wy0 * wx1 : 0;
        const w10 = yb >= 0 && xa >= 0 ? wy1 * wx0 : 0;
        const w11 = yb >= 0 && xb >= 0 ? wy1 * wx1 : 0;
        const s00 = ya * row + 4 * xa;
        const s01 = ya * row + 4 * xb;
        const s10 = yb * row + 4 * xa;
        const s11 = yb * row + 4 * xb;
        for (let k = 0; k < 4; ++k) {
          let v = 0;
          if (w00) v += w00 * src[s00 + k];
          if (w01) v += w01 * src[s01 + k];
          if (w10) v += w10 * src[s10 + k];
          if (w11) v += w11 * src[s11 + k];
          out[o + k] = v;
        }
        continue;
      }
      cubicWeights(px - x0, wx);
      cubicWeights(py - y0, wy);
      for (let k = 0; k < 4; ++k) {
        ix[k] = pad(x0 - 1 + k, width, padding, align);
        iy[k] = pad(y0 - 1 + k, height, padding, align);
      }
      acc.fill(0);
      for (let m = 0; m < 4; ++m) {
        if (iy[m] < 0) continue;
        for (let k = 0; k < 4; ++k) {
          if (ix[k] < 0) continue;
          const w = wy[m] * wx[k];
          const s = iy[m] * row + 4 * ix[k];
          acc[0] += w * src[s];
          acc[1] += w * src[s + 1];
          acc[2] += w * src[s + 2];
          acc[3] += w * src[s + 3];
        }
      }
      out[o] = acc[0];
      out[o + 1] = acc[1];
      out[o + 2] = acc[2];
      out[o + 3] = acc[3];
    }
  }
  return out;
}
