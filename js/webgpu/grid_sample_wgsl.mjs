// The GridSample compute shader for one (rank, mode, padding, align, dtypes), assembled from wgsl_rules.mjs: a plan per output point (each axis's taps folded into a window and their weights, once), then a blend per channel summing the taps innermost axis fastest, in the CPU's order.
import { axisPlan, axisTaps, CUBIC, denormalise, FINITE, HALF, padTaps, reflectIndex, TAPS, tapWeights } from './wgsl_rules.mjs';

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
 * Taps of the window's innermost axes that plan and blend unroll (4 x 4 cubic, 2^4 linear): a
 * window with more (cubic from 3-D on, linear from 5-D on) loops over its outer axes around them,
 * since each unrolled tap is a load site of its own for the driver to compile.
 */
export const STRAIGHT_TAPS = 16;

// The grid coordinates of output point `point` of batch item n (innermost axis first in the
// grid) as g0 .. g{rank - 1} (axis 0 outermost), p.finite whether all are finite.
const loadCoordinates = (rank) => `let at = (n * params.out_spatial + point) * ${rank}u;
${Array.from({ length: rank }, (_, a) => `  var ok${a} = true;
  let g${a} = load_grid(at + ${rank - 1 - a}u, &ok${a});`).join('\n')}
  p.finite = ${Array.from({ length: rank }, (_, a) => `ok${a}`).join(' && ')};
  if (!p.finite) { return p; }`;

const PLAN_HEAD = `// Output point \`point\` of batch item n: its grid coordinates, all finite or the point samples
// 0, then each axis's padded taps`;

// Nearest: the one tap's offset, and whether it is read (weight not 0: zeros padding kept it).
function nearestPlan(rank) {
  const axes = Array.from({ length: rank }, (_, a) => a);
  return {
    planCode: `struct Plan { finite: bool, o0: u32 }
${PLAN_HEAD}, and whether the tap is read.
fn plan(n: u32, point: u32) -> Plan {
  var p: Plan;
  ${loadCoordinates(rank)}
${axes.map((a) => `  let a${a} = axis_plan(g${a}, size(${a}u));`).join('\n')}
  p.finite = ${axes.map((a) => `a${a}.w0 != 0.0`).join(' && ')};
  p.o0 = ${axes.map((a) => `u32(a${a}.i0) * stride(${a}u)`).join(' + ')};
  return p;
}`,
    blendCode: 'return load_x(base + p.o0);',
  };
}

/**
 * Plan and blend without an array, unrolled by the window taps of the innermost axes (at most
 * STRAIGHT_TAPS; the windows lie inside X, padTaps): per such tap its weight (tapWeights: the
 * product of those axes' weights, once per point, not per channel) and its element offset. The
 * blend sums the taps in the CPU's order (axis 0 outermost, each tap's weight times its value
 * added to 0 in turn). Outer axes, where the window has more taps, keep their windows in the plan
 * (Axis structs) and the blend loops over them, picking a tap's index and weight by selects, and
 * continues each weight's product outwards as the CPU does (((w_inner ...) w_a) ... w_0).
 */
