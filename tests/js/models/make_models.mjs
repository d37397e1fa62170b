// Writes the example ONNX models (GridSample / AffineGrid inside real-looking graphs) and their index.json into web/demo/models/; --check also runs them in onnxruntime-node and -web.
//
//   node tests/js/models/make_models.mjs           # (re)write web/demo/models/*.onnx and index.json
//   node tests/js/models/make_models.mjs --check   # then load and run each model in onnxruntime
//
// Weights come from a seeded LCG, one seed per model, so every run writes the same bytes. The
// models stand for real ones (a spatial transformer, RT-DETR's deformable attention, LivePortrait's
// 3-D warp, RIFE/RAFT's flow warp) at their real shapes but with random weights: they are for
// timing and for checking results against onnxruntime, not for predictions.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { deformableAttention as attention, graph, lcg, uniform } from '../lib/model_graph.mjs';
import { encodeModel } from '../lib/onnx_model.mjs';

const OUT_DIR = fileURLToPath(new URL('../../../web/demo/models/', import.meta.url));

// --- the models -----------------------------------------------------------------------------

// ONNX IR version that goes with each opset (ONNX 1.11: IR 8 / opset 16; 1.15: 9 / 20; 1.17: 10 / 22).
const IR = { 16: 8, 20: 9, 22: 10 };
const PRODUCER = 'gridsample make_models.mjs';

/** Spatial transformer network (the PyTorch tutorial's, on 28x28 digits) with a linear classifier. */
function stn28() {
  const g = graph();
  const rnd = lcg(28);
  const conv = (name, x, cout, cin, k) => {
    const bound = 1 / Math.sqrt(cin * k * k);
    g.f32(`${name}.weight`, [cout, cin, k, k], uniform(rnd, cout * cin * k * k, bound));
    g.f32(`${name}.bias`, [cout], uniform(rnd, cout, bound));
    return g.node('Conv', [x, `${name}.weight`, `${name}.bias`], name, { kernel_shape: { ints: [k, k] } });
  };
  // Gemm with a PyTorch Linear's (out, in) weight.
  const gemm = (name, x, cout, cin, weight, bias) => {
    const bound = 1 / Math.sqrt(cin);
    g.f32(`${name}.weight`, [cout, cin], weight ?? uniform(rnd, cout * cin, bound));
    g.f32(`${name}.bias`, [cout], bias ?? uniform(rnd, cout, bound));
    return g.node('Gemm', [x, `${name}.weight`, `${name}.bias`], name, { transB: 1 });
  };
  const pool = (name, x) => g.node('MaxPool', [x], name, { kernel_shape: { ints: [2, 2] }, strides: { ints: [2, 2] } });

  // Localisation net: (N,1,28,28) -> (N,8,22,22) -> (N,8,11,11) -> (N,10,7,7) -> (N,10,3,3) -> 90 -> 32 -> 6.
  let h = conv('loc.conv1', 'X', 8, 1, 7);
  h = g.node('Relu', [pool('loc.pool1', h)], 'loc.relu1');
  h = conv('loc.conv2', h, 10, 8, 5);
  h = g.node('Relu', [pool('loc.pool2', h)], 'loc.relu2');
  h = g.node('Flatten', [h], 'loc.flatten', { axis: 1 });
  h = g.node('Relu', [gemm('fc_loc.0', h, 32, 90)], 'fc_loc.relu');
  // Near the identity transform: tiny weights, bias = identity theta.
  h = gemm('fc_loc.2', h, 6, 32, uniform(rnd, 6 * 32, 0.02), [1, 0, 0, 0, 1, 0]);
  g.i64('theta_shape', [3], [-1, 2, 3]);
  const theta = g.node('Reshape', [h, 'theta_shape'], 'theta');
  const size = g.node('Shape', ['X'], 'size');
  const grid = g.node('AffineGrid', [theta, size], 'grid', { align_corners: 0 });
  g.node('GridSample', ['X', grid], 'Y', { mode: 'linear', padding_mode: 'zeros', align_corners: 0 });
  // Classifier head on the warped image.
  const flat = g.node('Flatten', ['Y'], 'cls.flatten', { axis: 1 });
  gemm('logits', flat, 10, 784);

  return {
    file: 'stn28.onnx',
    title: 'Spatial transformer (28x28 digits)',
    description: 'The spatial transformer network of the PyTorch tutorial (Jaderberg et al. 2015) for MNIST-sized digits: a small CNN predicts an affine theta (initialised near the identity), AffineGrid and GridSample warp the input, and a linear classifier reads the warped image.',
    opset: 20,
    inputs: [{ name: 'X', dtype: 'float32', dims: ['N', 1, 28, 28], feed: [1, 1, 28, 28], range: [0, 1] }],
    outputs: [{ name: 'Y', dtype: 'float32', dims: ['N', 1, 28, 28] }, { name: 'logits', dtype: 'float32', dims: ['N', 10] }],
    valueInfo: [{ name: 'theta', dtype: 'float32', dims: ['N', 2, 3] }, { name: 'grid', dtype: 'float32', dims: ['N', 28, 28, 2] }],
    onnxruntimeRuns: true,
    g,
  };
}

