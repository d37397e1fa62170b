// A Deformable-DETR-shaped detector at any size (tiny_detector.mjs's detector scaled up: a backbone stand-in, a stack of deformable encoder layers over four levels, a stack of decoder layers with deformable cross-attention, a detection head), random seeded weights, as ONNX bytes for tiny_detector.mjs's writeDetectorFolder.
//
// Each layer's deformable attention is the chain transformers' PyTorch fallback exports (or
// RT-DETR's form, `form`), which js/onnx fuses: the model holds encoderLayers + decoderLayers
// chains. At the defaults (640x640, 6 + 6 layers, d_model 256, 8 heads, 4 points, FFN 1024, 300 queries)
// the encoder's queries are the 8,500 pixels of its levels 80x80, 40x40, 20x20 and 10x10.
import { torchAttentionChain } from './attention_graphs.mjs';
import { deformableAttention, graph, layerNorm, lcg, linear, offsetBias, scope, uniform } from './model_graph.mjs';
import { encodeModel } from './onnx_model.mjs';
import { encoderLevels } from './deformable_blocks.mjs';
import { LABELS } from './tiny_detector.mjs';

const PRODUCER = 'gridsample tests/js/lib/deformable_detr.mjs';

/**
 * The deformable attention's graph form, by `form`: 'transformers' (Deformable DETR's module as
 * transformers exports it: attention_graphs.mjs's chain) or 'rt_detr' (model_graph.mjs's block,
 * one GridSample per level of a grid tensor with the levels first).
 */
const ATTENTION = { transformers: msDeformAttn, rt_detr: deformableAttention };

/** The full-size shapes; a test passes smaller ones. */
export const DETR_SHAPES = { size: 640, encoderLayers: 6, decoderLayers: 6, queries: 300, dim: 256, heads: 8, points: 4, ffn: 1024 };

// DETR's sine position embedding of every level's pixels, (1, S, dim): y in the first half of
// the channels, x in the second, sin and cos interleaved, temperature 10000.
function sinePositions(levels, dim) {
  const half = dim / 2;
  const S = levels.reduce((s, [h, w]) => s + h * w, 0);
  const pos = new Float32Array(S * dim);
  let row = 0;
  for (const [H, W] of levels) {
    for (let y = 0; y < H; ++y) {
      for (let x = 0; x < W; ++x, ++row) {
        for (let c = 0; c < half; ++c) {
          const t = 10000 ** ((2 * Math.floor(c / 2)) / half);
          const [py, px] = [((y + 0.5) / H) * 2 * Math.PI / t, ((x + 0.5) / W) * 2 * Math.PI / t];
          pos[row * dim + c] = c % 2 ? Math.cos(py) : Math.sin(py);
          pos[row * dim + half + c] = c % 2 ? Math.cos(px) : Math.sin(px);
        }
      }
    }
  }
  return pos;
}

// The encoder's reference points, (1, S, 1, 2): every level pixel's centre, (x, y) in [0, 1].
function pixelCentres(levels) {
  return Float32Array.from(levels.flatMap(([H, W]) => Array.from({ length: H * W }, (_, i) => [((i % W) + 0.5) / W, (Math.floor(i / W) + 0.5) / H]).flat()));
}

// Deformable DETR's MSDeformAttn as transformers writes it (value_proj, sampling_offsets and
// attention_weights around its PyTorch fallback, multi_scale_deformable_attention, then
// output_proj), added to scope `s`: reads 'query', 'value', 'reference_points' (1, Q, 1, 2),
// returns the output's local name.
function msDeformAttn(s, rnd, { levels, heads: M, points: P, dim, queries: Q }) {
  const [L, D] = [levels.length, dim / M];
  s.node('Reshape', [linear(s, rnd, 'value_proj', 'value', dim, dim), s.i64('value_heads_shape', [4], [1, -1, M, D])], 'value_heads');
  const offsets = s.node('Reshape', [linear(s, rnd, 'sampling_offsets', 'query', dim, M * L * P * 2, { bias: offsetBias(M, L, P) }),
    s.i64('offsets_shape', [6], [1, Q, M, L, P, 2])], 'offsets');
  // reference_points[:, :, None, :, None, :] + offsets / offset_normalizer[None, None, None, :, None, :]
  const ref = s.node('Reshape', ['reference_points', s.i64('ref_shape', [6], [1, Q, 1, 1, 1, 2])], 'ref');
  const scaled = s.node('Div', [offsets, s.f32('offset_normalizer', [1, 1, 1, L, 1, 2], levels.flatMap(([h, w]) => [w, h]))], 'offsets_normalized');
  s.node('Add', [ref, scaled], 'sampling_locations');
  s.node('Reshape', [linear(s, rnd, 'attention_weights', 'query', dim, M * L * P), s.i64('attn_shape', [4], [1, Q, M, L * P])], 'attention_logits');
  const a = scope(s, 'attn', { value: 'value_heads', sampling_locations: 'sampling_locations', attention_logits: 'attention_logits' });
  const out = a.name(torchAttentionChain(a, { Lq: Q, M, D, P, levels }));
  return linear(s, rnd, 'output_proj', out, dim, dim);
}

