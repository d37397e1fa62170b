// transformers.js's object-detection pipeline on an RT-DETR-shaped detector at decoder shapes (300 queries, 8 heads, 3 levels, 4 points), on onnxruntime-web alone and on gridsample/ort's split session (wasm, one thread, Node.js): median and p90 per pipeline call.
//
//   node bench/js/transformers_pipeline.mjs [--runs 30] [--rounds 4]   # alone; make bench runs it too
//
// Needs tests/js's install (transformers.js 4.x as `transformers4`, onnxruntime-web).
// transformers.js reads its onnxruntime once, at import, so each side runs in a process of its
// own (tests/js/lib/pipeline_side.mjs), the sides alternating round by round; both give
// transformers.js's hook an onnxruntime-web module, one as it is, one wrapped by gridsample/ort's
// ortModule.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { stats } from './timing.mjs';

const HERE = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TESTS = join(ROOT, 'tests', 'js');
const SHAPES = { size: 320, queries: 300, dim: 256, heads: 8, points: 4 }; // levels 40x40, 20x20, 10x10
// The two sides, as tests/js/lib/pipeline_side.mjs (which runs one in a process) names them.
const SIDES = { onnxruntime: 'onnxruntime', gridsample: 'fused' };
const SIDE = join(TESTS, 'lib', 'pipeline_side.mjs');
// Calls before timing: the first 10 to 20 are slower on both sides while V8 tiers up the wasm of
// onnxruntime (and ours) and the JavaScript of transformers.js.
const WARMUP = 20;

const fileUrl = (...parts) => pathToFileURL(join(...parts)).href;

/**
 * Both sides, `rounds` times each, alternating: { shapes, runs, rounds, sides: { name: { median,
 * p90, calls, roundMedians } }, ratio (onnxruntime's median over ours), sameDetections }.
 */
export function measureTransformersPipeline({ runs = 30, rounds = 4, log = () => {} } = {}) {
  const models = mkdtempSync(join(tmpdir(), 'gridsample-tf-bench-'));
  const times = Object.fromEntries(Object.keys(SIDES).map((s) => [s, []]));
  const roundMedians = Object.fromEntries(Object.keys(SIDES).map((s) => [s, []]));
  const detections = {};
  try {
    execFileSync(process.execPath, ['--input-type=module', '-e', `import { writeDetectorFolder } from ${JSON.stringify(fileUrl(TESTS, 'lib', 'tiny_detector.mjs'))};
writeDetectorFolder(${JSON.stringify(join(models, 'rt-detr-decoder'))}, ${JSON.stringify(SHAPES)});`]);
    for (let r = 0; r < rounds; ++r) {
      for (const side of Object.keys(SIDES)) {
        const options = { sides: [SIDES[side]], models, model: 'rt-detr-decoder', runs, warmup: WARMUP };
        const out = execFileSync(process.execPath, ['--no-concurrent-recompilation', SIDE, JSON.stringify(options)], { encoding: 'utf8', maxBuffer: 16 << 20 });
        const result = JSON.parse(out.trim().split('\n').pop()).results[SIDES[side]];
        times[side].push(...result.times);
        const { median } = stats(result.times);
        roundMedians[side].push(median);
        detections[side] = result.detections.map((d) => `${d.label} ${d.score.toFixed(4)}`);
        log(`  round ${r + 1} ${side.padEnd(12)} median ${median.toFixed(2)} ms`);
      }
    }
  } finally {
    rmSync(models, { recursive: true, force: true });
  }
  const sides = Object.fromEntries(Object.keys(SIDES).map((s) => {
    const { median, p90, reps } = stats(times[s]);
    return [s, { median, p90, calls: reps, roundMedians: roundMedians[s] }];
  }));
  return {
    shapes: SHAPES, runs, rounds, sides,
    ratio: sides.onnxruntime.median / sides.gridsample.median,
    detections: detections.gridsample.length,
    sameDetections: JSON.stringify(detections.gridsample) === JSON.stringify(detections.onnxruntime),
  };
}

/** The section of bench/RESULTS.md. */
export function renderTransformersPipeline(m) {
  const row = (name, s) => `| ${name} | ${s.median.toFixed(2)} | ${s.p90.toFixed(2)} | ${s.roundMedians.map((x) => x.toFixed(1)).join(', ')} |`;
  return `## transformers.js object detection (Node.js, onnxruntime-web wasm, 1 thread)

transformers.js 4.x's \`object-detection\` pipeline, one 640x480 picture per call (resize,
model, post-processing), on an RT-DETR-shaped detector at decoder shapes (${m.shapes.queries}
queries, ${m.shapes.heads} heads, 3 levels 40x40 / 20x20 / 10x10, ${m.shapes.points} points;
random weights): onnxruntime-web alone against gridsample/ort's split session. ${m.rounds}
rounds of ${m.runs} calls per side after ${WARMUP} warm-up calls, a fresh process per side and
round, sides alternating (\`node bench/js/transformers_pipeline.mjs\`).

| side | median ms | p90 ms | round medians |
| --- | ---: | ---: | --- |
${row('onnxruntime-web alone', m.sides.onnxruntime)}
${row('split (gridsample/ort)', m.sides.gridsample)}

Ratio (onnxruntime-web alone over the split): ${m.ratio.toFixed(3)}x; ${m.detections} detections,
${m.sameDetections ? 'the same on both sides (labels, scores to 4 places)' : 'DIFFERENT on the two sides'}.
`;
}

if (process.argv[1] === HERE) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, rounds: { type: 'string', default: '4' } } });
  console.log(renderTransformersPipeline(measureTransformersPipeline({ runs: Number(values.runs), rounds: Number(values.rounds), log: (m) => console.error(m) })));
}