/** RT-DETR's decoder cross-attention: multi-scale deformable attention over three feature levels. */
function deformableAttention() {
  const g = graph();
  const LEVELS = [[40, 40], [20, 20], [10, 10]]; // (H, W) of each level
  const HEADS = 8;
  const POINTS = 4;
  const D = 256;
  const HEAD_DIM = D / HEADS;
  const Q = 300;
  const L = LEVELS.length;
  const LEN = LEVELS.reduce((a, [hh, ww]) => a + hh * ww, 0); // 2100
  attention(g, lcg(2100), { levels: LEVELS, heads: HEADS, points: POINTS, dim: D, queries: Q });

  return {
    file: 'deformable_attention.onnx',
    title: 'Multi-scale deformable attention (RT-DETR decoder)',
    description: "The cross-attention of RT-DETR's decoder (MSDeformAttn of Deformable DETR): 300 queries each sample 4 points per head on three feature levels (40x40, 20x20, 10x10) around their reference point, one GridSample per level, and mix them with softmax attention weights.",
    opset: 16,
    inputs: [
      { name: 'query', dtype: 'float32', dims: [1, Q, D], range: [-1, 1] },
      { name: 'reference_points', dtype: 'float32', dims: [1, Q, 1, 2], range: [0, 1] },
      { name: 'value', dtype: 'float32', dims: [1, LEN, D], range: [-1, 1] },
    ],
    outputs: [{ name: 'output', dtype: 'float32', dims: [1, Q, D] }],
    valueInfo: [
      { name: 'sampling_locations', dtype: 'float32', dims: [1, Q, HEADS, L, POINTS, 2] },
      ...LEVELS.map(([hh, ww], l) => ({ name: `value_l${l}`, dtype: 'float32', dims: [HEADS, HEAD_DIM, hh, ww] })),
      ...LEVELS.map((_, l) => ({ name: `grid_l${l}`, dtype: 'float32', dims: [HEADS, Q, POINTS, 2] })),
      ...LEVELS.map((_, l) => ({ name: `sampled_l${l}`, dtype: 'float32', dims: [HEADS, HEAD_DIM, Q, POINTS] })),
    ],
    onnxruntimeRuns: true,
    g,
  };
}

/** LivePortrait's warping module core: a 3-D feature volume sampled by a dense deformation, then a 1x1x1 conv. */
function liveportraitWarp() {
  const g = graph();
  const rnd = lcg(3264);
  const C = 32;
  g.f32('conv.weight', [C, C, 1, 1, 1], uniform(rnd, C * C, 1 / Math.sqrt(C)));
  g.f32('conv.bias', [C], uniform(rnd, C, 1 / Math.sqrt(C)));
  g.node('GridSample', ['feature', 'grid'], 'warped', { mode: 'linear', padding_mode: 'zeros', align_corners: 0 });
  g.node('Conv', ['warped', 'conv.weight', 'conv.bias'], 'output', { kernel_shape: { ints: [1, 1, 1] } });
  return {
    file: 'liveportrait_warp.onnx',
    title: 'LivePortrait 3-D feature warp',
    description: "The core of LivePortrait's warping network: the appearance feature volume (32 channels, 16x64x64) is sampled along a dense 3-D deformation grid derived from the driving keypoints, then mixed by a 1x1x1 convolution.",
    opset: 20,
    inputs: [
      { name: 'feature', dtype: 'float32', dims: [1, C, 16, 64, 64], range: [-1, 1] },
      { name: 'grid', dtype: 'float32', dims: [1, 16, 64, 64, 3], range: [-1.05, 1.05] },
    ],
    outputs: [{ name: 'output', dtype: 'float32', dims: [1, C, 16, 64, 64] }],
    valueInfo: [{ name: 'warped', dtype: 'float32', dims: [1, C, 16, 64, 64] }],
    onnxruntimeRuns: true,
    g,
  };
}

