// The whole-model rows of the benchmark: each example ONNX model (web/demo/models/index.json) and the models made here (deformable-attention blocks of an RT-DETR decoder, D-FINE's decoder and a Deformable-DETR encoder, with their projections and alone, a tiny AffineGrid model) on onnxruntime-web alone and on gridsample/onnx's session, and some also on onnxruntime-node alone and under the session, timed by js/onnx/timing.mjs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { compareModel } from '../../js/onnx/timing.mjs';
import { DECODER_LEVELS, deformableBlock, dfineBlock, encoderLevels } from '../../tests/js/lib/deformable_blocks.mjs';
import { chainModel } from '../../tests/js/lib/deformable_chain_model.mjs';
import { encodeModel } from '../../tests/js/lib/onnx_model.mjs';

const MODELS_DIR = fileURLToPath(new URL('../../web/demo/models/', import.meta.url));

/** The name `--only` selects every model with (each model is also selected by its own name). */
export const SECTION = 'models';

/** onnxruntime-web's options, the same for its session alone and for every part of the split. */
export const SESSION_OPTIONS = { executionProviders: ['wasm'] };
/** onnxruntime-node's, for the models also timed on it (`node: true`): one thread. */
export const NODE_SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1 };

// The deformable-attention blocks at real sizes (tests/js/lib/deformable_blocks.mjs). The RT-DETR
// block projects its value inside (value_proj, 8,400 x 256 x 256: most of its time on
// onnxruntime-web, which the fusion leaves as it is); D-FINE's decoder block is issue 45's
// "decoder block": the value comes projected, once for every layer.
const decoderBlock = () => deformableBlock(DECODER_LEVELS, 300, "RT-DETR decoder's deformable attention with value_proj and output_proj (80x80, 40x40, 20x20; 300 queries)");
const dfineDecoderBlock = () => ({
  ...dfineBlock(DECODER_LEVELS, 300, "D-FINE decoder's deformable-attention block, value 1x8,400x8x32 already projected (80x80, 40x40, 20x20; 300 queries)"),
  node: true,
});
const encoderBlock = (h, w) => () => {
  const levels = encoderLevels(h, w);
  const queries = levels.reduce((q, [lh, lw]) => q + lh * lw, 0);
  return deformableBlock(levels, queries, `Deformable-DETR encoder's deformable attention at ${h}x${w} (${levels.map((l) => l.join('x')).join(', ')}; ${queries.toLocaleString('en-US')} queries)`);
};

// Multi-scale deformable attention alone, as PyTorch's multi_scale_deformable_attn exports it
// (tests/js/lib/deformable_chain_model.mjs): value [1, S, 8, 32], locations and weights in, the
// sampled sum out; what gridsample/onnx fuses into one node (issue 45's "blocks").
// `local`: the encoder's locations as a model makes them (every level's pixel, in order, is a
// query whose reference point is its pixel centre; each point that reference plus an offset of
// up to 4 pixels of the level sampled), in `given(ort)`; else uniform in [0, 1).
const attentionCore = (levels, queries, title, local = false) => () => {
  const S = levels.reduce((q, [h, w]) => q + h * w, 0);
  const [M, D, P, L] = [8, 32, 4, levels.length];
  const inputs = [
    { name: 'value', dtype: 'float32', dims: [1, S, M, D], range: [-1, 1] },
    { name: 'sampling_locations', dtype: 'float32', dims: [1, queries, M, L, P, 2], range: [0, 1] },
    { name: 'attention_weights', dtype: 'float32', dims: [1, queries, M, L, P], range: [0, 1] },
  ];
  const given = local ? (ort) => ({ sampling_locations: new ort.Tensor('float32', nearReferences(levels, M, P), inputs[1].dims) }) : undefined;
  return { title, inputs, bytes: chainModel({ N: 1, Lq: queries, M, D, P, L, S, levels }), given };
};
const encoderCore = (h, w, local = false) => {
  const levels = encoderLevels(h, w);
  const queries = levels.reduce((q, [lh, lw]) => q + lh * lw, 0);
  const where = local ? 'locations within 4 pixels of each query\'s own' : 'locations uniform in [0, 1)';
  return attentionCore(levels, queries, `the encoder's multi-scale deformable attention alone at ${h}x${w} (${queries.toLocaleString('en-US')} queries, ${where}; PyTorch's chain)`, local);
};

