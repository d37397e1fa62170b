// The GridSample compute shader for one (rank, mode, padding, align, fold, dtypes), assembled from wgsl_rules.mjs: a plan per output point (taps and weights per axis, once), then a blend per channel summing the taps innermost axis fastest, in the CPU's order.
import { axisPlan, axisTaps, CUBIC, denormalise, FINITE, HALF, padTaps, reflectIndex, TAPS } from './wgsl_rules.mjs';

/** Invocations per workgroup of every gridsample shader. */
export const WORKGROUP = 64;

/**
 * The uniform block every GridSample pipeline reads (u32 words, see gridSampleParams): counts,
 * then X's spatial sizes and element strides (outermost axis first, 8 axes at most).
 */
export const PARAMS_WORDS = 8 + 8 + 8;

/** Channels per invocation where a call's channels are split into groups. */
export const CHANNEL_GROUP = 8;

// Below this many output points a call splits its channels into groups.
const FEW_POINTS = 1 << 16;

/**
 * How the invocations of a call share its output (`n` batch items, `c` channels, `outSpatial`
 * points each, X of `dtype`): 'points' (one invocation per output point, which plans it once
 * and blends its channels), 'pairs' (float16 with an even `outSpatial`: one per two points, each
 * channel's two values filling one u32 word) or 'words' (float16 otherwise: one per u32 word of
 * Y, two elements planned each, so that no two invocations write the same word). Where points
 * are few (a feature map sampled at a few hundred points: the GPU would be a tenth occupied),
 * 'points' and 'pairs' split the channels into `groups` of CHANNEL_GROUP, an invocation each.
 * Returns { layout, groups, invocations }.
 */
export function gridSampleLayout({ n, c, outSpatial, dtype }) {
  const points = n * outSpatial;
  const groups = points < FEW_POINTS ? Math.max(1, Math.ceil(c / CHANNEL_GROUP)) : 1;
  if (dtype !== 'float16') return { layout: 'points', groups, invocations: points * groups };
  if (outSpatial % 2 === 0) return { layout: 'pairs', groups, invocations: (points / 2) * groups };
  return { layout: 'words', groups: 1, invocations: Math.ceil((n * c * outSpatial) / 2) };
}

/**
 * The Params words of one call: n, c, out_spatial, in_spatial, invocations, the dispatch's
 * width in invocations, channel groups and channels per group (gridSampleLayout), then sizes
 * and strides.
 */
export function gridSampleParams({ n, c, inDims, outSpatial, invocations, width, groups = 1 }) {
  const words = new Uint32Array(PARAMS_WORDS);
  const inSpatial = inDims.reduce((a, b) => a * b, 1);
  words.set([n, c, outSpatial, inSpatial, invocations, width, groups, Math.ceil(c / groups)]);
  let stride = 1;
  for (let a = inDims.length - 1; a >= 0; --a) {
    words[8 + a] = inDims[a];
    words[16 + a] = stride;
    stride *= inDims[a];
  }
  return words;
}

/**
 * WGSL for GridSample of spatial rank `rank`. `fold`: the CPU's fast planner's windows (see
 * padTaps). `xHalf` / `gridHalf`: float16 storage (packed u32 words), computed in float32 as the
 * CPU does. `layout`: how invocations share the output (gridSampleLayout).
 */
