// RESULTS.md's whole-model section (bench/js/onnx_models.mjs's rows): its table, the table of the models also timed on onnxruntime-node, and its targets (MODEL_TARGETS), judged by report_targets.mjs's rules.

import { ms, ratio, table } from './report_format.mjs';
import { judge, statusCell } from './report_targets.mjs';

// Targets of the whole-model table (bench/js/onnx_models.mjs), judged by the rules of the
// kinds above on this run's medians. `of` says what is compared: 'model', the split session
// against onnxruntime-web alone on the whole model; 'parts', the split session's GridSample /
// AffineGrid parts against onnxruntime-web on the same parts (the same split with every part
// on onnxruntime); 'node', the split session over onnxruntime-node against onnxruntime-node
// alone (a model timed there too). Model '*' is every model onnxruntime-web runs, met when met on each.
const onModel = (model, of, kind, x, slackMs = 0) => ({ model, of, kind, x, slackMs });
export const MODEL_TARGETS = [
  onModel('liveportrait_warp', 'model', 'peer', 5),
  onModel('*', 'model', 'within', 1.05, 0.1),
  onModel('deformable_attention', 'parts', 'peer', 2.5),
  onModel('deformable_attention', 'model', 'within', 1),
  onModel('stn28', 'model', 'within', 1.15),
  // Issue 45: multi-scale deformable attention as exporters write it, fused (one node of ours).
  onModel('attention_640', 'model', 'peer', 5),
  onModel('attention_800x1333', 'model', 'peer', 5),
  // The same with locations near their queries, as a model's reference points and offsets place them.
  onModel('attention_640_local', 'model', 'peer', 5),
  onModel('attention_800x1333_local', 'model', 'peer', 5),
  onModel('attention_decoder', 'model', 'peer', 2.5),
  // Issue 45's decoder block: D-FINE's, the value projected once outside it.
  onModel('decoder_block_dfine', 'model', 'peer', 2.5),
  onModel('decoder_block_dfine', 'node', 'peer', 2),
];

/** The parts of a model row that ran on gridsample: our median ms and onnxruntime-web's on them (null if it could not run them). */
function gridsampleParts(row) {
  const ours = row.parts.filter((p) => p.runsOn === 'gridsample');
  const sum = (key) => ours.reduce((a, p) => a + p[key], 0);
  return { ours: sum('ms'), other: ours.length && ours.every((p) => p.onnxruntimeMs !== null) ? sum('onnxruntimeMs') : null };
}

/** The two medians a model target compares, {ours, other}, or {note} saying why there are none. */
function modelMedians(row, of) {
  if (row.error) return { note: `${row.name}: split session error (${row.error})` };
  if (of === 'node') {
    const n = row.node;
    if (!n) return { note: `${row.name}: not timed on onnxruntime-node` };
    if (n.error) return { note: `${row.name}: split session over onnxruntime-node error (${n.error})` };
    return n.onnxruntime.error ? { note: `${row.name}: onnxruntime-node fails (${n.onnxruntime.error})` } : { ours: n.split.median, other: n.onnxruntime.median };
  }
  if (row.onnxruntime.error) return { note: `${row.name}: onnxruntime-web fails (${row.onnxruntime.error})` };
  if (of === 'model') return { ours: row.split.median, other: row.onnxruntime.median };
  const p = gridsampleParts(row);
  return p.other === null ? { note: `${row.name}: no onnxruntime-web time of the same parts (${row.reference.error ?? 'none on gridsample'})` } : p;
}