// attentionCore's local locations [1, queries, M, L, P, 2] (seeded).
function nearReferences(levels, M, P) {
  const centres = levels.flatMap(([h, w]) => Array.from({ length: h * w }, (_, i) => [((i % w) + 0.5) / w, (Math.floor(i / w) + 0.5) / h]));
  const out = new Float32Array(centres.length * M * levels.length * P * 2);
  let s = 7;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  let k = 0;
  for (const [x, y] of centres) {
    for (let m = 0; m < M; ++m) {
      for (const [h, w] of levels) {
        for (let p = 0; p < P; ++p) {
          out[k++] = x + (8 * next() - 4) / w;
          out[k++] = y + (8 * next() - 4) / h;
        }
      }
    }
  }
  return out;
}

// A model of a tenth of a millisecond: AffineGrid -> GridSample (nearest) -> Add on 1x3x16x16.
function tinyAffine() {
  const inputs = [{ name: 'X', dtype: 'float32', dims: [1, 3, 16, 16] }, { name: 'theta', dtype: 'float32', dims: [1, 2, 3], range: [-1, 1] }];
  const bytes = encodeModel({
    opset: 20,
    nodes: [
      { op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['grid'] },
      { op: 'GridSample', inputs: ['X', 'grid'], outputs: ['B'], attrs: { mode: 'nearest' } },
      { op: 'Add', inputs: ['B', 'bias'], outputs: ['Y'] },
    ],
    inputs,
    initializers: [
      { name: 'size', dtype: 'int64', dims: [4], data: BigInt64Array.of(1n, 3n, 16n, 16n) },
      { name: 'bias', dtype: 'float32', dims: [1, 3, 1, 1], data: Float32Array.of(0.1, 0.2, 0.3) },
    ],
    outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 3, 16, 16] }],
    irVersion: 9,
  });
  return { title: 'AffineGrid -> GridSample (nearest) -> Add, 1x3x16x16', inputs, bytes };
}

const MADE = {
  decoder_block: decoderBlock,
  decoder_block_dfine: dfineDecoderBlock,
  encoder_block_640: encoderBlock(640, 640),
  encoder_block_800x1333: encoderBlock(800, 1333),
  attention_decoder: attentionCore(DECODER_LEVELS, 300, "the decoder's multi-scale deformable attention alone (300 queries; PyTorch's chain)"),
  attention_640: encoderCore(640, 640),
  attention_800x1333: encoderCore(800, 1333),
  attention_640_local: encoderCore(640, 640, true),
  attention_800x1333_local: encoderCore(800, 1333, true),
  tiny_affine_nearest: tinyAffine,
};

/**
 * The models that `only` (the --only list, or null for all) selects: index.json's, each with its
 * `name` (the file without .onnx), then the ones made here (with their `bytes`).
 */
export function selectModels(only) {
  const { models } = JSON.parse(readFileSync(join(MODELS_DIR, 'index.json'), 'utf8'));
  const chosen = (name) => !only || only.includes(SECTION) || only.includes(name);
  return [
    ...models.map((m) => ({ ...m, name: m.file.replace(/\.onnx$/, '') })).filter((m) => chosen(m.name)),
    ...Object.entries(MADE).filter(([name]) => chosen(name)).map(([name, make]) => ({ name, ...make() })),
  ];
}