/** RIFE / RAFT backward warp by optical flow in pixels, the pixel grid built in the graph. */
function flowWarp() {
  const g = graph();
  g.i64('axis_h', [], [2]);
  g.i64('axis_w', [], [3]);
  g.i64('zero_i', [], [0]);
  g.i64('one_i', [], [1]);
  g.f32('one', [], [1]);
  g.f32('two', [], [2]);
  const shape = g.node('Shape', ['image'], 'image_shape');
  // Base pixel coordinates x = 0..W-1 as (1,1,1,W), y = 0..H-1 as (1,1,H,1).
  const axis = (name, index, unsqueezeAxes) => {
    const n = g.node('Gather', [shape, index], `${name}_size`, { axis: 0 });
    const r = g.node('Range', ['zero_i', n, 'one_i'], `${name}_range`);
    const f = g.node('Cast', [r], `${name}_range_f`, { to: 1 });
    g.i64(`${name}_unsqueeze_axes`, [3], unsqueezeAxes);
    const base = g.node('Unsqueeze', [f, `${name}_unsqueeze_axes`], `base_${name}`);
    // 2 / (size - 1): align_corners=1 puts -1 and 1 on the first and last pixel centres.
    const sizeF = g.node('Cast', [n], `${name}_size_f`, { to: 1 });
    const scale = g.node('Div', ['two', g.node('Sub', [sizeF, 'one'], `${name}_size_m1`)], `${name}_scale`);
    return { base, scale };
  };
  const x = axis('x', 'axis_w', [0, 1, 2]);
  const y = axis('y', 'axis_h', [0, 1, 3]);
  g.i64('flow_split', [2], [1, 1]);
  const [fx, fy] = g.node('Split', ['flow', 'flow_split'], ['flow_x', 'flow_y'], { axis: 1 });
  // Normalised coordinate: 2 * (base + flow) / (size - 1) - 1, each (N,1,H,W).
  const coord = (name, base, f, scale) => {
    const p = g.node('Add', [base, f], `${name}_pixels`);
    return g.node('Sub', [g.node('Mul', [p, scale], `${name}_scaled`), 'one'], `grid_${name}`);
  };
  const gx = coord('x', x.base, fx, x.scale);
  const gy = coord('y', y.base, fy, y.scale);
  const grid = g.node('Concat', [gx, gy], 'grid_nchw', { axis: 1 });
  g.node('Transpose', [grid], 'grid', { perm: { ints: [0, 2, 3, 1] } });
  g.node('GridSample', ['image', 'grid'], 'output', { mode: 'bilinear', padding_mode: 'border', align_corners: 1 });
  return {
    file: 'flow_warp.onnx',
    title: 'Optical-flow backward warp (RIFE / RAFT)',
    description: "The backward warp of RIFE's frame interpolation and RAFT-style flow networks: each output pixel samples the image at its own position plus the flow (in pixels), with the pixel grid built in the graph from the input's shape, so one model serves any size.",
    opset: 16,
    inputs: [
      { name: 'image', dtype: 'float32', dims: ['N', 3, 'H', 'W'], feed: [1, 3, 256, 448], range: [0, 1] },
      { name: 'flow', dtype: 'float32', dims: ['N', 2, 'H', 'W'], feed: [1, 2, 256, 448], range: [-8, 8] },
    ],
    outputs: [{ name: 'output', dtype: 'float32', dims: ['N', 3, 'H', 'W'] }],
    valueInfo: [{ name: 'grid', dtype: 'float32', dims: ['N', 'H', 'W', 2] }],
    onnxruntimeRuns: true,
    g,
  };
}

/** 1-D GridSample (opset 20 allows any rank): resampling a multichannel signal. */
function gridSample1d() {
  const g = graph();
  g.f32('half', [], [0.5]);
  g.node('Mul', ['X', 'half'], 'X_half');
  g.node('GridSample', ['X_half', 'grid'], 'sampled', { mode: 'linear', padding_mode: 'reflection', align_corners: 0 });
  g.node('Relu', ['sampled'], 'Y');
  return {
    file: 'gridsample_1d.onnx',
    title: '1-D GridSample (signal resampling)',
    description: 'Time warping of a 16-channel signal of 4096 samples, as in audio time-stretch or 1-D deformable layers: scale, 1-D linear GridSample with reflection padding, ReLU.',
    opset: 20,
    inputs: [
      { name: 'X', dtype: 'float32', dims: [1, 16, 4096], range: [-1, 1] },
      { name: 'grid', dtype: 'float32', dims: [1, 4096, 1], range: [-1.2, 1.2] },
    ],
    outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 16, 4096] }],
    onnxruntimeRuns: false,
    why: "onnxruntime's GridSample kernel takes 4-D and 5-D inputs only (2-D and 3-D sampling), not the 3-D input of a 1-D sample ('Only 4-D or 5-D tensor is supported').",
    g,
  };
}