export function gridSampleWgsl({ rank, mode, padding, align, fold, xHalf, gridHalf, layout }) {
  const k = TAPS[mode];
  const loadX = xHalf ? 'half_to_f32(half_bits(x[i >> 1u], i))' : 'x[i]';
  const loadG = gridHalf
    ? `let h = half_bits(grid[i >> 1u], i);
  *ok = finite_f16(h);
  return half_to_f32(h);`
    : `let v = grid[i];
  *ok = finite_f32(bitcast<u32>(v));
  return v;`;
  // The blend: nested loops over the taps, outermost axis outside, each axis's offset added
  // once; the weight of a tap multiplies the axes' weights innermost axis first.
  let blend;
  if (mode === 'nearest') {
    const offset = Array.from({ length: rank }, (_, a) => `u32(p.idx[${a}][0]) * stride(${a})`).join(' + ');
    const inside = Array.from({ length: rank }, (_, a) => `p.idx[${a}][0] >= 0`).join(' && ');
    const weight = Array.from({ length: rank }, (_, a) => `p.w[${a}][0] != 0.0`).join(' && ');
    blend = `if (!(${inside}) || !(${weight})) { return 0.0; }
  return load_x(base + ${offset});`;
  } else {
    const open = [];
    const close = [];
    for (let a = 0; a < rank; ++a) {
      const pad = '  '.repeat(a + 1);
      open.push(`${pad}for (var k${a} = 0; k${a} < ${k}; k${a}++) {`);
      open.push(`${pad}  let i${a} = p.idx[${a}][k${a}];`);
      if (!fold) open.push(`${pad}  if (i${a} < 0) { continue; }`);
      open.push(`${pad}  let o${a} = ${a === 0 ? 'base' : `o${a - 1}`} + u32(i${a}) * stride(${a});`);
      close.unshift(`${pad}}`);
    }
    const weights = Array.from({ length: rank }, (_, j) => `p.w[${rank - 1 - j}][k${rank - 1 - j}]`).join(' * ');
    const pad = '  '.repeat(rank + 1);
    blend = `var acc = 0.0;
${open.join('\n')}
${pad}acc = acc + (${weights}) * load_x(o${rank - 1});
${close.join('\n')}
  return acc;`;
  }
  const stores = {
    words: `let word = gid;
  if (word >= params.invocations) { return; }
  let total = params.n * params.c * params.out_spatial;
  var bits = 0u;
  for (var h = 0u; h < 2u; h++) {
    let e = 2u * word + h;
    if (e < total) {
      let point = e % params.out_spatial;
      let nc = e / params.out_spatial;
      let n = nc / params.c;
      let p = plan(n, point);
      var v = 0.0;
      if (p.finite) { v = blend(p, nc * params.in_spatial); }
      bits = bits | (f32_to_half(v) << (16u * h));
    }
  }
  y[word] = bits;`,
    pairs: `let q = gid;
  if (q >= params.invocations) { return; }
  let pairs = params.out_spatial / 2u;
  let point = 2u * (q % pairs);
  let ng = q / pairs;
  let n = ng / params.groups;
  let first = (ng % params.groups) * params.per_group;
  let p0 = plan(n, point);
  let p1 = plan(n, point + 1u);
  for (var c = first; c < min(first + params.per_group, params.c); c++) {
    let nc = n * params.c + c;
    var v0 = 0.0;
    var v1 = 0.0;
    if (p0.finite) { v0 = blend(p0, nc * params.in_spatial); }
    if (p1.finite) { v1 = blend(p1, nc * params.in_spatial); }
    y[(nc * params.out_spatial + point) / 2u] = f32_to_half(v0) | (f32_to_half(v1) << 16u);
  }`,
    points: `let q = gid;
  if (q >= params.invocations) { return; }
  let point = q % params.out_spatial;
  let ng = q / params.out_spatial;
  let n = ng / params.groups;
  let first = (ng % params.groups) * params.per_group;
  let p = plan(n, point);
  for (var c = first; c < min(first + params.per_group, params.c); c++) {
    let nc = n * params.c + c;
    var v = 0.0;
    if (p.finite) { v = blend(p, nc * params.in_spatial); }
    y[nc * params.out_spatial + point] = v;
  }`,
  };
  const store = stores[layout];
  return /* wgsl */ `// gridsample GridSample: rank ${rank}, ${mode}, ${padding}, align_corners ${align ? 1 : 0}, ${fold ? 'folded windows (fast planner)' : 'tap by tap (reference)'}, X ${xHalf ? 'float16' : 'float32'}, grid ${gridHalf ? 'float16' : 'float32'}, ${layout}
struct Params {
  n: u32, c: u32, out_spatial: u32, in_spatial: u32,
  invocations: u32, width: u32, groups: u32, per_group: u32,
  size: array<vec4<u32>, 2>,
  stride: array<vec4<u32>, 2>,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<${xHalf ? 'u32' : 'f32'}>;
@group(0) @binding(2) var<storage, read> grid: array<${gridHalf ? 'u32' : 'f32'}>;
@group(0) @binding(3) var<storage, read_write> y: array<${xHalf ? 'u32' : 'f32'}>;

const RANK = ${rank};
const TAPS = ${k};
fn size(a: u32) -> i32 { return i32(params.size[a / 4u][a % 4u]); }
fn stride(a: u32) -> u32 { return params.stride[a / 4u][a % 4u]; }
${FINITE}
${HALF}
${CUBIC}
${denormalise(align, padding === 'reflection')}
${reflectIndex(align)}
${axisTaps(mode)}
${padTaps(mode, padding, fold)}
${axisPlan('denormalise')}

fn load_x(i: u32) -> f32 { return ${loadX}; }
fn load_grid(i: u32, ok: ptr<function, bool>) -> f32 {
  ${loadG}
}

struct Plan {
  finite: bool,
  idx: array<array<i32, TAPS>, RANK>,
  w: array<array<f32, TAPS>, RANK>,
}

// Output point \`point\` of batch item n: its grid coordinates (innermost axis first in the grid),
// all finite or the point samples 0, then each axis's padded taps.
fn plan(n: u32, point: u32) -> Plan {
  var p: Plan;
  p.finite = true;
  var g: array<f32, RANK>;
  for (var a = 0u; a < ${rank}u; a++) {
    var ok = true;
    g[a] = load_grid((n * params.out_spatial + point) * ${rank}u + (${rank - 1}u - a), &ok);
    p.finite = p.finite && ok;
  }
  if (!p.finite) { return p; }
  for (var a = 0u; a < ${rank}u; a++) {
    var idx: array<i32, TAPS>;
    var wo: array<f32, TAPS>;
    axis_plan(g[a], size(a), &idx, &wo);
    p.idx[a] = idx;
    p.w[a] = wo;
  }
  return p;
}

// One channel's value at a planned point: base is the channel's first element in X.
fn blend(p: Plan, base: u32) -> f32 {
  ${blend}
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let gid = id.y * params.width + id.x;
  ${store}
}
`;
}
