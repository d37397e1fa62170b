// The AffineGrid compute shader: PyTorch's base coordinates and theta's products summed in the reference's order (src/kernels/reference/affine_grid_ref.cc), in double-float arithmetic (pairs of float32, about 44 bits) since WGSL has no float64, rounded once to the output type.
import { DOUBLE_FLOAT, FINITE, HALF } from './wgsl_rules.mjs';
import { WORKGROUP } from './grid_sample_wgsl.mjs';

/** The uniform block's u32 words: n, rank, spatial sizes (D, H, W; 1 for a 2-D D), invocations, dispatch width. */
export const AFFINE_PARAMS_WORDS = 8;

/** The Params words of one AffineGrid call; `spatial` outermost first (H, W or D, H, W). */
export function affineGridParams({ n, spatial, invocations, width }) {
  const [d, h, w] = spatial.length === 3 ? spatial : [1, ...spatial];
  return new Uint32Array([n, d, h, w, invocations, width, 0, 0]);
}

/**
 * WGSL for AffineGrid of spatial rank `rank` (2 or 3). `half`: theta and the grid are float16
 * (packed u32 words; one invocation per word of two values), else float32 (one per value).
 */
export function affineGridWgsl({ rank, align, half }) {
  const loadTheta = half ? 'half_to_f32(half_bits(theta[i >> 1u], i))' : 'theta[i]';
  // Base coordinate of pixel i on an axis of s pixels: (2i + 1 - s) / s (align 0) or
  // (2i - (s - 1)) / (s - 1) (align 1); 0 on a size-1 axis.
  const base = align
    ? 'df_div(f32(2 * i) - f32(s - 1), f32(s - 1))'
    : 'df_div(f32(2 * i + 1) - f32(s), f32(s))';
  const zTerm = rank === 3 ? '\n  v = df_add(v, df_mul(base_coordinate(z, params.d), th(n, k, 2u)));' : '';
  const store = half
    ? `if (gid >= params.invocations) { return; }
  let total = params.n * params.d * params.h * params.w * ${rank}u;
  var bits = 0u;
  for (var h = 0u; h < 2u; h++) {
    let e = 2u * gid + h;
    if (e < total) { bits = bits | (f32_to_half(round_to_odd(value(e))) << (16u * h)); }
  }
  grid[gid] = bits;`
    : `if (gid >= params.invocations) { return; }
  grid[gid] = nearest(value(gid));`;
  return /* wgsl */ `// gridsample AffineGrid: rank ${rank}, align_corners ${align ? 1 : 0}, ${half ? 'float16' : 'float32'}
struct Params { n: u32, d: u32, h: u32, w: u32, invocations: u32, width: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> theta: array<${half ? 'u32' : 'f32'}>;
@group(0) @binding(2) var<storage, read_write> grid: array<${half ? 'u32' : 'f32'}>;
${FINITE}
${HALF}
${DOUBLE_FLOAT}

fn base_coordinate(i_in: u32, s_in: u32) -> vec2<f32> {
  if (s_in == 1u) { return vec2<f32>(0.0, 0.0); }
  let i = i32(i_in);
  let s = i32(s_in);
  return ${base};
}
fn th(n: u32, k: u32, j: u32) -> f32 {
  let i = (n * ${rank}u + k) * ${rank + 1}u + j;
  return ${loadTheta};
}

// Element e of the grid (N, [D,] H, W, ${rank}): coordinate k of one point, the sum
// 0 + t[k][0] x + t[k][1] y [+ t[k][2] z] + t[k][${rank}] in the reference's order.
fn value(e: u32) -> vec2<f32> {
  let k = e % ${rank}u;
  var point = e / ${rank}u;
  let x = point % params.w;
  point = point / params.w;
  let y = point % params.h;
  point = point / params.h;
  let z = point % params.d;
  let n = point / params.d;
  var v = df_mul(base_coordinate(x, params.w), th(n, k, 0u));
  v = df_add(v, df_mul(base_coordinate(y, params.h), th(n, k, 1u)));${zTerm}
  return df_add(v, vec2<f32>(th(n, k, ${rank}u), 0.0));
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let gid = id.y * params.width + id.x;
  ${store}
}
`;
}