// A model marked `node: true` on onnxruntime-node alone and under the split session on it
// (compareModel, without the per-part reference): {onnxruntime, split, attention, runsOn,
// outputs}, or {error} when the split session failed.
async function timeOnNode(bytes, { ortNode, gridsample, dims, ranges, runs, minMs, warmup }) {
  try {
    const r = await compareModel(bytes, { ort: ortNode, gridsample, dims, ranges, runs, minMs, warmup, reference: false, sessionOptions: NODE_SESSION_OPTIONS });
    return { onnxruntime: r.onnxruntime, split: r.split, attention: r.plan.attention ?? null, runsOn: r.parts.map((p) => p.runsOn), outputs: r.outputs };
  } catch (e) {
    return { error: String(e?.message ?? e).split('\n')[0] };
  }
}

/**
 * Times every model of `models` (selectModels) with compareModel, one after another: `runs`
 * timed runs after `warmup` of each session; `ort` is onnxruntime-web (numThreads already
 * set), `gridsample` the module from load(); a model marked `node` also on `ortNode`
 * (onnxruntime-node), in `row.node`. Returns one row per model: compareModel's result
 * without its feeds and plan (the plan's parts are in `parts`, its fused blocks in
 * `attention`), or `{ error }` when the split session itself failed; never throws.
 */
export async function timeModels(models, { ort, ortNode, gridsample, runs, minMs, warmup, log = () => {} }) {
  const rows = [];
  for (const m of models) {
    const row = { name: m.name, file: m.file, title: m.title, inputs: m.inputs.map(({ name, dtype, dims }) => ({ name, dtype, dims })) };
    log(`\n== ${m.name}: ${m.title}`);
    if (globalThis.gc) globalThis.gc();
    try {
      // Feeds at index.json's shapes and in its value ranges (compareModel's seeded values).
      const dims = Object.fromEntries(m.inputs.map((i) => [i.name, i.dims]));
      const ranges = Object.fromEntries(m.inputs.filter((i) => i.range).map((i) => [i.name, i.range]));
      const bytes = m.bytes ?? readFileSync(join(MODELS_DIR, m.file));
      const { feeds, plan, ...result } = await compareModel(bytes, { ort, gridsample, dims, ranges, given: m.given?.(ort), runs, minMs, warmup, sessionOptions: SESSION_OPTIONS });
      const node = m.node && ortNode ? await timeOnNode(bytes, { ortNode, gridsample, dims, ranges, runs, minMs, warmup }) : undefined;
      rows.push({ ...row, ...result, attention: plan.attention ?? null, node });
      const ortText = result.onnxruntime.error ? `fails: ${result.onnxruntime.error}` : `median ${result.onnxruntime.median.toFixed(3)} ms`;
      log(`  onnxruntime-web ${ortText}`);
      log(`  split           median ${result.split.median.toFixed(3)} ms, p90 ${result.split.p90.toFixed(3)} ms (${result.split.runs} runs)`);
      for (const p of result.parts) {
        const ref = p.onnxruntimeMs === null ? '' : `, on onnxruntime ${p.onnxruntimeMs.toFixed(3)} ms`;
        log(`    part ${p.part} on ${p.runsOn.padEnd(11)} ${p.ms.toFixed(3)} ms${ref} (${Object.entries(p.ops).map(([op, n]) => `${n} ${op}`).join(', ')})`);
      }
      if (plan.attention) log(`  attention: ${plan.attention.fused} fused, ${plan.attention.notFused.length} not`);
      if (node?.error) log(`  on onnxruntime-node: split session error: ${node.error}`);
      else if (node) log(`  onnxruntime-node ${node.onnxruntime.error ? `fails: ${node.onnxruntime.error}` : `median ${node.onnxruntime.median.toFixed(3)} ms`}, split over it median ${node.split.median.toFixed(3)} ms (${node.split.runs} runs; parts on ${node.runsOn.join(', ')})`);
    } catch (e) {
      rows.push({ ...row, error: String(e?.message ?? e).split('\n')[0] });
      log(`  error: ${rows.at(-1).error}`);
    }
  }
  return rows;
}
