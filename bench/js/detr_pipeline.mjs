// End to end at real shapes (issue 45 item 5): a Deformable-DETR-shaped detector at 640x640 (6 encoder and 6 decoder layers, tests/js/lib/deformable_detr.mjs) through transformers.js's object-detection pipeline on onnxruntime-web alone, split unfused and fused, and its 6-layer encoder alone against onnxruntime-node and -web alone; per call median and p90, and each side's peak RSS, one thread, a process per side.
//
//   node bench/js/detr_pipeline.mjs [--runs 3] [--rounds 2] [--warmup 1] [--json FILE]   # alone; make bench runs it too
//   node bench/js/detr_pipeline.mjs --from FILE   # the section again from --json's measurements
//
// Needs tests/js's install (transformers.js 4.x as `transformers4`, onnxruntime-web and -node).
// The pipeline's sides run in tests/js/lib/pipeline_side.mjs; the encoder's in this file (--encoder).
// Processes alternate side by side, round by round; a side's peak RSS is the largest of its
// processes' (process.resourceUsage().maxRSS), model creation included.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { detrModel, DETR_SHAPES } from '../../tests/js/lib/deformable_detr.mjs';
import { writeDetectorFolder } from '../../tests/js/lib/tiny_detector.mjs';
import { ms, ratio, table } from './report_format.mjs';
import { judge, statusCell } from './report_targets.mjs';
import { stats } from './timing.mjs';

const HERE = fileURLToPath(import.meta.url);
const TESTS = fileURLToPath(new URL('../../tests/js/', import.meta.url));
const SIDE = join(TESTS, 'lib', 'pipeline_side.mjs');
const PIPELINE_SIDES = { onnxruntime: 'onnxruntime-web alone', unfused: 'split unfused (fuseAttention: false)', fused: 'fused (gridsample/ort as it is)' };
const ENCODER_SIDES = { 'ort-node': 'onnxruntime-node alone', 'ort-web': 'onnxruntime-web alone', 'fused-web': 'fused, onnxruntime-web parts', 'fused-node': 'fused, onnxruntime-node parts' };
const MB = 2 ** 20;

// One encoder side in this process: `runs` timed runs after `warmup`; prints {times, cpu, peakRss, fused}.
async function runEncoder(side, model, runs, warmup) {
  const onNode = side.endsWith('node');
  const ort = onNode ? await import(pathToFileURL(join(TESTS, 'node_modules', 'onnxruntime-node', 'dist', 'index.js')).href)
    : await import(pathToFileURL(join(TESTS, 'node_modules', 'onnxruntime-web', 'dist', 'ort.node.min.mjs')).href);
  const base = ort.default?.InferenceSession ? ort.default : ort;
  if (!onNode) base.env.wasm.numThreads = 1;
  const bytes = readFileSync(model);
  const options = onNode ? { intraOpNumThreads: 1, interOpNumThreads: 1 } : {};
  let session;
  if (side.startsWith('fused')) {
    const { InferenceSession } = await import('../../js/onnx.mjs');
    session = await InferenceSession.create(bytes, { ort: base, placement: 'gridsample', ...options });
  } else {
    session = await base.InferenceSession.create(bytes, options);
  }
  const size = DETR_SHAPES.size;
  const pixels = Float32Array.from({ length: 3 * size * size }, (_, i) => ((i * 7919) % 255) / 255);
  const feeds = { pixel_values: new base.Tensor('float32', pixels, [1, 3, size, size]) };
  const times = [];
  const cpu = [];
  for (let i = 0; i < runs + warmup; ++i) {
    const [t0, c0] = [performance.now(), process.cpuUsage()];
    await session.run(feeds);
    const c = process.cpuUsage(c0);
    if (i >= warmup) {
      times.push(performance.now() - t0);
      cpu.push((c.user + c.system) / 1000);
    }
  }
  const fused = session.plan?.().attention?.fused ?? 0;
  await session.release();
  console.log(JSON.stringify({ times, cpu, fused, peakRss: process.resourceUsage().maxRSS * 1024 }));
}