/** 3-D GridSample with cubic interpolation (opset 20). */
function gridSample3dCubic() {
  const g = graph();
  g.node('GridSample', ['X', 'grid'], 'sampled', { mode: 'cubic', padding_mode: 'border', align_corners: 1 });
  g.node('Relu', ['sampled'], 'Y');
  return {
    file: 'gridsample_3d_cubic.onnx',
    title: '3-D cubic GridSample (volume resampling)',
    description: 'Tricubic resampling of an 8-channel 16x32x32 volume, as in medical-image registration or volumetric super-resolution: 3-D cubic GridSample with border padding, ReLU.',
    opset: 20,
    inputs: [
      { name: 'X', dtype: 'float32', dims: [1, 8, 16, 32, 32], range: [-1, 1] },
      { name: 'grid', dtype: 'float32', dims: [1, 16, 32, 32, 3], range: [-1.1, 1.1] },
    ],
    outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 8, 16, 32, 32] }],
    onnxruntimeRuns: false,
    why: "onnxruntime's GridSample has cubic only for 4-D inputs, not for 5-D (volumetric) ones ('Only support GridSample Cubic mode in 4-D cases').",
    g,
  };
}

/** float16 GridSample (opset 22 adds the float16 type). */
function gridSampleF16() {
  const g = graph();
  g.node('GridSample', ['X', 'grid'], 'Y16', { mode: 'linear', padding_mode: 'zeros', align_corners: 0 });
  g.node('Cast', ['Y16'], 'Y', { to: 1 });
  return {
    file: 'gridsample_f16.onnx',
    title: 'float16 GridSample',
    description: 'A half-precision model, as exported for GPUs and mobile: 16-channel 128x128 float16 features bilinearly sampled on a float16 grid, then cast to float32.',
    opset: 22,
    inputs: [
      { name: 'X', dtype: 'float16', dims: [1, 16, 128, 128], range: [-1, 1] },
      { name: 'grid', dtype: 'float16', dims: [1, 128, 128, 2], range: [-1.1, 1.1] },
    ],
    outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 16, 128, 128] }],
    valueInfo: [{ name: 'Y16', dtype: 'float16', dims: [1, 16, 128, 128] }],
    onnxruntimeRuns: true,
    note: 'onnxruntime has no float16 GridSample kernel: it inserts Casts and samples in float32, and drops the float16 rounding of the sampled values before the final Cast (its Y equals a float32 GridSample exactly), so compare with it within float16 rounding.',
    g,
  };
}

const MODELS = [stn28, deformableAttention, liveportraitWarp, flowWarp, gridSample1d, gridSample3dCubic, gridSampleF16];

// --- writing --------------------------------------------------------------------------------

function build(m) {
  const bytes = encodeModel({
    opset: m.opset,
    irVersion: IR[m.opset],
    producer: PRODUCER,
    name: m.file.replace(/\.onnx$/, ''),
    docString: m.description,
    nodes: m.g.nodes,
    initializers: m.g.initializers,
    inputs: m.inputs.map(({ name, dtype, dims }) => ({ name, dtype, dims })),
    outputs: m.outputs,
    valueInfo: m.valueInfo ?? [],
  });
  // index.json: the shapes fed (numbers; `declared` keeps a symbolic input's own dims), and
  // the outputs at those shapes.
  const symbols = {};
  const inputs = m.inputs.map(({ name, dtype, dims, feed, range }) => {
    const shape = feed ?? dims;
    dims.forEach((d, i) => { if (typeof d === 'string') symbols[d] = shape[i]; });
    return { name, dtype, dims: shape, ...(feed ? { declared: dims } : {}), range };
  });
  const entry = {
    file: m.file,
    title: m.title,
    description: m.description,
    opset: m.opset,
    inputs,
    outputs: m.outputs.map(({ name, dtype, dims }) => ({ name, dtype, dims: dims.map((d) => (typeof d === 'string' ? symbols[d] : d)) })),
    onnxruntimeRuns: m.onnxruntimeRuns,
    ...(m.why ? { why: m.why } : {}),
    ...(m.note ? { note: m.note } : {}),
  };
  return { bytes, entry };
}

