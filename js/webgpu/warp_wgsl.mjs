// The image-warp compute shader (warpAffine, warpPerspective, remap on interleaved uint8 or float32 images of 1 to 4 channels) for one (source, mode, padding, align, fill, dtype), assembled from wgsl_rules.mjs as the CPU reference computes it (src/kernels/reference/channels_last_ref.cc): a position per output pixel from its coordinate source, each axis's taps folded into a window as the CPU folds them, and per channel its sum in its order.
import { axisPlan, axisTaps, CUBIC, denormalise, DOUBLE_FLOAT, FINITE, padTaps, pixelPosition, reflectIndex, TAPS, tapWeights } from './wgsl_rules.mjs';
import { WORKGROUP } from './grid_sample_wgsl.mjs';

/**
 * Where output pixel (i, j)'s position comes from, and the storage each reads:
 * - affine: AffineGrid's value ((t0 x_j + t1 y_i) + t2, normalised): per column the products
 *   t_k0 x_j and per row t_k1 y_i as double-float pairs (the library's float64 products), then
 *   summed with t_k2 in double-float and rounded once, as the reference rounds its double;
 * - perspective: the homography's terms (perspective_rule.h): per row the three row terms, the
 *   column terms in the uniform block, then the products, sums and quotient in float32;
 * - maps: pixel positions, interleaved (x, y) in one map, or planes (x's, then y's binding);
 * - points: AffineGrid's values per output pixel, interleaved (x, y), normalised (the library
 *   computes them where reflection reduces values the pairs cannot hold exactly).
 * The tables are the library's (src/kernels/api/warp_tables.h).
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
// Coordinate k (0: x, 1: y) of the pixel in row i, column j.
fn coordinate(i: u32, j: u32, k: u32) -> f32 {
  let rows = params.out_w * 4u;
  let a = vec2<f32>(coords[(j * 2u + k) * 2u], coords[(j * 2u + k) * 2u + 1u]);
  let b = vec2<f32>(coords[rows + (i * 2u + k) * 2u], coords[rows + (i * 2u + k) * 2u + 1u]);
  let t = vec2<f32>(params.source[2u * k], params.source[2u * k + 1u]);
  return nearest(${reduce ? 'reduce4(' : ''}df_add(df_add(a, b), t)${reduce ? ')' : ''});
}
fn position(p: u32, ok: ptr<function, bool>) -> vec2<f32> {
  let j = p % params.out_w;
  let i = p / params.out_w;
  let g = vec2<f32>(coordinate(i, j, 0u), coordinate(i, j, 1u));
  *ok = *ok && finite_f32(bitcast<u32>(g.x)) && finite_f32(bitcast<u32>(g.y));
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

// The plan of an output pixel as scalars, unrolled by the window's taps (rows outermost; the
// windows lie inside X, padTaps): per tap its weight w_x w_y (tapWeights: multiplied once per
// pixel, not per channel) and its element offset in X; with fill, `left`: 1 minus the weights in
// tap order, the weight left outside X; nearest, `finite` also says that the pixel is read (zeros
// padding did not drop it).
function warpPlan(k, mode, fill) {
  const { lines, taps } = tapWeights(2, k, (a, j) => `a${a}.w${j}`);
  const offset = (d) => `u32(a0.i${d[0]}) * params.in_row + u32(a1.i${d[1]}) * params.c`;
  const sets = taps.map(({ t, digits, weight }) => `  pl.w${t} = ${weight};
  pl.o${t} = ${offset(digits)};`);
  const left = fill && mode !== 'nearest';
  if (left) sets.push(`  pl.left = ${'('.repeat(taps.length)}1.0 - ${taps.map(({ t }) => `pl.w${t}`).join(') - ')});`);
  if (mode === 'nearest') sets.push('  pl.finite = pl.w0 != 0.0;');
  return /* wgsl */ `struct Plan {
  finite: bool,${left ? ' left: f32,' : ''}
  ${taps.map(({ t }) => `w${t}: f32, o${t}: u32,`).join('\n  ')}
}

// Output pixel p: its position, then the taps on each axis (a0: y over the rows, a1: x).
fn plan(p: u32) -> Plan {
  var pl: Plan;
  var ok = true;
  let g = position(p, &ok);
  pl.finite = ok;
  if (!ok) { return pl; }
  let a0 = axis_plan(g.y, i32(params.in_h));
  let a1 = axis_plan(g.x, i32(params.in_w));
  ${lines.join('\n  ')}
${sets.join('\n')}
  return pl;
}`;
}

// The blend of channel c at a planned pixel, as the CPU's (src/kernels/blends/interleaved-inl.h
// and the reference, which fold alike): every window slot's weight times its value added to 0 in
// the plan's order, and fill added once with the weight left outside X; nearest copies its pixel
// (0 + v); a non-finite position gives 0 (or fill).
function warpBlend(k, mode, fill, rgba) {
  const t = blendTypes(rgba);
  const outside = fill ? t.fill : t.zero;
  const head = `fn blend(pl: Plan, c: u32) -> ${t.type} {
  if (!pl.finite) { return ${t.zero} + ${outside}; }`;
  if (mode === 'nearest') return `${head}\n  return ${t.zero} + ${t.load}(pl.o0 + c);\n}`;
  const taps = Array.from({ length: k * k }, (_, j) => `acc = acc + pl.w${j} * ${t.load}(pl.o${j} + c);`);
  return /* wgsl */ `${head}
  var acc = ${t.zero};
  ${taps.join('\n  ')}
  return ${fill ? `acc + pl.left * ${t.fill}` : 'acc'};
}`;
}

/**
 * WGSL for one warp. `source`: one of SOURCES (affine and points positions are normalised, the others
 * pixel positions; `reduceFirst`: a float64 theta, whose values reflection reduces before they
 * are rounded to float32, as the reference does); `fill`: zeros padding reads options.fill's
 * colour outside the image;
 * `u8`: uint8 image and output (packed 4 to a u32 word; one invocation per word of the output,
 * rounded half to even and saturated as the CPU stores), else float32 (one per output pixel);
 * `rgba`: uint8 of 4 channels whose rows are whole words (warps.mjs): one invocation per
 * pixel, blending its 4 channels from one load of each tap's word.
 */
export function warpWgsl({ source, mode, padding, align, fill, u8, rgba, reduceFirst }) {
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

${FINITE}
${source === 'affine' ? DOUBLE_FLOAT : ''}
${CUBIC}
${normalised ? denormalise(align, reduce) : pixelPosition(align, reduce)}
${reflectIndex(align)}
${axisTaps(mode)}
${padTaps(mode, padding)}
${axisPlan(toPixel)}
${POSITION[source](reduce && reduceFirst)}

fn load_x(i: u32) -> f32 { return ${u8 ? 'f32((x[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu)' : 'x[i]'}; }
${rgba ? `// The 4 bytes of the word at byte i (a multiple of 4) as floats.
fn load_px(i: u32) -> vec4<f32> {
  let w = x[i >> 2u];
  return vec4<f32>(f32(w & 0xffu), f32((w >> 8u) & 0xffu), f32((w >> 16u) & 0xffu), f32(w >> 24u));
}` : ''}

${warpPlan(k, mode, fill)}

${warpBlend(k, mode, fill, rgba)}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let gid = id.y * params.width + id.x;
  ${store}
}
`;
}
