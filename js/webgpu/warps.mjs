// gridsample/webgpu's image warps (warpAffine, warpPerspective, remap) on interleaved uint8 or float32 images in GPU buffers or on the CPU (uploaded), with the CPU API's arguments, options and messages (js/images/warps.mjs, DESIGN.md section 9); what the shader samples at is computed here in float64 as the reference computes it.
import { readFill, readSpace, WARPS } from '../images/warps.mjs';
import { affineBaseCoordinate } from '../images/axis_line.mjs';
import { readMatrix, readOptions, readSide } from '../core/plain_args.mjs';
import { readGpuImage } from './gpu_images.mjs';
import { readGpuOut } from './tensors.mjs';
import { warpParams, warpWgsl } from './warp_wgsl.mjs';

const TERM_LIMIT = 2 ** 100; // perspective_rule.h kPerspectiveTermLimit

// A finite value kept within +-2^100 (perspective_rule.h's PerspectiveTerm before its rounding):
// a coordinate that far pads, and sums of such terms stay finite in float32.
const withinTermLimit = (v) => (Number.isFinite(v) ? Math.min(Math.max(v, -TERM_LIMIT), TERM_LIMIT) : v);

// A float64 value as a double-float pair [hi, lo] of float32s (about 48 bits), kept within the
// term limit.
function pair(v) {
  const c = withinTermLimit(v);
  const hi = Math.fround(c);
  return [hi, Number.isFinite(hi) ? Math.fround(c - hi) : 0];
}

/**
 * The affine source's storage: per output column j the products t_k0 x_j, then per row i the
 * products t_k1 y_i (k = 0, 1: the x and y values), as pairs, and the constants t_k2 as pairs:
 * AffineGrid's base coordinates and products in float64, as the reference computes them.
 */
function affineTerms(t, width, height, align) {
  const terms = new Float32Array(4 * (width + height));
  for (let j = 0; j < width; ++j) {
    const x = affineBaseCoordinate(j, width, align);
    for (let k = 0; k < 2; ++k) terms.set(pair(t[3 * k] * x), (2 * j + k) * 2);
  }
  for (let i = 0; i < height; ++i) {
    const y = affineBaseCoordinate(i, height, align);
    for (let k = 0; k < 2; ++k) terms.set(pair(t[3 * k + 1] * y), 4 * width + (2 * i + k) * 2);
  }
  return { terms, source: [...pair(t[2]), ...pair(t[5])] };
}

// Reflection reduces a float64 theta's AffineGrid values modulo 4 before rounding them, keeping
// bits below the pairs' ~48: past this bound on |value| a pair's error (about 2^-48 |value|)
// would change a rounded result once in 2^17 or more often (at 3e8, 1 pixel in 60 did; past
// 2^54, most), so the values are computed per pixel instead (affinePoints).
const PAIRS_EXACT_BELOW = 2 ** 8;

/**
 * AffineGrid's values (x, y) of every output pixel, as the reference computes a float64
 * theta's (affine_source.h's AffinePoints: AffineValue's sum in float64; CoordinateAs: reduced
 * modulo 4 past 3, as fmod) before they are rounded to float32.
 */
function affinePoints(t, width, height, align) {
  const xs = Array.from({ length: width }, (_, j) => affineBaseCoordinate(j, width, align));
  const points = new Float32Array(2 * width * height);
  for (let i = 0; i < height; ++i) {
    const y = affineBaseCoordinate(i, height, align);
    for (let j = 0; j < width; ++j) {
      for (let r = 0; r < 2; ++r) {
        const v = 0 + t[3 * r] * xs[j] + t[3 * r + 1] * y + t[3 * r + 2];
        points[2 * (i * width + j) + r] = Math.abs(v) > 3 ? v % 4 : v;
      }
    }
  }
  return points;
}

