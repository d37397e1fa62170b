// A tiny RT-DETR-shaped detector (a backbone stand-in, multi-scale deformable attention with one GridSample per level, a detection head) written as a transformers.js model folder: config.json, preprocessor_config.json and onnx/model.onnx.
//
// The weights are random (seeded): the model detects nothing real, but every stage of
// transformers.js's object-detection pipeline runs on it as on RT-DETR: the processor resizes
// and rescales the image to `pixel_values`, the model returns `logits` and `pred_boxes`, and the
// post-processing keeps the queries whose softmax score passes the threshold.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { deformableAttention, graph, lcg, linear, uniform } from './model_graph.mjs';
import { encodeModel } from './onnx_model.mjs';

export const LABELS = ['cat', 'dog', 'bird', 'no-object']; // the last is the background class

/** The detectors of transformers.js's object-detection pipeline whose model this stands for, by model_type. */
export const DETECTORS = {
  rt_detr: 'RTDetrForObjectDetection',
  rt_detr_v2: 'RTDetrV2ForObjectDetection',
  d_fine: 'DFineForObjectDetection',
  rf_detr: 'RFDetrForObjectDetection',
};

/**
 * The detector as ONNX bytes: `pixel_values` (1, 3, size, size) to `logits` (1, queries, 4)
 * and `pred_boxes` (1, queries, 4) in (cx, cy, w, h) in [0, 1]. Levels are size/8, /16, /32.
 */
export function detectorModel({ size = 64, queries = 24, dim = 32, heads = 4, points = 2, seed = 29 } = {}) {
  const g = graph();
  const rnd = lcg(seed);
  const levels = [8, 16, 32].map((s) => [size / s, size / s]);
  const conv = (name, x, cin, k) => {
    const bound = 1 / Math.sqrt(cin * k * k);
    g.f32(`${name}.weight`, [dim, cin, k, k], uniform(rnd, dim * cin * k * k, bound));
    g.f32(`${name}.bias`, [dim], uniform(rnd, dim, bound));
    const y = g.node('Conv', [x, `${name}.weight`, `${name}.bias`], `${name}.conv`, { kernel_shape: { ints: [k, k] }, strides: { ints: [k, k] } });
    return g.node('Relu', [y], name);
  };
  // Backbone stand-in: patchify by 8, then halve twice: the three feature levels.
  const features = [conv('backbone.0', 'pixel_values', 3, 8)];
  features.push(conv('backbone.1', features[0], dim, 2));
  features.push(conv('backbone.2', features[1], dim, 2));
  // value: the levels flattened and side by side, (1, sum of H*W, dim).
  const flat = features.map((f, l) => {
    g.i64(`flatten_l${l}_shape`, [3], [1, dim, -1]);
    const r = g.node('Reshape', [f, `flatten_l${l}_shape`], `features_l${l}_flat`);
    return g.node('Transpose', [r], `features_l${l}_seq`, { perm: { ints: [0, 2, 1] } });
  });
  g.node('Concat', flat, 'value', { axis: 1 });
  // Queries: learned embeddings plus the image's pooled feature; reference points from them.
  g.f32('query_embed', [1, queries, dim], uniform(rnd, queries * dim, 1));
  const pooled = g.node('GlobalAveragePool', [features[2]], 'pooled');
  g.i64('pooled_shape', [3], [1, 1, dim]);
  g.node('Add', ['query_embed', g.node('Reshape', [pooled, 'pooled_shape'], 'pooled_seq')], 'query');
  const ref = g.node('Sigmoid', [linear(g, rnd, 'ref_head', 'query', dim, 2)], 'ref_points');
  g.i64('ref_points_shape', [4], [1, queries, 1, 2]);
  g.node('Reshape', [ref, 'ref_points_shape'], 'reference_points');
  // The decoder layer: deformable cross-attention with a residual connection.
  const decoded = g.node('Add', ['query', deformableAttention(g, rnd, { levels, heads, points, dim, queries })], 'decoded');
  // Detection head: class logits (scaled so that some queries pass a threshold) and boxes.
  linear(g, rnd, 'logits', decoded, dim, LABELS.length, { weight: uniform(rnd, dim * LABELS.length, 4 / Math.sqrt(dim)) });
  g.node('Sigmoid', [linear(g, rnd, 'box_head', decoded, dim, 4)], 'pred_boxes');
  return encodeModel({
    opset: 16,
    name: 'tiny_rt_detr',
    producer: 'gridsample tests/js/lib/tiny_detector.mjs',
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [{ name: 'pixel_values', dtype: 'float32', dims: [1, 3, size, size] }],
    outputs: [
      { name: 'logits', dtype: 'float32', dims: [1, queries, LABELS.length] },
      { name: 'pred_boxes', dtype: 'float32', dims: [1, queries, 4] },
    ],
  });
}

/**
 * Writes the detector as the transformers.js model folder `dir` (made if missing): what
 * `pipeline('object-detection', name, { dtype: 'fp32' })` reads with `env.localModelPath` at
 * its parent and remote models off. `modelType` (a key of DETECTORS, default 'rt_detr') picks
 * the model class transformers.js loads it as; `build` (default detectorModel) makes the model's
 * bytes from `options`, whose `size` (default 64) the processor resizes to.
 */
export function writeDetectorFolder(dir, { modelType = 'rt_detr', build = detectorModel, ...options } = {}) {
  const size = options.size ?? 64;
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const id2label = Object.fromEntries(LABELS.map((l, i) => [String(i), l]));
  const label2id = Object.fromEntries(LABELS.map((l, i) => [l, i]));
  const json = (name, value) => writeFileSync(join(dir, name), `${JSON.stringify(value, null, 2)}\n`);
  json('config.json', { model_type: modelType, architectures: [DETECTORS[modelType]], id2label, label2id });
  json('preprocessor_config.json', {
    image_processor_type: 'RTDetrImageProcessor',
    do_resize: true,
    size: { height: size, width: size },
    resample: 2,
    do_rescale: true,
    rescale_factor: 1 / 255,
    do_normalize: false,
    do_pad: false,
  });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), build(options));
}

/** A test picture, `width` x `height` RGB: a gradient with two bright rectangles. */
export function testPicture(width = 96, height = 80) {
  const data = new Uint8ClampedArray(width * height * 3);
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const i = (y * width + x) * 3;
      const inA = x > 10 && x < 40 && y > 12 && y < 50;
      const inB = x > 55 && x < 90 && y > 40 && y < 75;
      data[i] = inA ? 250 : (x * 255) / width;
      data[i + 1] = inB ? 240 : (y * 255) / height;
      data[i + 2] = inA || inB ? 30 : 128;
    }
  }
  return { data, width, height, channels: 3 };
}