function unrolledPlan(rank, k) {
  let inner = 1;
  while (inner < rank && k ** (inner + 1) <= STRAIGHT_TAPS) inner += 1;
  const outer = rank - inner;
  const axes = Array.from({ length: rank }, (_, a) => a);
  const innerAxes = axes.slice(outer);
  const { lines, taps } = tapWeights(inner, k, (a, j) => `a${outer + a}.w${j}`);
  const offset = (d) => innerAxes.map((a) => `d${a}_${d[a - outer]}`).join(' + ');
  const sets = taps.map(({ t, digits, weight }) => `  p.w${t} = ${weight};
  p.o${t} = ${offset(digits)};`);
  // The blend: loops over the outer axes (none where the window is unrolled whole), each
  // axis's offset added once, then the unrolled taps.
  const open = [];
  const close = [];
  for (let a = 0; a < outer; ++a) {
    const pad = '  '.repeat(a + 1);
    open.push(`${pad}for (var k${a} = 0; k${a} < ${k}; k${a}++) {`,
      `${pad}  let i${a} = tap_index(p.a${a}, k${a});`,
      `${pad}  let w${a} = tap_weight(p.a${a}, k${a});`,
      `${pad}  let o${a} = ${a === 0 ? 'base' : `o${a - 1}`} + u32(i${a}) * stride(${a}u);`);
    close.unshift(`${pad}}`);
  }
  const pad = '  '.repeat(outer + 1);
  const at = outer ? `o${outer - 1}` : 'base';
  const weight = (t) => [`p.w${t}`, ...axes.slice(0, outer).reverse().map((a) => `w${a}`)].join(' * ');
  const term = (t) => `acc + ${outer ? `(${weight(t)})` : weight(t)} * load_x(${at} + p.o${t})`;
  const sum = (t) => `acc = ${term(t)};`;
  const pick = (type, field) => `fn tap_${field === 'i' ? 'index' : 'weight'}(a: Axis, k: i32) -> ${type} {
  return ${Array.from({ length: k - 1 }, () => 'select(').join('')}a.${field}0, ${Array.from({ length: k - 1 }, (_, j) => `a.${field}${j + 1}, k == ${j + 1})`).join(', ')};
}`;
  // Empty lines out (no outer axes: no loops, no Axis fields).
  const tidy = (code) => code.replace(/\n(?=\n)/g, '');
  return {
    planCode: tidy(`struct Plan {
  finite: bool,
  ${[...axes.slice(0, outer).map((a) => `a${a}: Axis,`), ...taps.map(({ t }) => `w${t}: f32, o${t}: u32,`)].join('\n  ')}
}
${outer ? `// Tap k of a planned axis, without an array.
${pick('i32', 'i')}
${pick('f32', 'w')}
` : ''}${PLAN_HEAD}, and per tap of the innermost axes its weight and offset.
fn plan(n: u32, point: u32) -> Plan {
  var p: Plan;
  ${loadCoordinates(rank)}
${axes.map((a) => `  let a${a} = axis_plan(g${a}, size(${a}u));`).join('\n')}
${axes.slice(0, outer).map((a) => `  p.a${a} = a${a};`).join('\n')}
  ${lines.join('\n  ')}
${innerAxes.flatMap((a) => Array.from({ length: k }, (_, j) => `  let d${a}_${j} = u32(a${a}.i${j}) * stride(${a}u);`)).join('\n')}
${sets.join('\n')}
  return p;
}`),
    blendCode: tidy(`var acc = 0.0;
${open.join('\n')}
${pad}${taps.map(({ t }) => sum(t)).join(`\n${pad}`)}
${close.join('\n')}
  return acc;`),
  };
}

/**
 * WGSL for GridSample of spatial rank `rank`, its taps folded into windows as the CPU folds them
 * (padTaps). `xHalf` / `gridHalf`: float16 storage (packed u32 words), computed in float32 as the
 * CPU does. `layout`: how invocations share the output (gridSampleLayout).
 */
export function gridSampleWgsl({ rank, mode, padding, align, xHalf, gridHalf, layout }) {
  const k = TAPS[mode];
  const loadX = xHalf ? 'half_to_f32(half_bits(x[i >> 1u], i))' : 'x[i]';
  const loadG = gridHalf
    ? `let h = half_bits(grid[i >> 1u], i);
  *ok = finite_f16(h);
  return half_to_f32(h);`
    : `let v = grid[i];
  *ok = finite_f32(bitcast<u32>(v));
  return v;`;
  const { planCode, blendCode } = mode === 'nearest' ? nearestPlan(rank) : unrolledPlan(rank, k);
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
  return /* wgsl */ `// gridsample GridSample: rank ${rank}, ${mode}, ${padding}, align_corners ${align ? 1 : 0}, X ${xHalf ? 'float16' : 'float32'}, grid ${gridHalf ? 'float16' : 'float32'}, ${layout}
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

fn size(a: u32) -> i32 { return i32(params.size[a / 4u][a % 4u]); }
fn stride(a: u32) -> u32 { return params.stride[a / 4u][a % 4u]; }
${FINITE}
${HALF}
${CUBIC}
${denormalise(align, padding === 'reflection')}
${reflectIndex(align)}
${axisTaps(mode)}
${padTaps(mode, padding)}
${axisPlan('denormalise')}

fn load_x(i: u32) -> f32 { return ${loadX}; }
fn load_grid(i: u32, ok: ptr<function, bool>) -> f32 {
  ${loadG}
}

${planCode}

// One channel's value at a planned point: base is the channel's first element in X.
fn blend(p: Plan, base: u32) -> f32 {
  ${blendCode}
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let gid = id.y * params.width + id.x;
  ${store}
}
`;
}
