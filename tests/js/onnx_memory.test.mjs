// Peak memory of gridsample/onnx sessions against onnxruntime-web alone on the same model (issue 44, item 3), each measured in a process of its own: a model with a 200 MB initializer that a GridSample node reads.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { encodeModel } from './lib/onnx_model.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
// Peaks of the same process vary by up to 50 MB from run to run here (1060-1112 MB for
// onnxruntime-web alone), with when the garbage collector runs; main's default placement peaked
// at 1.52 times alone's.
const MARGIN = 1.1;

let work;
const paths = {};
before(() => {
  work = mkdtempSync(join(tmpdir(), 'gridsample-memory-'));
  // X 1x4x3536x3536 (200 MB) -> GridSample (grid 1x8x8x2) -> Relu.
  const S = 3536;
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
  paths.feeds = join(work, 'feeds.json');
  writeFileSync(paths.feeds, JSON.stringify({ grid: { dims: [1, 8, 8, 2], data: Array.from({ length: 128 }, (_, i) => ((i * 37) % 100) / 50 - 1) } }));
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// One session in a fresh process: its peak RSS over create() and 4 runs (the first decides placement).
async function peak(mode) {
  const { stdout } = await run(process.execPath, [join(HERE, 'lib', 'peak_rss.mjs'), paths.model, mode, paths.feeds, '4'], { encoding: 'utf8', timeout: 300_000 });
  return JSON.parse(stdout);
}

const mb = (bytes) => `${Math.round(bytes / 2 ** 20)} MB`;

describe('a 200 MB initializer read by GridSample: no session peaks above onnxruntime-web alone', () => {
  let alone;
  before(async () => {
    alone = await peak('alone');
  });

  for (const placement of ['auto', 'gridsample']) {
    test(`placement '${placement}'`, async () => {
      const ours = await peak(placement);
      console.log(`# ${placement}: peak ${mb(ours.peak)} (after create ${mb(ours.afterCreate)}), onnxruntime-web alone ${mb(alone.peak)}; ${ours.gridsampleNodes} node on gridsample`);
      assert.ok(ours.peak <= alone.peak * MARGIN, `peak ${mb(ours.peak)} against onnxruntime-web alone's ${mb(alone.peak)}`);
    });
  }
});
