// The MultiScaleDeformableAttention compute shader (DESIGN.md section 12): one invocation per group of output channels of one (n, query, head), each point's bilinear taps (or its one discrete pixel) planned once (wgsl_rules.mjs's rules) and blended into every channel of the group, in the reference's order (src/kernels/reference/deformable_attention_ref.cc).
import { axisPlan, axisTaps, DISCRETE_TAP, FINITE, HALF, padTaps, tapWeights, UNIT_PIXEL } from './wgsl_rules.mjs';
import { WORKGROUP } from './grid_sample_wgsl.mjs';

/**
 * Output elements an invocation computes: consecutive channels of one (n, query, head) row (of
 * two or more rows where D is not a multiple of it: each row planned apart). Even, so that a
 * float16 output's u32 words are never shared by two invocations.
 */
export const GROUP = 8;

/** The uniform block's u32 words (see deformableAttentionParams). */
export const ATTENTION_PARAMS_WORDS = 12;

/**
 * The Params words of one call: output elements, invocations, the dispatch's width in
 * invocations, D, M, Lq, S, L, and the points of one (n, query, head) (sum of P_l).
 */
export function deformableAttentionParams({ total, invocations, width, channels, heads, queries, s, levels, points }) {
  const words = new Uint32Array(ATTENTION_PARAMS_WORDS);
  words.set([total, invocations, width, channels, heads, queries, s, levels, points]);
  return words;
}

/**
 * The levels' storage: per level (H, W, first row of S, P_l) as u32s, from core/deformable_levels
 * .mjs's values; P_l is `points` for every level where given, else the values' points per level.
 * Only for a call that has output (then the value is bound whole, so S and every H * W fit a u32,
 * and the locations every sum of P_l).
 */
export function levelTable(count, values, points) {
  const table = new Uint32Array(4 * count);
  for (let l = 0; l < count; ++l) {
    const p = points ?? Number(values[3 * count + l]);
    table.set([Number(values[2 * l]), Number(values[2 * l + 1]), Number(values[2 * count + l]), p], 4 * l);
  }
  return table;
}

/**
 * WGSL for one combination of storage types: `valueHalf` (value and output), `locHalf`
 * (sampling locations), `weightHalf` (attention weights): float16 as packed u32 words read and
 * written on the bits (wgsl_rules.mjs HALF), float32 otherwise; every sum in float32, the output
 * rounded once. `discrete`: each point reads its one pixel (DeformableSampling::kDiscrete).
 */
