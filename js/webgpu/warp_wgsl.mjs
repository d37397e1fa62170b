// The image-warp compute shader (warpAffine, warpPerspective, remap on interleaved uint8 or float32 images of 1 to 4 channels) for one (source, mode, padding, align, fill, dtype), assembled from wgsl_rules.mjs as the CPU reference computes it (src/kernels/reference/channels_last_ref.cc): a position per output pixel from its coordinate source, the reference's taps on each axis, and per channel its sum in its order.
import { axisPlan, axisTaps, CUBIC, denormalise, DOUBLE_FLOAT, FINITE, padTaps, pixelPosition, reflectIndex, TAPS } from './wgsl_rules.mjs';
import { WORKGROUP } from './grid_sample_wgsl.mjs';

/**
 * Where output pixel (i, j)'s position comes from, and the storage each reads:
 * - affine: AffineGrid's value ((t0 x_j + t1 y_i) + t2, normalised): per column the products
 *   t_k0 x_j and per row t_k1 y_i as double-float pairs (computed in float64 on the CPU), then
 *   summed with t_k2 in double-float and rounded once, as the reference rounds its double;
 * - perspective: the homography's terms (perspective_rule.h): per row the three row terms, the
 *   column terms in the uniform block, then the products, sums and quotient in float32;
 * - maps: pixel positions, interleaved (x, y) in one map, or planes (x's, then y's binding);
 * - points: AffineGrid's values per output pixel, interleaved (x, y), normalised (warps.mjs
 *   computes them where reflection reduces values the pairs cannot hold exactly).
 */
export const SOURCES = ['affine', 'perspective', 'maps', 'planes', 'points'];

/** The uniform block's 32-bit words: sizes, the dispatch, row strides, 4 source values and the fill colour. */
export const WARP_PARAMS_WORDS = 20;

/**
 * The Params words of one warp: X's width, height and channels, the output's width and height,
 * invocations, the dispatch width, X's elements per row, then `source` (4 floats: the
 * perspective column terms, or the affine t_02 and t_12 as pairs), `fill` (a colour per
 * channel) and the output's elements per row.
 */
export function warpParams({ inWidth, inHeight, channels, outWidth, outHeight, invocations, width, inRow, outRow, source, fill }) {
  const buffer = new ArrayBuffer(WARP_PARAMS_WORDS * 4);
  new Uint32Array(buffer, 0, 8).set([inWidth, inHeight, channels, outWidth, outHeight, invocations, width, inRow]);
  new Float32Array(buffer, 32, 8).set([...source, ...fill]);
  new Uint32Array(buffer, 64, 4).set([outRow, 0, 0, 0]);
  return new Uint32Array(buffer);
}

// Output pixel p's position (x, y), `ok` false where it is not finite, for each source.
const POSITION = {
  affine: (reduce) => /* wgsl */ `
// fmod(v, 4) of a double-float pair past |v| = 3 (reflection's period in normalised
// coordinates), as the reference reduces its double before rounding it to float32.
fn reduce4(v: vec2<f32>) -> vec2<f32> {
  if (abs(v.x) <= 3.0) { return v; }
  var r = df_add(v, vec2<f32>(-4.0 * trunc(v.x * 0.25), 0.0));
  if (v.x > 0.0 && r.x + r.y < 0.0) { r = df_add(r, vec2<f32>(4.0, 0.0)); }
  if (v.x < 0.0 && r.x + r.y > 0.0) { r = df_add(r, vec2<f32>(-4.0, 0.0)); }
  return r;
}
fn position(p: u32, ok: ptr<function, bool>) -> vec2<f32> {
  let j = p % params.out_w;
  let i = p / params.out_w;
  let rows = params.out_w * 4u;
  var g: vec2<f32>;
  for (var k = 0u; k < 2u; k++) {
    let a = vec2<f32>(coords[(j * 2u + k) * 2u], coords[(j * 2u + k) * 2u + 1u]);
    let b = vec2<f32>(coords[rows + (i * 2u + k) * 2u], coords[rows + (i * 2u + k) * 2u + 1u]);
    let t = vec2<f32>(params.source[2u * k], params.source[2u * k + 1u]);
    let v = ${reduce ? 'reduce4(' : ''}df_add(df_add(a, b), t)${reduce ? ')' : ''};
    g[k] = nearest(v);
    *ok = *ok && finite_f32(bitcast<u32>(g[k]));
  }
  return g;
}`,
  perspective: () => /* wgsl */ `
// n / w (w > 0, finite) kept within float32's range: a point that far pads.
fn quotient(n: f32, w: f32) -> f32 {
  let q = n / w;
  if (finite_f32(bitcast<u32>(q))) { return q; }
  let largest = bitcast<f32>(0x7f7fffffu);
  return select(-largest, largest, n > 0.0);
}
fn position(p: u32, ok: ptr<function, bool>) -> vec2<f32> {
  let j = f32(p % params.out_w);
  let i = p / params.out_w;
  let px = params.source.x * j;
  let py = params.source.y * j;
  let pw = params.source.z * j;
  let nx = px + coords[3u * i];
  let ny = py + coords[3u * i + 1u];
  let nw = pw + coords[3u * i + 2u];
  *ok = nw > 0.0 && finite_f32(bitcast<u32>(nw)) && finite_f32(bitcast<u32>(nx)) && finite_f32(bitcast<u32>(ny));
  if (!*ok) { return vec2<f32>(0.0, 0.0); }
  return vec2<f32>(quotient(nx, nw), quotient(ny, nw));
}`,
  maps: () => /* wgsl */ `
fn position(p: u32, ok: ptr<function, bool>) -> vec2<f32> {
  let g = vec2<f32>(coords[2u * p], coords[2u * p + 1u]);
  *ok = finite_f32(bitcast<u32>(g.x)) && finite_f32(bitcast<u32>(g.y));
  return g;
}`,
  planes: () => /* wgsl */ `
fn position(p: u32, ok: ptr<function, bool>) -> vec2<f32> {
  let g = vec2<f32>(coords[p], coords_y[p]);
  *ok = finite_f32(bitcast<u32>(g.x)) && finite_f32(bitcast<u32>(g.y));
  return g;
}`,
};
POSITION.points = POSITION.maps;