const node = (args) => JSON.parse(execFileSync(process.execPath, ['--no-concurrent-recompilation', ...args], { encoding: 'utf8', maxBuffer: 64 << 20 }).trim().split('\n').pop());

// Each side's calls over `rounds` rounds, sides alternating: { side: { median, p90, cpu, peakRss, ... } }.
function alternate(sides, rounds, once, log) {
  const all = Object.fromEntries(sides.map((s) => [s, { times: [], cpu: [], peakRss: 0, last: null }]));
  for (let r = 0; r < rounds; ++r) {
    for (const side of sides) {
      const out = once(side);
      const a = all[side];
      a.times.push(...out.times);
      a.cpu.push(...out.cpu);
      a.peakRss = Math.max(a.peakRss, out.peakRss);
      a.last = out;
      log(`  round ${r + 1} ${side.padEnd(11)} median ${stats(out.times).median.toFixed(0)} ms, peak RSS ${(out.peakRss / MB).toFixed(0)} MiB`);
    }
  }
  return Object.fromEntries(sides.map((s) => {
    const { median, p90, reps } = stats(all[s].times);
    return [s, { median, p90, calls: reps, cpu: stats(all[s].cpu).median, peakRss: all[s].peakRss, last: all[s].last }];
  }));
}

/** The pipeline's and the encoder's measurements: { shapes, runs, rounds, warmup, load, pipeline, encoder }. */
export function measureDetrPipeline({ runs = 3, rounds = 2, warmup = 1, log = () => {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'gridsample-detr-bench-'));
  const load = [loadavg()[0]];
  try {
    writeDetectorFolder(join(dir, 'detr'), { build: detrModel, ...DETR_SHAPES });
    const encoder = join(dir, 'encoder.onnx');
    writeFileSync(encoder, detrModel({ encoderOnly: true }));
    log('  the pipeline (640x480 picture, 6 + 6 layers)');
    const pipeline = alternate(Object.keys(PIPELINE_SIDES), rounds, (side) => {
      const out = node([SIDE, JSON.stringify({ sides: [side], models: dir, model: 'detr', runs, warmup })]);
      return { ...out.results[side], peakRss: out.peakRss };
    }, log);
    load.push(loadavg()[0]);
    log('  the encoder alone (6 layers at 640x640)');
    const encoderSides = alternate(Object.keys(ENCODER_SIDES), rounds, (side) => node([HERE, '--encoder', side, '--model', encoder, '--runs', String(runs), '--warmup', String(warmup)]), log);
    load.push(loadavg()[0]);
    return { shapes: DETR_SHAPES, runs, rounds, warmup, load, pipeline, encoder: encoderSides };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sameDetections = (a, b) => a.length === b.length && a.every((d, i) => d.label === b[i].label && Math.abs(d.score - b[i].score) <= 1e-5);

/** The section of bench/RESULTS.md. */
export function renderDetrPipeline(m) {
  const { pipeline: p, encoder: e } = m;
  const row = (names, s, k) => [names[k], ms(s[k].median), ms(s[k].p90), ms(s[k].cpu), (s[k].peakRss / MB).toFixed(0)];
  const header = ['side', 'median ms', 'p90 ms', 'CPU ms', 'peak RSS MiB'];
  // Judged on the medians of wall time; the ratio of CPU times a call follows, for a loaded machine.
  const target = (text, ours, other, x) => {
    const { v, met } = judge('peer', ours.median, other.median, x);
    return `- ${text}: ${statusCell({ value: ratio(v), status: met ? 'met' : 'missed' })}; CPU time ${ratio(other.cpu / ours.cpu)}`;
  };
  const rss = (text, ours, theirs) => `- ${text}: ${ours <= theirs ? 'met' : '**missed**'} (${(ours / MB).toFixed(0)} vs ${(theirs / MB).toFixed(0)} MiB)`;
  const fusedPlan = p.fused.last;
  return `## End to end: a Deformable-DETR-shaped detector at 640x640 (Node.js, wasm, 1 thread)

tests/js/lib/deformable_detr.mjs at ${m.shapes.size}x${m.shapes.size}: a backbone stand-in, ${m.shapes.encoderLayers}
deformable encoder layers over 4 levels (80x80, 40x40, 20x20, 10x10: 8,500 queries),
${m.shapes.decoderLayers} decoder layers (${m.shapes.queries} queries, deformable cross-attention), ${m.shapes.heads} heads, ${m.shapes.points} points,
d_model ${m.shapes.dim}, FFN ${m.shapes.ffn}, random weights. ${m.rounds} rounds of ${m.runs} calls per side after ${m.warmup} warm-up call(s),
a fresh process per side and round, sides alternating; peak RSS is the largest of a side's
processes; CPU ms is the process's user + system time a call (the steadier figure on a shared
machine). Load average (1 min) at the start, between the two tables and at the end:
${m.load.map((l) => l.toFixed(2)).join(', ')} (\`node bench/js/detr_pipeline.mjs\`).

transformers.js 4.x's \`object-detection\` pipeline, one 640x480 picture a call (resize, model,
post-processing); the fused side's plan: ${fusedPlan.attention?.fused ?? 0} attention blocks fused, ${fusedPlan.counts?.gridsampleNodes ?? 0} nodes on gridsample
(placement 'auto'); detections ${sameDetections(p.fused.last.detections, p.onnxruntime.last.detections) && sameDetections(p.unfused.last.detections, p.onnxruntime.last.detections) ? 'the same on the three sides (labels, scores within 1e-5)' : 'DIFFERENT between the sides'}.

${table(header, Object.keys(PIPELINE_SIDES).map((k) => row(PIPELINE_SIDES, p, k)))}

The encoder alone (backbone stand-in and 6 encoder layers, \`pixel_values\` to the memory),
session.run() on one thread (onnxruntime-node's intraOpNumThreads 1); fused: ${e['fused-web'].last.fused} blocks.

${table(header, Object.keys(ENCODER_SIDES).map((k) => row(ENCODER_SIDES, e, k)))}

Targets (issue 45; on the medians of wall time):
${target('the 6-layer 640x640 encoder fused >= 1.8x onnxruntime-node alone (fused over onnxruntime-node)', e['fused-node'], e['ort-node'], 1.8)}
${target('the 6-layer 640x640 encoder fused >= 1.4x onnxruntime-web alone (fused over onnxruntime-web)', e['fused-web'], e['ort-web'], 1.4)}
${rss('the encoder fused over onnxruntime-node: peak RSS no higher than onnxruntime-node alone', e['fused-node'].peakRss, e['ort-node'].peakRss)}
${rss('the encoder fused over onnxruntime-web: peak RSS no higher than onnxruntime-web alone', e['fused-web'].peakRss, e['ort-web'].peakRss)}
${target('the detector\'s pipeline fused never slower than onnxruntime-web alone', p.fused, p.onnxruntime, 1)}
${rss('the pipeline fused: peak RSS no higher than onnxruntime-web alone', p.fused.peakRss, p.onnxruntime.peakRss)}
`;
}

if (process.argv[1] === HERE) {
  const { values } = parseArgs({ options: { encoder: { type: 'string' }, model: { type: 'string' }, runs: { type: 'string', default: '3' }, rounds: { type: 'string', default: '2' }, warmup: { type: 'string', default: '1' }, json: { type: 'string' }, from: { type: 'string' } } });
  if (values.encoder) await runEncoder(values.encoder, values.model, Number(values.runs), Number(values.warmup));
  else {
    const m = values.from ? JSON.parse(readFileSync(values.from, 'utf8')) : measureDetrPipeline({ runs: Number(values.runs), rounds: Number(values.rounds), warmup: Number(values.warmup), log: (x) => console.error(x) });
    if (values.json) writeFileSync(values.json, JSON.stringify(m));
    console.log(renderDetrPipeline(m));
  }
}