// The FFN and its residual and norm: linear, ReLU, linear, Add, LayerNorm; returns the output.
function feedForward(s, rnd, x, dim, ffn, out) {
  const h = s.node('Relu', [linear(s, rnd, 'linear1', x, dim, ffn)], 'ffn_relu');
  return layerNorm(s, out, s.node('Add', [x, linear(s, rnd, 'linear2', h, ffn, dim)], 'ffn_residual'), dim);
}

// A Deformable-DETR encoder layer (post-norm): src + deformable self-attention of src + pos
// over src, LayerNorm, FFN.
function encoderLayer(g, rnd, i, { src, pos, ref, levels, S, dim, heads, points, ffn, form }) {
  const s = scope(g, `encoder.layers.${i}`, { src, pos, value: src, reference_points: ref });
  s.node('Add', ['src', 'pos'], 'query');
  const attended = ATTENTION[form](s, rnd, { levels, heads, points, dim, queries: S });
  const norm1 = layerNorm(s, 'norm1', s.node('Add', ['src', attended], 'attn_residual'), dim);
  return s.name(feedForward(s, rnd, norm1, dim, ffn, 'out'));
}

// A decoder layer: a one-head self-attention of the queries (the simplification of this model),
// LayerNorm, deformable cross-attention of tgt + query_pos over the memory, LayerNorm, FFN.
function decoderLayer(g, rnd, i, { tgt, queryPos, ref, memory, levels, Q, dim, heads, points, ffn, form }) {
  const s = scope(g, `decoder.layers.${i}`, { tgt, query_pos: queryPos, value: memory, reference_points: ref });
  const qk = s.node('Add', ['tgt', 'query_pos'], 'self_qk');
  const q = linear(s, rnd, 'self_attn.q_proj', qk, dim, dim);
  const kT = s.node('Transpose', [linear(s, rnd, 'self_attn.k_proj', qk, dim, dim)], 'self_attn.k_t', { perm: { ints: [0, 2, 1] } });
  s.f32('self_attn.scale', [], [1 / Math.sqrt(dim)]);
  const scores = s.node('Mul', [s.node('MatMul', [q, kT], 'self_attn.qk'), 'self_attn.scale'], 'self_attn.scores');
  const weights = s.node('Softmax', [scores], 'self_attn.weights', { axis: -1 });
  const mixed = s.node('MatMul', [weights, linear(s, rnd, 'self_attn.v_proj', 'tgt', dim, dim)], 'self_attn.mixed');
  const selfOut = linear(s, rnd, 'self_attn.out_proj', mixed, dim, dim);
  const norm1 = layerNorm(s, 'norm1', s.node('Add', ['tgt', selfOut], 'self_residual'), dim);
  s.node('Add', [norm1, 'query_pos'], 'query');
  const attended = ATTENTION[form](s, rnd, { levels, heads, points, dim, queries: Q });
  const norm2 = layerNorm(s, 'norm2', s.node('Add', [norm1, attended], 'cross_residual'), dim);
  return s.name(feedForward(s, rnd, norm2, dim, ffn, 'out'));
}

/**
 * The detector as ONNX bytes (opset 17): `pixel_values` (1, 3, size, size) to `logits`
 * (1, queries, 4) and `pred_boxes` (1, queries, 4), (cx, cy, w, h) in [0, 1], as
 * tiny_detector.mjs's detectorModel. `size` a multiple of 64 (levels size/8 to size/64).
 * `encoderOnly`: the backbone and encoder alone, their output the encoder's memory (1, S, dim);
 * `form`: the attention's graph form, a key of ATTENTION.
 */