// Whether a float64 theta's values, which reflection reduces, may exceed PAIRS_EXACT_BELOW
// (base coordinates lie in [-1, 1]).
const pairsInexact = (t) => [0, 3].some((r) => Math.abs(t[r]) + Math.abs(t[r + 1]) + Math.abs(t[r + 2]) >= PAIRS_EXACT_BELOW);

// perspective_rule.h's PerspectiveTerm: the float32 of a value within the term limit.
const perspectiveTerm = (v) => Math.fround(withinTermLimit(v));

// x * 2 ** e for any integer e (2 ** e alone leaves double's range beyond ±1023).
function ldexp(x, e) {
  let y = x;
  let k = e;
  for (; k > 1000; k -= 1000) y *= 2 ** 1000;
  for (; k < -1000; k += 1000) y *= 2 ** -1000;
  return y * 2 ** k;
}

/**
 * The perspective source's storage for H (output pixel -> input pixel, nine float64s): H scaled
 * by the power of two that brings its w row's largest entry into [0.5, 1) (PerspectiveMapOf),
 * per row i its three row terms m[1] i + m[2] (PerspectiveRowTerms), and the column terms.
 */
function perspectiveTerms(h, height) {
  let largest = 0; // NaN entries compare false, as in C++
  for (let k = 6; k < 9; ++k) if (Math.abs(h[k]) > largest) largest = Math.abs(h[k]);
  const exponent = largest > 0 && Number.isFinite(largest) ? Math.floor(Math.log2(largest)) + 1 : 0;
  // Math.log2 may round across a power of two: frexp's exponent puts largest in [0.5, 1).
  let e = exponent;
  if (e !== 0 && ldexp(largest, -e) >= 1) e += 1;
  if (e !== 0 && ldexp(largest, -e) < 0.5) e -= 1;
  const m = h.map((v) => ldexp(v, -e));
  const terms = new Float32Array(3 * height);
  for (let i = 0; i < height; ++i) {
    for (let r = 0; r < 3; ++r) terms[3 * i + r] = perspectiveTerm(m[3 * r + 1] * i + m[3 * r + 2]);
  }
  return { terms, source: [perspectiveTerm(m[0]), perspectiveTerm(m[3]), perspectiveTerm(m[6]), 0] };
}

/**
 * The warps over `compute` (index.mjs's dispatch of one shader), `checkBinding` (whether bytes
 * fit one binding of the device), `rules` (the library's) and `wasm` (the module whose API they
 * mirror).
 */