function modelTargetText(t) {
  const who = t.model === '*' ? 'every model onnxruntime-web runs' : t.model;
  const what = { model: 'split session', node: 'split session over onnxruntime-node', parts: 'GridSample / AffineGrid parts on gridsample' }[t.of];
  const than = { model: 'onnxruntime-web alone', node: 'onnxruntime-node alone', parts: 'onnxruntime-web on the same parts' }[t.of];
  if (t.kind === 'peer') return `${who}: ${what} >= ${t.x}x faster than ${than}`;
  if (t.slackMs) return `${who}: ${what} at most ${Math.round((t.x - 1) * 100)}% or ${t.slackMs} ms slower than ${than}, whichever is larger`;
  return t.x === 1 ? `${who}: ${what} not slower than ${than}` : `${who}: ${what} within ${t.x}x of ${than}`;
}

/** Evaluates one of MODEL_TARGETS on the model rows; returns {text, value, status} as evaluate() does. */
function evaluateModelTarget(t, rows) {
  const text = modelTargetText(t);
  const chosen = rows.filter((row) => (t.model === '*' ? !row.error && !row.onnxruntime.error : row.name === t.model));
  if (!chosen.length) return { text, status: 'n/a', note: t.model === '*' ? 'no model ran on both' : `${t.model}: not run` };
  const each = chosen.map((row) => ({ row, ...modelMedians(row, t.of) }));
  const missing = each.find((e) => e.note);
  if (missing) return { text, status: 'n/a', note: missing.note };
  for (const e of each) Object.assign(e, judge(t.kind, e.ours, e.other, t.x, t.slackMs));
  const figures = (e) => `${ratio(e.v)}, ${ms(e.ours)} vs ${ms(e.other)} ms`;
  const missed = each.filter((e) => !e.met);
  if (t.model !== '*') return { text, value: figures(each[0]), status: missed.length ? 'missed' : 'met' };
  if (missed.length) return { text, value: missed.map((e) => `${e.row.name} ${figures(e)}`).join('; '), status: 'missed' };
  const worst = each.reduce((a, b) => (a.v >= b.v ? a : b));
  return { text, value: `slowest relative to onnxruntime-web: ${worst.row.name} ${figures(worst)}`, status: 'met' };
}

/** Max |split - onnxruntime-web| over each output's largest magnitude (named when there are several). */
function relativeDiffCell(outputs) {
  if (!outputs) return '';
  const entries = Object.entries(outputs);
  const rel = ({ maxAbsDiff, scale }) => {
    if (Number.isNaN(maxAbsDiff)) return 'sizes differ';
    const d = scale > 0 ? maxAbsDiff / scale : maxAbsDiff;
    return d === 0 ? '0' : d.toExponential(1);
  };
  return entries.length === 1 ? rel(entries[0][1]) : entries.map(([name, o]) => `${name} ${rel(o)}`).join(', ');
}