// What a blend sums: one channel c (f32), or with `rgba` the four channels of a uint8 RGBA
// pixel at once (vec4<f32>: one load of the pixel's word per tap, each lane the same operations
// in the same order as the channel alone).
const blendTypes = (rgba) => (rgba
  ? { type: 'vec4<f32>', zero: 'vec4<f32>(0.0)', fill: 'params.fill', load: 'load_px' }
  : { type: 'f32', zero: '0.0', fill: 'params.fill[c]', load: 'load_x' });

// The reference's blend of channel c at a planned pixel: the taps rows outermost, weight
// w_x w_y, a tap outside X skipped (or, with fill, reading the fill colour); a non-finite
// position gives 0 (or fill).
function tapBlend(fill, rgba) {
  const t = blendTypes(rgba);
  const outside = fill ? t.fill : t.zero;
  return /* wgsl */ `fn blend(pl: Plan, c: u32) -> ${t.type} {
  if (!pl.finite) { return ${t.zero} + ${outside}; }
  var acc = ${t.zero};
  for (var a = 0; a < TAPS; a++) {
    let iy = pl.idx[0][a];
    ${fill ? '' : 'if (iy < 0) { continue; }'}
    for (var b = 0; b < TAPS; b++) {
      let ix = pl.idx[1][b];
      ${fill ? '' : 'if (ix < 0) { continue; }'}
      let weight = pl.w[1][b] * pl.w[0][a];
      if (iy < 0 || ix < 0) {
        acc = acc + weight * ${outside};
        continue;
      }
      acc = acc + weight * ${t.load}(u32(iy) * params.in_row + u32(ix) * params.c + c);
    }
  }
  return acc;
}`;
}

// The fast planner's blend (src/kernels/blends/interleaved-inl.h) over folded windows,
// which lie inside X: nearest copies its pixel (0 + v) unless zeros padding dropped it; the
// others sum every slot, rows outermost, weight w_x w_y, and add fill once with the weight
// left outside X, 1 minus the weights in that order.
function foldedBlend(mode, fill, rgba) {
  const t = blendTypes(rgba);
  const outside = fill ? t.fill : t.zero;
  const at = (a, b) => `${t.load}(u32(pl.idx[0][${a}]) * params.in_row + u32(pl.idx[1][${b}]) * params.c + c)`;
  if (mode === 'nearest') {
    return /* wgsl */ `fn blend(pl: Plan, c: u32) -> ${t.type} {
  if (!pl.finite || pl.w[1][0] * pl.w[0][0] == 0.0) { return ${t.zero} + ${outside}; }
  return ${t.zero} + ${at(0, 0)};
}`;
  }
  return /* wgsl */ `fn blend(pl: Plan, c: u32) -> ${t.type} {
  if (!pl.finite) { return ${t.zero} + ${outside}; }
  var acc = ${t.zero};
  var left = 1.0;
  for (var a = 0; a < TAPS; a++) {
    for (var b = 0; b < TAPS; b++) {
      let weight = pl.w[1][b] * pl.w[0][a];
      acc = acc + weight * ${at('a', 'b')};
      left = left - weight;
    }
  }
  return ${fill ? `acc + left * ${t.fill}` : 'acc'};
}`;
}

/**
 * WGSL for one warp. `source`: one of SOURCES (affine and points positions are normalised, the others
 * pixel positions; `reduceFirst`: a float64 theta, whose values reflection reduces before they
 * are rounded to float32, as the reference does); `fill`: zeros padding reads options.fill's
 * colour outside the image; `fold`: the fast planner's windows and blend (ChannelsLastFoldsTaps), else the reference's;
 * `u8`: uint8 image and output (packed 4 to a u32 word; one invocation per word of the output,
 * rounded half to even and saturated as the CPU stores), else float32 (one per output pixel);
 * `rgba`: uint8 of 4 channels whose rows are whole words (warps.mjs): one invocation per
 * pixel, blending its 4 channels from one load of each tap's word.
 */
