// Building blocks of the test models written in code: seeded weights, a graph collector, and RT-DETR's multi-scale deformable attention (used by make_models.mjs and the transformers.js detector).

// --- deterministic weights ------------------------------------------------------------------

/** Numerical Recipes' 32-bit LCG; values in [0, 1). */
export function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** `n` float32 values uniform in (-bound, bound). */
export const uniform = (rnd, n, bound) => Float32Array.from({ length: n }, () => (2 * rnd() - 1) * bound);

// --- graph building -------------------------------------------------------------------------

/**
 * Collects nodes and initializers; node names are their first output's name (values are
 * written once, so names are unique).
 */
export function graph() {
  const nodes = [];
  const initializers = [];
  return {
    nodes,
    initializers,
    /** A node; returns its output name, or names when `outputs` is a list. */
    node(op, inputs, outputs, attrs = {}) {
      const outs = Array.isArray(outputs) ? outputs : [outputs];
      nodes.push({ op, inputs, outputs: outs, attrs, name: `${outs[0]}/${op}` });
      return outputs;
    },
    /** A float32 initializer. */
    f32(name, dims, data) {
      initializers.push({ name, dtype: 'float32', dims, data: data instanceof Float32Array ? data : Float32Array.from(data) });
      return name;
    },
    /** An int64 initializer (dims [] for a scalar). */
    i64(name, dims, values) {
      initializers.push({ name, dtype: 'int64', dims, data: BigInt64Array.from(values, BigInt) });
      return name;
    },
  };
}

/**
 * `g` seen from inside a block named `prefix` (one layer of a stack): values and initializers
 * are named by their local names, written to `g` as `${prefix}.${name}`, except the local names
 * of `outside` (local name -> `g`'s name), which the block reads from outside it. `name(local)`
 * is a local name's name in `g`.
 */
export function scope(g, prefix, outside = {}) {
  const name = (n) => outside[n] ?? `${prefix}.${n}`;
  return {
    name,
    node(op, inputs, outputs, attrs = {}) {
      g.node(op, inputs.map(name), Array.isArray(outputs) ? outputs.map(name) : name(outputs), attrs);
      return outputs;
    },
    f32: (n, dims, data) => (g.f32(name(n), dims, data), n),
    i64: (n, dims, values) => (g.i64(name(n), dims, values), n),
  };
}

/** nn.LayerNorm over the last axis (opset 17's LayerNormalization; weight 1, bias 0 as initialised); returns the output's name. */
export function layerNorm(g, name, x, dim) {
  g.f32(`${name}.weight`, [dim], new Float32Array(dim).fill(1));
  g.f32(`${name}.bias`, [dim], new Float32Array(dim));
  return g.node('LayerNormalization', [x, `${name}.weight`, `${name}.bias`], name, { axis: -1, epsilon: 1e-5 });
}

/** nn.Linear as MatMul with an (in, out) weight, then Add; returns the output's name. */
export function linear(g, rnd, name, x, cin, cout, { weight, bias } = {}) {
  const bound = 1 / Math.sqrt(cin);
  g.f32(`${name}.weight`, [cin, cout], weight ?? uniform(rnd, cin * cout, bound));
  g.f32(`${name}.bias`, [cout], bias ?? uniform(rnd, cout, bound));
  const m = g.node('MatMul', [x, `${name}.weight`], `${name}.matmul`);
  return g.node('Add', [m, `${name}.bias`], name);
}

// --- RT-DETR's deformable attention ---------------------------------------------------------

/**
 * sampling_offsets' bias as Deformable DETR, RT-DETR and D-FINE initialise it, (heads, L, points, 2):
 * head h looks along angle 2*pi*h/heads, point p at p+1 pixels of its level (the weights are
 * small, so offsets are a few pixels). `points`: per level, or a list of each level's
 * (D-FINE's num_points_list).
 */
export function offsetBias(heads, L, points) {
  const counts = Array.isArray(points) ? points : Array(L).fill(points);
  const bias = new Float32Array(heads * counts.reduce((a, b) => a + b, 0) * 2);
  let i = 0;
  for (let h = 0; h < heads; ++h) {
    const a = (2 * Math.PI * h) / heads;
    const m = Math.max(Math.abs(Math.cos(a)), Math.abs(Math.sin(a)));
    for (const n of counts) {
      for (let p = 0; p < n; ++p, i += 2) {
        bias[i] = (Math.cos(a) / m) * (p + 1);
        bias[i + 1] = (Math.sin(a) / m) * (p + 1);
      }
    }
  }
  return bias;
}

/**
 * MSDeformAttn of Deformable DETR / RT-DETR's decoder, added to `g`: `queries` queries of width
 * `dim` (value 'query', (1, Q, dim)) each sample `points` points per head on every level (H, W)
 * of `levels` around their reference point (value 'reference_points', (1, Q, 1, 2) in [0, 1]),
 * reading 'value' ((1, sum of H*W, dim)), one GridSample per level; writes 'output' (1, Q, dim).
 */
