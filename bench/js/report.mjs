// Renders bench/RESULTS.md from one run's measurements: machine, how it was measured, targets, SIMD targets, summary, memory bandwidth, the scaling model's estimates, whole models and per-workload tables.
//
// The sections' parts: report_targets.mjs (TARGETS and their rules), report_tables.mjs (the
// workloads' tables), report_scaling.mjs (bandwidth, cores, scaling model), report_models.mjs
// (whole models), report_format.mjs (figures and tables).

import { modelsSection } from './report_models.mjs';
import { bandwidthSection, coresText, scalingSection } from './report_scaling.mjs';
import { DISPATCH_SLACK, dispatchTable, summaryTables, workloadSection } from './report_tables.mjs';
import { TARGETS, evaluate, statusCell } from './report_targets.mjs';
import { table } from './report_format.mjs';
import { baselineText } from './workloads.mjs';

/** The workloads of this run with a baseline and its settings, e.g. "nearest2d: img2d's mode linear". */
function baselineList(workloads) {
  const based = workloads.filter((w) => w.baseline);
  return based.length ? based.map((w) => `${w.name}: ${baselineText(w)}`).join('; ') : 'none in this run';
}

/** What the child process running onnxruntime-web on threads said about them (ort_web_threads.mjs). */
function ortWebThreadsText(info) {
  if (!info) return 'not run';
  const fell = info.fellBack || info.numThreads !== info.requested;
  return `numThreads ${info.requested} asked in a child process; onnxruntime-web kept ${info.numThreads}${fell
    ? ` (**fell back**${info.warnings.length ? `: ${info.warnings.join(' ')}` : ''})` : ', no fallback warning'}; ${info.threadsInProcess} threads in that process`;
}

