// The whole-model rows of the benchmark: each example ONNX model (web/demo/models/index.json) on onnxruntime-web alone and on gridsample/onnx's split session, timed by js/onnx/timing.mjs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { compareModel } from '../../js/onnx/timing.mjs';

const MODELS_DIR = fileURLToPath(new URL('../../web/demo/models/', import.meta.url));

/** The name `--only` selects every model with (each model is also selected by its own name). */
export const SECTION = 'models';

/** onnxruntime-web's options, the same for its session alone and for every part of the split. */
export const SESSION_OPTIONS = { executionProviders: ['wasm'] };

/** The models of index.json that `only` (the --only list, or null for all) selects, each with its `name` (the file without .onnx). */
export function selectModels(only) {
  const { models } = JSON.parse(readFileSync(join(MODELS_DIR, 'index.json'), 'utf8'));
  return models
    .map((m) => ({ ...m, name: m.file.replace(/\.onnx$/, '') }))
    .filter((m) => !only || only.includes(SECTION) || only.includes(m.name));
}

/**
 * Times every model of `models` (selectModels) with compareModel, one after another: `runs`
 * timed runs after `warmup` of each session; `ort` is onnxruntime-web (numThreads already
 * set), `gridsample` the module from load(). Returns one row per model: compareModel's result
 * without its feeds and plan (the plan's parts are in `parts`), or `{ error }` when the split
 * session itself failed; never throws.
 */
export async function timeModels(models, { ort, gridsample, runs, minMs, warmup, log = () => {} }) {
  const rows = [];
  for (const m of models) {
    const row = { name: m.name, file: m.file, title: m.title, inputs: m.inputs.map(({ name, dtype, dims }) => ({ name, dtype, dims })) };
    log(`\n== ${m.name}: ${m.title}`);
    if (globalThis.gc) globalThis.gc();
    try {
      // Feeds at index.json's shapes and in its value ranges (compareModel's seeded values).
      const dims = Object.fromEntries(m.inputs.map((i) => [i.name, i.dims]));
      const ranges = Object.fromEntries(m.inputs.filter((i) => i.range).map((i) => [i.name, i.range]));
      const { feeds, plan, ...result } = await compareModel(readFileSync(join(MODELS_DIR, m.file)), {
        ort, gridsample, dims, ranges, runs, minMs, warmup, sessionOptions: SESSION_OPTIONS,
      });
      rows.push({ ...row, ...result });
      const ortText = result.onnxruntime.error ? `fails: ${result.onnxruntime.error}` : `median ${result.onnxruntime.median.toFixed(3)} ms`;
      log(`  onnxruntime-web ${ortText}`);
      log(`  split           median ${result.split.median.toFixed(3)} ms, p90 ${result.split.p90.toFixed(3)} ms (${result.split.runs} runs)`);
      for (const p of result.parts) {
        const ref = p.onnxruntimeMs === null ? '' : `, on onnxruntime ${p.onnxruntimeMs.toFixed(3)} ms`;
        log(`    part ${p.part} on ${p.runsOn.padEnd(11)} ${p.ms.toFixed(3)} ms${ref} (${Object.entries(p.ops).map(([op, n]) => `${n} ${op}`).join(', ')})`);
      }
    } catch (e) {
      rows.push({ ...row, error: String(e?.message ?? e).split('\n')[0] });
      log(`  error: ${rows.at(-1).error}`);
    }
  }
  return rows;
}