// JSON indented by two spaces, with arrays of numbers or strings (dims, ranges) on one line.
function toJson(v, indent = '') {
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x !== 'object')) return `[${v.map((x) => JSON.stringify(x)).join(', ')}]`;
    return `[\n${v.map((x) => inner + toJson(x, inner)).join(',\n')}\n${indent}]`;
  }
  if (v && typeof v === 'object') {
    const fields = Object.entries(v).filter(([, x]) => x !== undefined);
    return `{\n${fields.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${toJson(x, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(v);
}

function writeAll() {
  mkdirSync(OUT_DIR, { recursive: true });
  const entries = [];
  for (const make of MODELS) {
    const { bytes, entry } = build(make());
    writeFileSync(join(OUT_DIR, entry.file), bytes);
    entries.push(entry);
    console.log(`${entry.file.padEnd(28)} ${String(bytes.length).padStart(8)} bytes`);
  }
  const index = {
    about: 'Example ONNX models with GridSample / AffineGrid nodes, written by tests/js/models/make_models.mjs (random weights from a seeded LCG). inputs[].dims are the shapes the demo and the benchmark feed (declared: the dims in the model where some are symbolic), range the interval to draw random values from; outputs[].dims are at those shapes.',
    models: entries,
  };
  writeFileSync(join(OUT_DIR, 'index.json'), `${toJson(index)}\n`);
  return entries;
}

// --- checking in onnxruntime ----------------------------------------------------------------

async function check(entries) {
  const { readFileSync } = await import('node:fs');
  const { failureReason, randomFeeds } = await import('../../../js/onnx/timing.mjs');
  const ortNode = await import('onnxruntime-node');
  const ortWeb = await import('onnxruntime-web');
  ortWeb.env.wasm.numThreads = 1;
  const runtimes = [
    // One thread each, like the web build here; onnxruntime-node's own log of the expected
    // failures is left out (printed below).
    ['node', ortNode, { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 4 }],
    ['web', ortWeb, { executionProviders: ['wasm'] }],
  ];
  // Random feeds at index.json's shapes and in its ranges, as the benchmark and the demo draw them.
  const feedsFor = (ort, entry, seed) => randomFeeds(ort, entry.inputs.map(({ name, dtype, dims }) => ({ name, type: dtype, shape: dims })), {
    ranges: Object.fromEntries(entry.inputs.map((i) => [i.name, i.range])),
    seed,
  });
  let failures = 0;
  for (const entry of entries) {
    const bytes = readFileSync(join(OUT_DIR, entry.file));
    for (const [label, ort, options] of runtimes) {
      let stage = 'create';
      let session;
      try {
        session = await ort.InferenceSession.create(new Uint8Array(bytes), options);
        stage = 'run';
        const out = await session.run(feedsFor(ort, entry, 7));
        for (const o of entry.outputs) {
          const t = out[o.name];
          if (!t) throw new Error(`no output ${o.name}`);
          if (JSON.stringify([...t.dims]) !== JSON.stringify(o.dims)) throw new Error(`${o.name}: dims [${t.dims}], expected [${o.dims}]`);
          if (!Array.from(t.data).every(Number.isFinite)) throw new Error(`${o.name}: not all finite`);
        }
        const ok = entry.onnxruntimeRuns ? 'ok  ' : 'RUNS (index says it does not)';
        if (!entry.onnxruntimeRuns) failures += 1;
        console.log(`${label.padEnd(5)} ${entry.file.padEnd(28)} ${ok}`);
      } catch (e) {
        const msg = failureReason(e);
        const ok = entry.onnxruntimeRuns ? 'FAILS (index says it runs)' : 'fails as expected';
        if (entry.onnxruntimeRuns) failures += 1;
        console.log(`${label.padEnd(5)} ${entry.file.padEnd(28)} ${ok} at ${stage}: ${msg}`);
      } finally {
        await session?.release();
      }
    }
  }
  return failures;
}

const entries = writeAll();
if (process.argv.includes('--check')) {
  const failures = await check(entries);
  if (failures) {
    console.error(`${failures} model(s) behave in onnxruntime otherwise than index.json says`);
    process.exitCode = 1;
  }
}