export function warpWgsl({ source, mode, padding, align, fill, fold, u8, rgba, reduceFirst }) {
  const k = TAPS[mode];
  const reduce = padding === 'reflection';
  const normalised = source === 'affine' || source === 'points';
  const storage = u8 ? 'u32' : 'f32';
  const yBinding = source === 'planes' ? 4 : 3;
  const toPixel = normalised ? 'denormalise' : 'pixel_position';
  // Output rows lie out_row elements apart (more than out_w * c where the caller's out pads
  // them). uint8: one invocation per 32-bit word of Y, its four bytes (a padding byte is 0);
  // float32: one per output pixel.
  const rgbaStore = `if (gid >= params.invocations) { return; }
  let v = vec4<u32>(clamp(round(blend(plan(gid), 0u)), vec4<f32>(0.0), vec4<f32>(255.0)));
  y[((gid / params.out_w) * params.out_row + (gid % params.out_w) * 4u) >> 2u] = v.x | (v.y << 8u) | (v.z << 16u) | (v.w << 24u);`;
  const store = rgba ? rgbaStore : u8
    ? `if (gid >= params.invocations) { return; }
  let row = params.out_w * params.c;
  let total = (params.out_h - 1u) * params.out_row + row;
  var bits = 0u;
  var planned = 0xffffffffu;
  var pl: Plan;
  for (var h = 0u; h < 4u; h++) {
    let e = 4u * gid + h;
    let k = e % params.out_row;
    if (e < total && k < row) {
      let p = (e / params.out_row) * params.out_w + k / params.c;
      if (p != planned) { pl = plan(p); planned = p; }
      let v = clamp(round(blend(pl, k % params.c)), 0.0, 255.0);
      bits = bits | (u32(v) << (8u * h));
    }
  }
  y[gid] = bits;`
    : `if (gid >= params.invocations) { return; }
  let pl = plan(gid);
  let at = (gid / params.out_w) * params.out_row + (gid % params.out_w) * params.c;
  for (var c = 0u; c < params.c; c++) { y[at + c] = blend(pl, c); }`;
  return /* wgsl */ `// gridsample image warp: ${source} source, ${mode}, ${padding}${fill ? ' with fill' : ''}, align_corners ${align ? 1 : 0}, ${rgba ? 'uint8 RGBA by pixel' : u8 ? 'uint8' : 'float32'}
struct Params {
  in_w: u32, in_h: u32, c: u32, out_w: u32,
  out_h: u32, invocations: u32, width: u32, in_row: u32,
  source: vec4<f32>,
  fill: vec4<f32>,
  out_row: u32, pad0: u32, pad1: u32, pad2: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<${storage}>;
@group(0) @binding(2) var<storage, read> coords: array<f32>;
${source === 'planes' ? '@group(0) @binding(3) var<storage, read> coords_y: array<f32>;' : ''}
@group(0) @binding(${yBinding}) var<storage, read_write> y: array<${storage}>;

const TAPS = ${k};
${FINITE}
${source === 'affine' ? DOUBLE_FLOAT : ''}
${CUBIC}
${normalised ? denormalise(align, reduce) : pixelPosition(align, reduce)}
${reflectIndex(align)}
${axisTaps(mode)}
${padTaps(mode, padding, fold)}
${axisPlan(toPixel)}
${POSITION[source](reduce && reduceFirst)}

fn load_x(i: u32) -> f32 { return ${u8 ? 'f32((x[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu)' : 'x[i]'}; }
${rgba ? `// The 4 bytes of the word at byte i (a multiple of 4) as floats.
fn load_px(i: u32) -> vec4<f32> {
  let w = x[i >> 2u];
  return vec4<f32>(f32(w & 0xffu), f32((w >> 8u) & 0xffu), f32((w >> 16u) & 0xffu), f32(w >> 24u));
}` : ''}

struct Plan {
  finite: bool,
  idx: array<array<i32, TAPS>, 2>,
  w: array<array<f32, TAPS>, 2>,
}

// Output pixel p: its position, then the taps on each axis (0: y over the rows, 1: x).
fn plan(p: u32) -> Plan {
  var pl: Plan;
  var ok = true;
  let g = position(p, &ok);
  pl.finite = ok;
  if (!ok) { return pl; }
  for (var a = 0u; a < 2u; a++) {
    var idx: array<i32, TAPS>;
    var wo: array<f32, TAPS>;
    axis_plan(select(g.x, g.y, a == 0u), i32(select(params.in_w, params.in_h, a == 0u)), &idx, &wo);
    pl.idx[a] = idx;
    pl.w[a] = wo;
  }
  return pl;
}

${fold ? foldedBlend(mode, fill, rgba) : tapBlend(fill, rgba)}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let gid = id.y * params.width + id.x;
  ${store}
}
`;
}