/** The whole RESULTS.md text. */
export function renderReport({ env, workloads, results, models, impls, quick, method, scaling }) {
  const implsById = Object.fromEntries(impls.map((i) => [i.id, i]));
  const evaluations = {};
  const all = [];
  for (const w of workloads) {
    evaluations[w.name] = (TARGETS[w.name] || []).map((t) => {
      const e = evaluate(t, w, results, implsById);
      // Which table rows show this target: the peer's, the floor's or our own.
      e.rows = t.kind === 'peer' ? [].concat(t.id) : [t.kind === 'scales' ? t.many : t.ours];
      all.push(e);
      return e;
    });
  }
  const met = all.filter((e) => e.status === 'met').length;
  const missed = all.filter((e) => e.status === 'missed').length;
  const na = all.length - met - missed;
  const targets = env.native?.targets ?? [];
  const dispatch = dispatchTable(workloads, results, targets);
  const dispatchMet = dispatch.checks.filter((e) => e.status === 'met').length;
  const dispatchMissed = dispatch.checks.filter((e) => e.status === 'missed').length;

  const machineRows = [
    ['CPU', `${env.cpu} (${env.cores} logical cores; ${env.isa || 'no SSE4.2/AVX flags read'})`],
    ['memory, kernel', `${env.memoryGiB} GiB, ${env.kernel}`],
    ['Node.js', `${env.node} (V8 ${env.v8})`],
    ['date', env.date],
    ['load average (1 min) at start, end', `${env.loadStart}, ${env.loadEnd} (other work on the machine inflates times)`],
    ['gridsample commit', env.commit],
    ['our wasm', `${env.wasmTargets.simd}; ${env.wasmTargets.scalar}; ${env.wasmTargets.threads}`],
    ['our native', env.native ? `SIMD target ${env.native.target} (of ${targets.join(', ')}); Google Benchmark context: ${env.native.mhz} MHz, ${env.native.caches}, CPU scaling ${env.native.scaling ? 'on' : 'off'}` : 'not run'],
    ['onnxruntime-web, 2 threads', ortWebThreadsText(env.ortWebThreads)],
    ['peers', Object.entries(env.versions).map(([k, v]) => `${k} ${v}`).join(', ') + ` (OpenCV.js parallel framework: ${env.opencvParallel ?? 'unknown'})`],
  ];

  return [
    '<!-- Written by bench/run.sh (bench/js/bench.mjs) from one run; do not edit by hand. -->',
    '# gridsample benchmark results',
    '',
    quick ? `**Quick run (\`--quick\`: ${method.minReps} samples each, ${method.models.runs} runs per session of a model): for development only, not for quoting.**\n` : '',
    table(['machine', ''], machineRows),
    '',
    '## How this was measured',
    '',
    '- One run of `make bench` (`bench/run.sh`). Everything except the native binary runs in one Node.js process;',
    '  the native Google Benchmark binary gets the same input bytes through files and is launched by that process.',
    '  Every ratio below comes from this run.',
    '- Single thread everywhere but the Threads rows: `ort.env.wasm.numThreads = 1`; onnxruntime-node with',
    '  `intraOpNumThreads` and `interOpNumThreads` 1; the npm OpenCV.js build has no threads; our calls on one',
    '  thread. The Threads rows: ours natively on 2 threads of its pool (timed in the same launches as 1 thread,',
    '  and checked to write the same bytes), onnxruntime-node with `intraOpNumThreads` 2 (sampled in the same rounds),',
    '  our `simd-threads` wasm build on 2 threads (heap tensors, timed in the same rounds as the one-thread build),',
    '  and onnxruntime-web with `numThreads` 2 in a child Node process (`js/ort_web_threads.mjs`: numThreads is per',
    '  process), set up on the same input bytes and checked like the others; it times itself, one sample per request,',
    `  when its turn in this process's rounds comes (this process waiting), at most ${method.ortWebT2MaxReps ?? '?'} samples per workload, each followed`,
    '  by a pause until its spinning threads are idle (outside the timed batch).',
    '- The speed of this machine drifts (other work on it), so the implementations of a workload are timed',
    '  side by side, not one after another. WebAssembly / JS: all of a workload\'s implementations are set up and',
    `  checked, then each gets ${method.warmup} warm-up calls, the fastest of which sets its batch size (calls under ${method.minSampleMs} ms are timed in batches:`,
    '  "samples" = samples x calls per sample). Then come rounds: garbage is collected once, then every',
    '  implementation takes one sample, in an order rotated by one each round. Rounds go on until each has',
    `  ${method.minReps} samples and either ${method.maxReps} or the budget (${method.budgetMs} ms per implementation timed) is spent.`,
    '  Reported: median, p90 and min in ms (p90 of the samples: where calls are batched, of batch means,',
    '  so it shows the tail of runs of calls, not of single calls; the Loops table has per-call p90),',
    '  and the median in ns per output element.',
    '- Native: a first run of the binary checks the public API against the scalar reference (and writes its',
    `  output, compared with the peers) and times the reference: Google Benchmark, ${method.nativeRefReps} repetitions of at least`,
    `  ${method.nativeMinTime} s. Then, per workload, ${method.nativeRounds} rounds: garbage collection; the binary launched on that workload`,
    `  alone, timing the public API, the baseline settings (below; if any) and the memcpy floor (${method.nativeRoundReps} repetitions`,
    `  of at least ${method.nativeMinTime} s each, interleaved in random order); then onnxruntime-node (set up, checked, warmed up and`,
    `  batched once before the rounds) for ${method.ortNodeShare.minReps} to ${method.ortNodeShare.maxReps} samples (as many as fit in ${Math.round(method.ortNodeShare.budgetMs)} ms). Median, p90 and min are over`,
    '  the repetitions / samples of all rounds.',
    `- Baseline settings rows (${baselineList(workloads)}): ours on the workload's own inputs with the`,
    '  settings its "faster than" or "within" target compares with, timed in the same rounds as the',
    '  workload\'s other rows (wasm: one more implementation of its rounds; native: in the same launches of the',
    '  binary as the public API). They compute other values, so, like the copy floors, they are not compared with',
    '  the reference. Those targets divide our median by the baseline row\'s, never by another workload\'s rows,',
    '  which were timed at another time, when the machine may have been 2 to 3 times faster or slower.',
    '- Before timing, every output is compared with ours (wasm SIMD; onnxruntime-node with our native build;',
    '  the plain JS loop where ours is not available). A MISMATCH means different work: such a ratio',
    '  counts for no target. OpenCV.js may quantise positions to 1/32 pixel (its fixed-point maps), so its tolerance is the bound that',
    `  implies on data in [0, 1) (linear ${method.opencvTol.linear.toFixed(4)}, cubic ${method.opencvTol.cubic.toFixed(4)}); exact peers must agree within`,
    '  1e-6 (nearest), 1e-5 (linear), 1e-4 (cubic), 8-bit images 1 level. For OpenCV.js on 8-bit images the same',
    '  position bound is applied per element: 1 level + 2/64 of the value range around it (up to 9 at the image edge).',
    '- Speed-ups pair rows that move the same bytes: onnxruntime-web copies inputs into its heap and the output',
    '  out on each `run()`, so it is compared with our copying API; OpenCV.js (Mats made beforehand) and the plain',
    '  JS loop work in place, so they are compared with our heap tensors; onnxruntime-node (which copies its output',
    '  into a new array) with our native public API.',
    '- OpenCV.js gets pixel-space maps made beforehand and runs in two layouts: channels-last (the NCHW input is',
    '  transposed before timing, one `remap` per batch item; `warpAffine` for rgba8) and one NCHW plane at a time',
    '  (`convertMaps` once per batch item, then `remap` per plane), each with OpenCV.js 5 and 4 (5 is faster at',
    '  float remap, 4 at the RGBA `warpAffine`). The summary and the rgba8 target take the fastest matching row.',
    '- "speed-up of ours" is that row\'s median divided by the median of the named row of ours; "ours / floor" is',
    '  our median divided by the floor\'s.',
    '- Copy floor: one copy moving the bytes the operator must move, i.e. (input + output bytes) / 2 copied',
    '  (read + written = input + output). wasm: `memory.copy` inside a wasm instance and `TypedArray.set`, the',
    '  faster counts; native: `memcpy`.',
    '- SIMD targets: the native rounds also time the public API with dispatch forced to each SIMD target this',
    '  CPU has (`gridsample::SetTarget`), in the same launches, and for rgba8 the other channels-last kernels on',
    `  its image. The dispatch check: the default target's fastest repetition (min) is at most ${DISPATCH_SLACK}x every`,
    '  lower target\'s (the min is what other work on the machine inflates least).',
    '',
    // A run of the models alone (--only models) has no workload tables.
    ...(workloads.length ? [
      `## Targets (issues #4 and #16): ${met} met, ${missed} missed, ${na} not measurable`,
      '',
      table(['target', 'status'], all.map((e) => [e.text, statusCell(e)])),
      '',
      `## SIMD targets, native (median ms): dispatch check ${dispatchMet} met, ${dispatchMissed} missed`,
      '',
      targets.length
        ? table(['kernel', ...targets.map((t) => `${t}${t === targets[0] ? ' (default)' : ''}`), 'default / fastest lower (min)', 'check'], dispatch.rows)
        : 'Not run (no native binary, or one that does not list its targets).',
      '',
      '## Summary (median ms)',
      '',
      summaryTables(workloads, results, impls),
      `Cores during the run (bench/native/cores.cc, after the native rounds): ${coresText(scaling?.cores)}. On this VM`,
      'the two vCPUs sometimes share one physical core (then 2 threads cannot be faster than 1), and it changes over time.',
      '',
      bandwidthSection(scaling),
      scalingSection(workloads, results, scaling),
    ] : []),
    ...(models?.length ? [modelsSection(models, method.models)] : []),
    ...(workloads.length ? [
      '## Per workload',
      '',
      ...workloads.map((w) => workloadSection(w, results, impls, implsById, evaluations[w.name])),
    ] : []),
  ].join('\n');
}