export function deformableAttention(g, rnd, { levels, heads, points, dim, queries }) {
  const HEAD_DIM = dim / heads;
  const Q = queries;
  const L = levels.length;

  // value_proj, then (1, LEN, heads, HEAD_DIM) split into levels, each (heads, HEAD_DIM, H_l, W_l).
  let value = linear(g, rnd, 'value_proj', 'value', dim, dim);
  g.i64('value_heads_shape', [4], [0, 0, heads, HEAD_DIM]);
  value = g.node('Reshape', [value, 'value_heads_shape'], 'value_heads');
  g.i64('level_sizes', [L], levels.map(([hh, ww]) => hh * ww));
  const levelValues = g.node('Split', [value, 'level_sizes'], levels.map((_, l) => `value_l${l}_flat`), { axis: 1 });

  let offsets = linear(g, rnd, 'sampling_offsets', 'query', dim, heads * L * points * 2, { bias: offsetBias(heads, L, points) });
  g.i64('offsets_shape', [6], [1, Q, heads, L, points, 2]);
  offsets = g.node('Reshape', [offsets, 'offsets_shape'], 'offsets');

  // attention_weights: softmax over the (level, point) pairs of each head.
  let attn = linear(g, rnd, 'attention_weights', 'query', dim, heads * L * points);
  g.i64('attn_shape', [4], [1, Q, heads, L * points]);
  attn = g.node('Reshape', [attn, 'attn_shape'], 'attn_logits');
  attn = g.node('Softmax', [attn], 'attn_softmax', { axis: -1 });
  // (1, Q, heads, L*points) -> (1, heads, Q, L*points) -> (heads, 1, Q, L*points)
  attn = g.node('Transpose', [attn], 'attn_heads', { perm: { ints: [0, 2, 1, 3] } });
  g.i64('attn_heads_shape', [4], [heads, 1, Q, L * points]);
  attn = g.node('Reshape', [attn, 'attn_heads_shape'], 'attn');

  // sampling_locations = reference_points[:, :, None, :, None, :] + offsets / [W_l, H_l].
  g.f32('offset_normalizer', [1, 1, 1, L, 1, 2], levels.flatMap(([hh, ww]) => [ww, hh]));
  g.i64('ref_shape', [6], [1, Q, 1, 1, 1, 2]);
  const ref = g.node('Reshape', ['reference_points', 'ref_shape'], 'ref');
  const scaled = g.node('Div', [offsets, 'offset_normalizer'], 'offsets_normalized');
  const loc = g.node('Add', [ref, scaled], 'sampling_locations');
  // grids = 2 * loc - 1, then (1, Q, heads, L, points, 2) -> (L, 1, heads, Q, points, 2) -> (L, heads, Q, points, 2).
  g.f32('two', [], [2]);
  g.f32('one', [], [1]);
  let grids = g.node('Sub', [g.node('Mul', [loc, 'two'], 'loc_x2'), 'one'], 'sampling_grids');
  grids = g.node('Transpose', [grids], 'grids_by_level', { perm: { ints: [3, 0, 2, 1, 4, 5] } });
  g.i64('grids_shape', [5], [L, heads, Q, points, 2]);
  grids = g.node('Reshape', [grids, 'grids_shape'], 'grids');

  // One GridSample per level: value_l (heads, HEAD_DIM, H_l, W_l), grid_l (heads, Q, points, 2) -> (heads, HEAD_DIM, Q, points).
  const sampled = levels.map(([hh, ww], l) => {
    g.i64(`level${l}`, [], [l]);
    const grid = g.node('Gather', [grids, `level${l}`], `grid_l${l}`, { axis: 0 });
    // (1, HW, heads, HEAD_DIM) -> (1, heads, HEAD_DIM, HW) -> (heads, HEAD_DIM, H, W)
    const v = g.node('Transpose', [levelValues[l]], `value_l${l}_t`, { perm: { ints: [0, 2, 3, 1] } });
    g.i64(`value_l${l}_shape`, [4], [heads, HEAD_DIM, hh, ww]);
    const vl = g.node('Reshape', [v, `value_l${l}_shape`], `value_l${l}`);
    return g.node('GridSample', [vl, grid], `sampled_l${l}`, { mode: 'bilinear', padding_mode: 'zeros', align_corners: 0 });
  });
  // Levels side by side, (heads, HEAD_DIM, Q, L*points) in (level, point) order as the attention weights.
  const stacked = g.node('Concat', sampled, 'sampled', { axis: 3 });
  const weighted = g.node('Mul', [stacked, attn], 'weighted');
  g.i64('sum_axes', [1], [3]);
  let out = g.node('ReduceSum', [weighted, 'sum_axes'], 'summed', { keepdims: 0 });
  g.i64('heads_merged_shape', [3], [1, dim, Q]);
  out = g.node('Reshape', [out, 'heads_merged_shape'], 'heads_merged');
  out = g.node('Transpose', [out], 'attended', { perm: { ints: [0, 2, 1] } });
  // output_proj writes 'output'.
  g.f32('output_proj.weight', [dim, dim], uniform(rnd, dim * dim, 1 / Math.sqrt(dim)));
  g.f32('output_proj.bias', [dim], uniform(rnd, dim, 1 / Math.sqrt(dim)));
  g.node('MatMul', [out, 'output_proj.weight'], 'output_proj.matmul');
  return g.node('Add', ['output_proj.matmul', 'output_proj.bias'], 'output');
}