/** The whole-model section: how it was timed, one row per model, its targets. */
export function modelsSection(rows, timing) {
  const tableRows = rows.map((row) => {
    if (row.error) return [row.name, '', `error: ${row.error}`, '', '', '', '', '', '', ''];
    const ort = row.onnxruntime;
    const p = gridsampleParts(row);
    const none = !row.parts.some((q) => q.runsOn === 'gridsample');
    const partsCells = none ? ['none: placement left every node to onnxruntime', '', '']
      : p.other === null
      ? [ms(p.ours), !row.reference.error ? '' : row.reference.error === ort.error ? 'fails (as above)' : `fails: ${row.reference.error}`, '']
      : [ms(p.ours), ms(p.other), ratio(p.other / p.ours)];
    return [row.name, ort.error ? `fails: ${ort.error}` : ms(ort.median), ms(row.split.median), ms(row.split.p90),
      ort.error ? '' : ratio(ort.median / row.split.median), none ? '' : `${Math.round(100 * row.gridsampleShare.split)}%`,
      ...partsCells, relativeDiffCell(row.outputs)];
  });
  const onNode = rows.filter((row) => row.node);
  const nodeRows = onNode.map(({ name, node: n }) => (n.error ? [name, '', `error: ${n.error}`, '', '', '']
    : [name, n.onnxruntime.error ? `fails: ${n.onnxruntime.error}` : ms(n.onnxruntime.median), ms(n.split.median), ms(n.split.p90),
      n.onnxruntime.error ? '' : ratio(n.onnxruntime.median / n.split.median),
      `${n.attention ? `${n.attention.fused} fused; ` : ''}${n.runsOn.join(', ')}`, relativeDiffCell(n.outputs)]));
  const checks = MODEL_TARGETS.map((t) => evaluateModelTarget(t, rows));
  const met = checks.filter((e) => e.status === 'met').length;
  const missed = checks.filter((e) => e.status === 'missed').length;
  return [
    '## Whole ONNX models (onnxruntime-web, wasm, 1 thread; median ms)',
    '',
    'The example models of `web/demo/models` (inputs at `index.json`\'s shapes and value ranges, seeded random values) and those made',
    'in `bench/js/onnx_models.mjs` (`decoder_block`: an RT-DETR decoder\'s deformable attention at its real size with its value_proj,',
    'an 8,400 x 256 x 256 MatMul that onnxruntime runs in both sessions and that takes most of the time, which bounds the speed-up;',
    '`decoder_block_dfine`: issue 45\'s decoder block, D-FINE\'s, whose value comes projected once for all the layers, value 1x8,400x8x32;',
    'the deformable-attention blocks and cores; `tiny_affine_nearest`), each run',
    'by onnxruntime-web alone and by gridsample/onnx\'s split session (its GridSample /',
    'AffineGrid nodes on our wasm SIMD build, every other part an onnxruntime-web session), in this Node.js',
    `process: execution provider ${timing.sessionOptions.executionProviders.join(', ')}, \`numThreads = 1\`. Timed by \`js/onnx/timing.mjs\` (\`compareModel\`):`,
    `each session warmed up (at least ${timing.warmup} runs and 1 s: engines optimise late), then at least ${timing.runs} timed runs of each and more for ${timing.minMs / 1000} s, alternating in blocks of runs with a third, the same`,
    `split with every part on onnxruntime-web (the per-part reference), warmed up alike. Times are of whole \`run()\``,
    'calls; part times and the share come from the split session\'s profile (`run(feeds, { profile: true })`).',
    '"GridSample parts" are the parts run on gridsample (GridSample and AffineGrid nodes), next to',
    'onnxruntime-web\'s time on the same parts; "max abs diff" is the largest |split - onnxruntime-web| of each',
    'output divided by that output\'s largest magnitude. The split session places its nodes at its first run',
    '(`placement: \'auto\'`, js/onnx/placement.mjs): where onnxruntime runs the nodes as gridsample does, it times whole runs',
    'of the split and of onnxruntime\'s placement on the feeds and keeps the faster ("none" below: onnxruntime\'s); "split ms" is that session\'s.',
    '',
    table(['model', 'onnxruntime-web ms', 'split ms', 'split p90 ms', 'speed-up', 'GridSample share of split',
      'GridSample parts: ours ms', 'onnxruntime-web ms, same parts', 'speed-up, same parts', 'max abs diff / output scale'], tableRows),
    '',
    ...(onNode.length ? [
      'On onnxruntime-node (CPU, `intraOpNumThreads` and `interOpNumThreads` 1): onnxruntime-node alone against the split session whose',
      'onnxruntime parts are onnxruntime-node sessions (`InferenceSession.create(bytes, { ort })`, ort = onnxruntime-node; ours on the same wasm',
      'SIMD build), timed as above in the same way (alternating blocks, at least as many runs), without the per-part reference.',
      '',
      table(['model', 'onnxruntime-node ms', 'split ms', 'split p90 ms', 'speed-up', 'plan', 'max abs diff / output scale'], nodeRows),
      '',
    ] : []),
    `Targets (whole models): ${met} met, ${missed} missed, ${checks.length - met - missed} not measurable.`,
    '',
    ...checks.map((e) => `- ${e.text}: ${statusCell(e)}`),
    '',
  ].join('\n');
}
