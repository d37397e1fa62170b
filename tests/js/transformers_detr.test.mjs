// A multi-layer Deformable-DETR-shaped detector (deformable_detr.mjs, small shapes) through transformers.js 4.x's object-detection pipeline on gridsample/ort, fused and unfused, against onnxruntime-web alone: the same detections, every attention block fused, and on WebGPU (Node, SwiftShader) the fused blocks run with nothing read back but the model's outputs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { detrModel } from './lib/deformable_detr.mjs';
import { assertSameDetections } from './lib/detections.mjs';
import { nodeWebGpu } from './lib/node_webgpu.mjs';
import { writeDetectorFolder } from './lib/tiny_detector.mjs';

const run = promisify(execFile);
const SIDE = fileURLToPath(new URL('lib/pipeline_side.mjs', import.meta.url));
// Two encoder and two decoder layers over four levels (8x8, 4x4, 2x2, 1x1 at 64x64): four
// attention chains of four GridSample nodes each.
const SHAPES = { size: 64, encoderLayers: 2, decoderLayers: 2, queries: 20, dim: 32, heads: 4, points: 2, ffn: 64 };
const BLOCKS = SHAPES.encoderLayers + SHAPES.decoderLayers;
// Scores are softmax probabilities of the logits. Against onnxruntime-web alone the split rounds
// differently in float32 only where the fused kernel samples (x * W - 0.5 against the chain's
// 2 * x - 1 unnormalized) and sums its L * P products in another order, and onnxruntime's WebGPU
// kernels round the layers' matrix products their own way: the logits move by about 1e-6
// (measured: 1.2e-6 at most, wasm and SwiftShader), and a probability by at most half of that:
// scores within 1e-5. Boxes are whole pixels of the 640x480 picture, rounded from pred_boxes: a
// change of 1e-6 there moves a coordinate by 1e-3 pixels, which changes its rounding only next
// to a half pixel: boxes within 1 pixel.
const TOLERANCES = { scoreTolerance: 1e-5, boxTolerance: 1 };

let models;
before(() => {
  models = mkdtempSync(join(tmpdir(), 'gridsample-detr-'));
  writeDetectorFolder(join(models, 'detr'), { build: detrModel, ...SHAPES });
});
after(() => rmSync(models, { recursive: true, force: true }));

// pipeline_side.mjs in a process of its own: { results: { side: { times, readbacks, detections, attention, counts } } } or { skip }.
async function sides(options) {
  const { stdout } = await run(process.execPath, [SIDE, JSON.stringify({ models, model: 'detr', runs: 1, warmup: 1, ...options })], { encoding: 'utf8', timeout: 180_000 })
    .catch((e) => { throw new Error(`pipeline_side.mjs ${JSON.stringify(options)} failed:\n${e.stdout}\n${e.stderr}`, { cause: e }); });
  return JSON.parse(stdout.trim().split('\n').pop());
}

let alone;
const onnxruntimeAlone = () => (alone ??= sides({ sides: ['onnxruntime'] }));

test('wasm: fused and unfused find what onnxruntime-web alone finds; every block fused', async (t) => {
  const [alone, ours] = await Promise.all([onnxruntimeAlone(), sides({ sides: ['fused', 'unfused'], placement: 'gridsample' })]);
  const reference = alone.results.onnxruntime.detections;
  assert.ok(reference.length > 0 && reference.length < SHAPES.queries, `the test needs some detections, not all: ${reference.length}`);
  const { fused, unfused } = ours.results;
  t.diagnostic(assertSameDetections(fused.detections, reference, 'fused', TOLERANCES));
  t.diagnostic(assertSameDetections(unfused.detections, reference, 'unfused', TOLERANCES));
  assert.deepEqual(fused.attention, { fused: BLOCKS, notFused: [] });
  assert.equal(fused.counts.gridsampleNodes, BLOCKS);
  // Unfused: today's split, every level's GridSample on gridsample.
  assert.equal(unfused.attention, null);
  assert.equal(unfused.counts.gridsampleNodes, BLOCKS * 4);
});

describe('WebGPU (Node, SwiftShader)', { skip: (await nodeWebGpu()).skip ?? false }, () => {
  // onnxruntime-web alone on WebGPU reads back the model's two outputs (logits, pred_boxes) in
  // a call, and nothing else (measured: 2); it is not run here again (30 s on 2 cores).
  test('fused on gridsample/webgpu: the same detections as onnxruntime-web alone, read back only the two outputs', async (t) => {
    const [alone, ours] = await Promise.all([onnxruntimeAlone(), sides({ device: 'webgpu', sides: ['fused'], placement: 'gridsample' })]);
    const fused = ours.results.fused;
    t.diagnostic(assertSameDetections(fused.detections, alone.results.onnxruntime.detections, 'fused on WebGPU against onnxruntime-web alone on wasm', TOLERANCES));
    assert.deepEqual(fused.attention, { fused: BLOCKS, notFused: [] });
    assert.deepEqual(fused.readbacks, [2], 'readbacks per pipeline call: logits and pred_boxes alone');
  });
});