export function deformableAttentionWgsl({ valueHalf, locHalf, weightHalf, discrete }) {
  // The group's channels unrolled (k0 <= k < k1 of them in use): s0.. a point's sample, the
  // fields c0.. of Acc the row's sums, never an array indexed by a loop variable.
  const channels = (f, sep = '\n') => Array.from({ length: GROUP }, (_, k) => f(k)).join(sep);
  const inUse = (k) => `use${k}`;
  // One point's sample of channels k0..k1 into s: the bilinear taps (rows outermost, weights
  // wx * wy multiplied once per tap, taps outside the level skipped), or the discrete pixel.
  const { lines, taps } = tapWeights(2, 2, (a, j) => (a === 0 ? `ay.w${j}` : `ax.w${j}`));
  const add = (weight) => channels((k) => `          if (${inUse(k)}) { s${k} = s${k} + ${weight}load_value(tap + ${k}u); }`);
  const sample = discrete
    ? `var col = 0u;
        var line = 0u;
        discrete_tap(u, v, level.x, level.y, &col, &line);
        let tap = head + (level.z + line * level.y + col) * pixel;
${add('').replace(/^ {2}/gm, '')}`
    : `let ax = axis_plan(u, w);
        let ay = axis_plan(v, h);
        ${lines.join('\n        ')}
${taps.map(({ digits: [y, x], weight }) => `        if ((ay.i${y} | ax.i${x}) >= 0) {
          let tap = head + (level.z + u32(ay.i${y}) * level.y + u32(ax.i${x})) * pixel;
${add(`${weight} * `)}
        }`).join('\n')}`;
  const word = (half) => (half ? 'u32' : 'f32');
  const loadLoc = locHalf
    ? `let h = half_bits(loc[i >> 1u], i);
  *ok = finite_f16(h);
  return half_to_f32(h);`
    : `let v = loc[i];
  *ok = finite_f32(bitcast<u32>(v));
  return v;`;
  const store = valueHalf
    ? channels((k) => (k % 2 ? '' : `if (first + ${k}u < last) {
    var bits = f32_to_half(acc.c${k});
    if (first + ${k + 1}u < last) { bits = bits | (f32_to_half(acc.c${k + 1}) << 16u); }
    y[(first + ${k}u) >> 1u] = bits;
  }`), '').replace(/}if/g, '}\n  if')
    : channels((k) => `if (first + ${k}u < last) { y[first + ${k}u] = acc.c${k}; }`, '\n  ');
  return /* wgsl */ `// gridsample MultiScaleDeformableAttention (${discrete ? 'discrete' : 'bilinear'}): value ${valueHalf ? 'float16' : 'float32'}, sampling_locations ${locHalf ? 'float16' : 'float32'}, attention_weights ${weightHalf ? 'float16' : 'float32'}
struct Params {
  total: u32, invocations: u32, width: u32, channels: u32,
  heads: u32, queries: u32, s: u32, levels: u32,
  points: u32, pad0: u32, pad1: u32, pad2: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> value: array<${word(valueHalf)}>;
@group(0) @binding(2) var<storage, read> loc: array<${word(locHalf)}>;
@group(0) @binding(3) var<storage, read> weights: array<${word(weightHalf)}>;
@group(0) @binding(4) var<storage, read> levels: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> y: array<${word(valueHalf)}>;

const GROUP = ${GROUP}u;
struct Acc { ${channels((k) => `c${k}: f32`, ', ')} }
${FINITE}
${HALF}
${UNIT_PIXEL}
${axisTaps('linear')}
${padTaps('linear', 'zeros', false)}
${axisPlan('unit_pixel')}
${DISCRETE_TAP}

fn load_value(i: u32) -> f32 { return ${valueHalf ? 'half_to_f32(half_bits(value[i >> 1u], i))' : 'value[i]'}; }
fn load_weight(i: u32) -> f32 { return ${weightHalf ? 'half_to_f32(half_bits(weights[i >> 1u], i))' : 'weights[i]'}; }
fn load_loc(i: u32, ok: ptr<function, bool>) -> f32 {
  ${loadLoc}
}

// Adds row \`row\`'s (n, q, m) channels c0 + k - k0 for k in [k0, k1) into acc.c<k>: per level and
// each of its level.w points, its sample (taps row by row, weights wx * wy, taps outside the
// level skipped; or the discrete pixel; 0 for a non-finite location) times its attention
// weight, as the reference sums them.
fn attend(row: u32, c0: u32, k0: u32, k1: u32, acc: ptr<function, Acc>) {
  let m = row % params.heads;
  let n = row / params.heads / params.queries;
  let pixel = params.heads * params.channels;           // elements from one row of S to the next
  let head = (n * params.s * params.heads + m) * params.channels + c0 - k0;  // + k: channel k's
  var j = row * params.points;                          // the row's first point
  // Channel k in use: not an && (a branch of its own).
  ${channels((k) => `let use${k} = (${k}u >= k0) & (${k}u < k1);`, '\n  ')}
  for (var l = 0u; l < params.levels; l++) {
    let level = levels[l];
    let h = i32(level.x);
    let w = i32(level.y);
    for (var p = 0u; p < level.w; p++) {
      var ok_x = true;
      var ok_y = true;
      let u = load_loc(2u * j, &ok_x);
      let v = load_loc(2u * j + 1u, &ok_y);
      let a = load_weight(j);
      // Zeroed explicitly: Dawn on SwiftShader (Node's and Chromium's) kept a loop body's var
      // declared without an initializer from one iteration to the next (the points' samples
      // added up; webgpu_chromium.test.mjs fails without it).
      ${channels((k) => `var s${k} = 0.0;`, '\n      ')}
      if (ok_x && ok_y) {
        ${sample}
      }
      ${channels((k) => `if (${inUse(k)}) { (*acc).c${k} = (*acc).c${k} + a * s${k}; }`, '\n      ')}
      j++;
    }
  }
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let gid = id.y * params.width + id.x;
  if (gid >= params.invocations) { return; }
  let first = gid * GROUP;
  let last = min(first + GROUP, params.total);
  var acc = Acc();
  // The group's elements row by row (one row unless D is not a multiple of GROUP).
  var e = first;
  loop {
    if (e >= last) { break; }
    let c0 = e % params.channels;
    let end = min(last, e - c0 + params.channels);
    attend(e / params.channels, c0, e - first, end - first, &acc);
    e = end;
  }
  ${store}
}
`;
}