export function makeWarps({ compute, checkBinding, rules, wasm }) {
  // The sampling options and the fill are the library's to check (a fill needs zeros padding,
  // finite values): shown to it on a 1x1 image, in a call that throws its message.
  function checkWithLibrary(fn, I, opts) {
    const names = ['mode', 'paddingMode', 'padding_mode', 'fill', 'alignCorners', 'align_corners'];
    const o = Object.fromEntries(names.filter((k) => opts[k] !== undefined).map((k) => [k, opts[k]]));
    const image = { data: new (I.dtype === 'uint8' ? Uint8Array : Float32Array)(I.channels), width: 1, height: 1, channels: I.channels };
    if (fn === 'remap') wasm.remap(image, { data: new Float32Array(2), width: 1, height: 1 }, undefined, o);
    else wasm[fn](image, fn === 'warpAffine' ? [1, 0, 0, 0, 1, 0] : [1, 0, 0, 0, 1, 0, 0, 0, 1], { ...o, width: 1, height: 1 });
  }

  // The result's GPU image: options.out (a GPU image of the input's dtype and channels and the
  // output's size) or a new one; `what` are the inputs whose buffers out must not share.
  function readOut(fn, out, I, width, height, inputs) {
    if (out === undefined) return null;
    const O = readGpuImage(fn, 'options.out', out);
    if (!O.buffer) throw new TypeError(`${fn}: options.out: expected a GPU image {buffer, width, height, channels, dtype} (a CPU image: use read() on the result)`);
    if (O.width !== width || O.height !== height) {
      throw new RangeError(`${fn}: options.out: expected a ${width}x${height} image (the output's size), got ${O.width}x${O.height}`);
    }
    const dims = [height, width, I.channels];
    // Checked as a tensor of its rows' elements (padding included): dtype, channels, aliasing.
    readGpuOut(fn, { buffer: O.buffer, dims: [O.height, O.width, O.channels], dtype: O.dtype }, I.dtype, dims, inputs);
    return { buffer: O.buffer, tensor: out, row: O.row, bytes: O.bytes };
  }

  // One warp: the shader for `key`, the result image (out's rows may be padded: bytesPerRow),
  // one invocation per output pixel (float32, and uint8 RGBA with rows of whole u32 words in
  // and unpadded out) or per 4 bytes of it (other uint8, which writes out's padding bytes 0).
  async function run(fn, { I, inputs, key, source, fill, width, height, opts }) {
    const out = readOut(fn, opts.out, I, width, height, inputs);
    const u8 = I.dtype === 'uint8';
    const outRow = out ? out.row : width * I.channels;
    const rgba = u8 && I.channels === 4 && I.row % 4 === 0 && outRow === width * 4;
    // An empty output writes nothing (not even the padding of out's rows).
    const empty = width * height * I.channels === 0;
    const bytes = empty ? 0 : out ? out.bytes : width * height * I.channels * (u8 ? 1 : 4);
    const fullKey = { ...key, u8, rgba, fill: fill[0] > 0 };
    const y = await compute(fn, { key: `warp:${JSON.stringify(fullKey)}`, wgsl: () => warpWgsl(fullKey) }, {
      inputs, out, dtype: I.dtype, dims: [height, width, I.channels], bytes, encoder: opts.encoder,
      invocations: u8 && !rgba ? Math.ceil(bytes / 4) : width * height,
      params: (invocations, groupsWidth) => warpParams({
        inWidth: I.width, inHeight: I.height, channels: I.channels, outWidth: width, outHeight: height,
        invocations, width: groupsWidth, inRow: I.row, outRow, source, fill: fill.slice(1),
      }),
    });
    if (out) return out.tensor;
    return Object.assign(y, { width, height, channels: I.channels });
  }

  // The output size of a warp (options.width / height, else options.out's, else the image's).
  function outputSize(fn, opts, I) {
    const side = (name) => (opts[name] === undefined ? undefined : readSide(fn, `options.${name}`, opts[name]));
    const [w, h] = [side('width'), side('height')];
    const out = opts.out !== null && typeof opts.out === 'object' ? opts.out : {};
    const outSide = (name) => (out[name] === undefined ? undefined : readSide(fn, `options.out.${name}`, out[name]));
    return { width: w ?? outSide('width') ?? I.width, height: h ?? outSide('height') ?? I.height };
  }

  // What every warp checks before it computes coordinates: an output that samples an empty
  // image, and bindings (the image, the maps, the coordinates it would make, the output) larger
  // than this GPU binds, refused before anything is allocated.
  function checkSizes(fn, I, width, height, bindings) {
    const empty = width * height * I.channels === 0;
    if (!empty && I.size === 0) {
      throw new RangeError(`${fn}: image: it has no pixels (${I.width}x${I.height}) but the output ${width}x${height} samples from it`);
    }
    if (empty) return true;
    checkBinding(fn, 'the output', width * height * I.channels * (I.dtype === 'uint8' ? 1 : 4));
    for (const [what, bytes] of [['image', I.bytes], ...bindings]) checkBinding(fn, what, bytes);
    return false;
  }

  /** gpu.warpAffine(image, matrix, options) and gpu.warpPerspective(image, h, options): as the wasm API's. */
  function warp(fn) {
    const spec = WARPS[fn];
    return async (image, matrix, options) => {
      const opts = readOptions(fn, options,
        ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners', 'width', 'height', 'out', 'space', 'inverse', 'fill', 'encoder']);
      const { space, inverse } = readSpace(fn, opts);
      const I = readGpuImage(fn, 'image', image);
      const M = readMatrix(fn, spec.name[space], matrix, spec.count);
      const sampling = rules.sampling(fn, opts);
      const fill = readFill(fn, opts.fill, I.channels);
      checkWithLibrary(fn, I, opts);
      const { width, height } = outputSize(fn, opts, I);
      const affine = space === 'normalized' && fn === 'warpAffine';
      const points = affine && M.dtype === 'float64' && rules.paddingName(sampling.padding) === 'reflection' && pairsInexact(M.data);
      const termsBytes = 4 * (points ? 2 * width * height : affine ? 4 * (width + height) : 3 * height);
      const empty = checkSizes(fn, I, width, height, [['the coordinate table', termsBytes]]);
      const key = { mode: rules.modeName(sampling.mode), padding: rules.paddingName(sampling.padding), align: sampling.align };
      let coords;
      if (empty) {
        coords = { terms: new Float32Array(0), source: [0, 0, 0, 0], key: { ...key, source: 'perspective' } };
      } else if (points) {
        coords = { terms: affinePoints(M.data, width, height, sampling.align), source: [0, 0, 0, 0], key: { ...key, source: 'points' } };
      } else if (affine) {
        const { terms, source } = affineTerms(M.data, width, height, sampling.align);
        coords = { terms, source, key: { ...key, source: 'affine', reduceFirst: M.dtype === 'float64' } };
      } else {
        const h = fn === 'warpAffine' ? [...M.data, 0, 0, 1] : [...M.data];
        const H = rules.pixelHomography(fn, spec.name[space], h, space, inverse, [I.width, I.height], [width, height], sampling.align);
        const { terms, source } = perspectiveTerms(H, height);
        // Pixel space fixes the points; alignCorners then only picks reflection's lines.
        coords = { terms, source, key: { ...key, source: 'perspective', align: space === 'pixel' ? false : sampling.align } };
      }
      const T = { data: coords.terms, bytes: coords.terms.byteLength };
      return run(fn, { I, inputs: [['image', I], ['the coordinates', T]], key: coords.key, source: coords.source, fill, width, height, opts });
    };
  }

  /** gpu.remap(image, mapX, mapY, options): as the wasm API's (maps in pixels, GPU or CPU). */
  async function remap(image, mapX, mapY, options) {
    const fn = 'remap';
    const opts = readOptions(fn, options, ['mode', 'paddingMode', 'padding_mode', 'out', 'fill', 'encoder']);
    const I = readGpuImage(fn, 'image', image);
    const interleaved = mapY === undefined || mapY === null;
    const MX = readGpuImage(fn, 'mapX', mapX, { map: { channels: interleaved ? 2 : 1 } });
    const MY = interleaved ? null : readGpuImage(fn, 'mapY', mapY, { map: { channels: 1 } });
    if (MY && (MY.width !== MX.width || MY.height !== MX.height)) {
      throw new RangeError(`${fn}: mapY: expected mapX's size ${MX.width}x${MX.height}, got ${MY.width}x${MY.height}`);
    }
    const sampling = rules.sampling(fn, opts);
    const fill = readFill(fn, opts.fill, I.channels);
    checkWithLibrary(fn, I, opts);
    const [width, height] = [MX.width, MX.height];
    checkSizes(fn, I, width, height, [['mapX', MX.bytes], ...(MY ? [['mapY', MY.bytes]] : [])]);
    const key = {
      source: MY ? 'planes' : 'maps', mode: rules.modeName(sampling.mode), padding: rules.paddingName(sampling.padding), align: false,
    };
    const inputs = [['image', I], ['mapX', MX], ...(MY ? [['mapY', MY]] : [])];
    return run(fn, { I, inputs, key, source: [0, 0, 0, 0], fill, width, height, opts });
  }

  return { warpAffine: warp('warpAffine'), warpPerspective: warp('warpPerspective'), remap };
}
