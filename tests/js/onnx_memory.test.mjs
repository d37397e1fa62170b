// Peak memory of gridsample/onnx sessions against onnxruntime alone on the same model (issue 44, item 3), each measured in processes of its own: a model with a 100 MB initializer that a GridSample node reads, a Deformable-DETR encoder layer's deformable-attention block (onnxruntime-web), and a 6-layer deformable encoder (onnxruntime-node).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { deformableBlock, encoderLevels } from './lib/deformable_blocks.mjs';
import { detrModel } from './lib/deformable_detr.mjs';
import { encodeModel } from './lib/onnx_model.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
// Each configuration's peak is the median of PROCESSES processes: one process's peak varies with
// when the garbage collector runs (onnxruntime-web alone: 511-526 MB here). The margin covers
// what the medians still vary by; main before the fix of heldTwice (onnx/placement.mjs) peaked
// at 1.16-1.24 times alone's with placement 'auto', after it at 0.65 times.
const PROCESSES = 3;
const MARGIN = 1.05;

let work;
const paths = {};
before(() => {
  work = mkdtempSync(join(tmpdir(), 'gridsample-memory-'));
  // X 1x4x2500x2500 (100 MB) -> GridSample (grid 1x8x8x2) -> Relu. (Issue 44 measured the same
  // model with X 1x4x3536x3536, 200 MB: the same ratios, twice the time.)
  const S = 2500;
  const x = new Float32Array(4 * S * S);
  for (let i = 0; i < x.length; i += 997) x[i] = (i % 13) / 13;
  paths.model = join(work, 'big_initializer.onnx');
  writeFileSync(paths.model, encodeModel({
    opset: 20,
    nodes: [{ op: 'GridSample', inputs: ['X', 'grid'], outputs: ['B'] }, { op: 'Relu', inputs: ['B'], outputs: ['Y'] }],
    inputs: [{ name: 'grid', dtype: 'float32', dims: [1, 8, 8, 2] }],
    initializers: [{ name: 'X', dtype: 'float32', dims: [1, 4, S, S], data: x }],
    outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 4, 8, 8] }],
    irVersion: 9,
  }));
  // The encoder's block at 640x640 (8,500 queries over levels 80x80 ... 10x10).
  const levels = encoderLevels(640, 640);
  paths.encoder = join(work, 'encoder_block.onnx');
  writeFileSync(paths.encoder, deformableBlock(levels, levels.reduce((q, [h, w]) => q + h * w, 0), 'encoder block').bytes);
  // The 6-layer encoder at 640x640 (the end-to-end bench's, bench/js/detr_pipeline.mjs).
  paths.detrEncoder = join(work, 'detr_encoder.onnx');
  writeFileSync(paths.detrEncoder, detrModel({ encoderOnly: true }));
  paths.feeds = join(work, 'feeds.json');
  writeFileSync(paths.feeds, JSON.stringify({ grid: { dims: [1, 8, 8, 2], data: Array.from({ length: 128 }, (_, i) => ((i * 37) % 100) / 50 - 1) } }));
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// Sessions in fresh processes, one after the other (tests/js/lib/peak_rss.mjs: create() and
// `runs` runs, the first deciding placement; onnxruntime-web or -node): the median process by
// peak RSS, and every peak.
async function peak(mode, module, { model = paths.model, feeds = paths.feeds, processes = PROCESSES, runs: calls = 4, backend = 'web' } = {}) {
  const runs = [];
  for (let i = 0; i < processes; ++i) {
    const { stdout } = await run(process.execPath, [join(HERE, 'lib', 'peak_rss.mjs'), model, mode, feeds, String(calls), module, backend], { encoding: 'utf8', timeout: 300_000 });
    runs.push(JSON.parse(stdout));
  }
  runs.sort((a, b) => a.peak - b.peak);
  return { ...runs[processes >> 1], peaks: runs.map((r) => r.peak) };
}

const mb = (bytes) => `${Math.round(bytes / 2 ** 20)} MB`;

describe('a 100 MB initializer read by GridSample: no session peaks above onnxruntime-web alone', () => {
  let alone;
  before(async () => {
    alone = await peak('alone', 'own');
  });

  // own: the session loads its gridsample module; caller: the caller's (its heap outlives the session).
  for (const placement of ['auto', 'gridsample']) {
    for (const module of ['own', 'caller']) {
      test(`placement '${placement}', ${module === 'own' ? 'a gridsample module of its own' : "the caller's gridsample module"}`, async () => {
        const ours = await peak(placement, module);
        console.log(`# ${placement}, ${module} module: peak ${mb(ours.peak)} (${ours.peaks.map(mb).join(', ')}; after create ${mb(ours.afterCreate)}), `
          + `onnxruntime-web alone ${mb(alone.peak)} (${alone.peaks.map(mb).join(', ')}); ${ours.gridsampleNodes} node on gridsample`);
        assert.ok(ours.peak <= alone.peak * MARGIN, `median peak ${mb(ours.peak)} against onnxruntime-web alone's ${mb(alone.peak)}`);
      });
    }
  }
});

// Issue 44: the split session of this block (placement 'auto') peaked at 854 MiB where
// onnxruntime-web alone peaked at 570 MiB: the chain's per-level samples (139 MB stacked) were
// materialised on both sides of the split. Fused (issue 45) they never are. One process each:
// the fused session's peak is far enough below (about half) for one sample to decide.
describe("a Deformable-DETR encoder layer's deformable-attention block at 640x640: the split session peaks below onnxruntime-web alone", () => {
  test("placement 'auto', the attention fused", async () => {
    const opts = { model: paths.encoder, feeds: 'random', processes: 1 };
    const alone = await peak('alone', 'own', opts);
    const ours = await peak('auto', 'own', opts);
    console.log(`# encoder block: split session peak ${mb(ours.peak)} (after create ${mb(ours.afterCreate)}; ${ours.fusedAttention} fused attention node), onnxruntime-web alone ${mb(alone.peak)}`);
    assert.equal(ours.fusedAttention, 1, 'the attention is fused');
    assert.ok(ours.peak <= alone.peak, `peak ${mb(ours.peak)} against onnxruntime-web alone's ${mb(alone.peak)}`);
  });
});

// Issue 45 item 5: the split session of a 6-layer deformable encoder over onnxruntime-node peaked
// at 1,660 MiB against 1,304 MiB for onnxruntime-node alone: each of its 7 onnxruntime parts kept
// its own memory pattern's block in its own arena, where onnxruntime alone keeps one. Without
// patterns in the parts (onnx/create.mjs): 1,093 MiB, and no slower. One process each.
describe('a 6-layer Deformable-DETR encoder at 640x640 on onnxruntime-node: the split session peaks below onnxruntime-node alone', () => {
  test("placement 'auto', every attention fused", async () => {
    const opts = { model: paths.detrEncoder, feeds: 'random', processes: 1, runs: 2, backend: 'node' };
    const alone = await peak('alone', 'own', opts);
    const ours = await peak('auto', 'own', opts);
    console.log(`# 6-layer encoder on onnxruntime-node: split session peak ${mb(ours.peak)} (${ours.fusedAttention} fused attention nodes), onnxruntime-node alone ${mb(alone.peak)}`);
    assert.equal(ours.fusedAttention, 6, 'every layer\'s attention is fused');
    assert.ok(ours.peak <= alone.peak, `peak ${mb(ours.peak)} against onnxruntime-node alone's ${mb(alone.peak)}`);
  });
});