export function detrModel(options = {}) {
  const { size, encoderLayers, decoderLayers, queries: Q, dim, heads, points, ffn, seed = 31, encoderOnly = false, form = 'transformers' } = { ...DETR_SHAPES, ...options };
  if (size % 64) throw new RangeError(`detrModel: size ${size} is not a multiple of 64`);
  if (!ATTENTION[form]) throw new RangeError(`detrModel: form ${form}: expected ${Object.keys(ATTENTION).join(' or ')}`);
  const g = graph();
  const rnd = lcg(seed);
  const levels = encoderLevels(size, size);
  const S = levels.reduce((s, [h, w]) => s + h * w, 0);
  // Backbone stand-in: patchify by 8, then halve three times: the four levels, flattened and
  // side by side as src (1, S, dim).
  const conv = (name, x, cin, k) => {
    const bound = 1 / Math.sqrt(cin * k * k);
    g.f32(`${name}.weight`, [dim, cin, k, k], uniform(rnd, dim * cin * k * k, bound));
    g.f32(`${name}.bias`, [dim], uniform(rnd, dim, bound));
    return g.node('Relu', [g.node('Conv', [x, `${name}.weight`, `${name}.bias`], `${name}.conv`, { kernel_shape: { ints: [k, k] }, strides: { ints: [k, k] } })], name);
  };
  const features = [conv('backbone.0', 'pixel_values', 3, 8)];
  for (let l = 1; l < levels.length; ++l) features.push(conv(`backbone.${l}`, features[l - 1], dim, 2));
  g.i64('flatten_shape', [3], [1, dim, -1]);
  const flat = features.map((f, l) => g.node('Transpose', [g.node('Reshape', [f, 'flatten_shape'], `features_l${l}_flat`)], `features_l${l}_seq`, { perm: { ints: [0, 2, 1] } }));
  let src = g.node('Concat', flat, 'src', { axis: 1 });
  const pos = g.f32('pos_embed', [1, S, dim], sinePositions(levels, dim));
  const encoderRef = g.f32('encoder_reference_points', [1, S, 1, 2], pixelCentres(levels));
  for (let i = 0; i < encoderLayers; ++i) src = encoderLayer(g, rnd, i, { src, pos, ref: encoderRef, levels, S, dim, heads, points, ffn, form });
  if (encoderOnly) {
    return encodeModel({
      opset: 17, name: 'deformable_detr_encoder', producer: PRODUCER, nodes: g.nodes, initializers: g.initializers,
      inputs: [{ name: 'pixel_values', dtype: 'float32', dims: [1, 3, size, size] }],
      outputs: [{ name: src, dtype: 'float32', dims: [1, S, dim] }],
    });
  }
  // Decoder: learned query positions and content, reference points from the positions.
  const queryPos = g.f32('query_pos', [1, Q, dim], uniform(rnd, Q * dim, 1));
  let tgt = g.f32('tgt', [1, Q, dim], uniform(rnd, Q * dim, 1));
  g.i64('ref_points_shape', [4], [1, Q, 1, 2]);
  const ref = g.node('Reshape', [g.node('Sigmoid', [linear(g, rnd, 'ref_head', queryPos, dim, 2)], 'ref_sigmoid'), 'ref_points_shape'], 'decoder_reference_points');
  for (let i = 0; i < decoderLayers; ++i) tgt = decoderLayer(g, rnd, i, { tgt, queryPos, ref, memory: src, levels, Q, dim, heads, points, ffn, form });
  // Detection head: class logits (scaled so that some queries pass a threshold) and boxes.
  linear(g, rnd, 'logits', tgt, dim, LABELS.length, { weight: uniform(rnd, dim * LABELS.length, 4 / Math.sqrt(dim)) });
  g.node('Sigmoid', [linear(g, rnd, 'box_head', tgt, dim, 4)], 'pred_boxes');
  return encodeModel({
    opset: 17,
    name: 'deformable_detr',
    producer: PRODUCER,
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [{ name: 'pixel_values', dtype: 'float32', dims: [1, 3, size, size] }],
    outputs: [
      { name: 'logits', dtype: 'float32', dims: [1, Q, LABELS.length] },
      { name: 'pred_boxes', dtype: 'float32', dims: [1, Q, 4] },
    ],
  });
}
