#!/usr/bin/env node
// The peer benchmark (make bench, via bench/run.sh): times every workload on every implementation, and the example ONNX models whole, in one process and writes bench/RESULTS.md and bench/chart.svg.
//
// One run, one process: our wasm (SIMD and scalar), onnxruntime-web, OpenCV.js, a plain JS loop
// and the copy floors are timed here, all implementations of a workload together in rounds
// (timing.mjs); the native Google Benchmark binary is launched from here on the same input
// bytes, once for its checks and then once per round of a workload, alternating with
// onnxruntime-node. So every ratio in the report comes from measurements of this run taken
// side by side, which the machine's drifting speed affects alike. A workload with a baseline
// (workloads.mjs) also times ours on its inputs with the baseline's settings in those rounds,
// for the targets comparing two settings. onnxruntime-web on 2 threads runs in a child process
// (ort_web_threads.mjs; numThreads is per process) that takes its samples when its turn in
// these rounds comes. After the native rounds, the scaling model's inputs are measured: memory
// bandwidth (gridsample_membw) and two probe calls in the native binary
// (report_scaling.mjs, scalingModel). Before timing, each output is compared with ours; a
// peer whose output differs is flagged and its ratio is not counted. Last, each example ONNX
// model runs on onnxruntime-web alone and on gridsample/onnx's split session (onnx_models.mjs; those
// marked so also on onnxruntime-node alone and under the split session on it),
// multi-scale deformable attention's sampling is timed against onnxruntime's chain (deformable_attention.mjs),
// the image warps are timed against OpenCV.js (image_warps.mjs),
// a frame loop's p50 / p90 per call is taken (loop_latency.mjs), the first calls after load()
// are timed in fresh processes and fresh Chromium pages (first_calls.mjs), and the instructions per output element of
// our wasm kernels in V8's two tiers are counted under valgrind (instruction_counts.mjs).
//
// This file runs those steps in order; its parts: settings.mjs (the command line and the run's
// settings), impls.mjs (the rows and how outputs are checked), in_process.mjs (setting up,
// checking and timing in this process), native_binary.mjs (the native binary's phase),
// machine.mjs (the machine the report describes) and report.mjs (RESULTS.md).
//
// Usage: node --expose-gc bench/js/bench.mjs [--native PATH] [--out FILE] [--json FILE]
//          [--only name,name] [--quick]
//          (--only takes workload names, `models` for the whole ONNX models or one model's name)
//        node bench/js/bench.mjs --inputs-only DIR [--only name,name]
//          (writes the native binary's inputs to DIR and stops: for timing it by hand, e.g.
//          build/bench/gridsample_bench --inputs=DIR --targets --benchmark_filter=target)
//        node bench/js/bench.mjs --from-json FILE [--out FILE]
//          (renders the report again from the measurements a run saved with --json, without
//          measuring: for working on report.mjs; the tables after the models are not saved)
//        Both write chart.svg (chart.mjs) beside the report: in --out's folder.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';

import * as ortWeb from 'onnxruntime-web';

import { load, threadsSupported } from '../../js/node.mjs';
import { threadControl } from '../../js/core/api.mjs';
import { renderChart } from './chart.mjs';
import { floorCopyBytes, typedArrayCopier, wasmCopier } from './copy_floor.mjs';
import { measureFirstCalls, measureFirstCallsChromium, renderFirstCalls, renderFirstCallsChromium } from './first_calls.mjs';
import { describeResult, floorImpl, loadOpenCv, runWasmWorkload } from './in_process.mjs';
import { IMPLS, OPENCV_TOL, compare } from './impls.mjs';
import { measureGpuCallCost, renderGpuCallCost } from './gpu_call_cost.mjs';
import { renderGpuCosts } from './gpu_costs.mjs';
import { measureOrtWebGpu, renderOrtWebGpu } from './ort_webgpu_gridsample.mjs';
import { measureDeformableAttention, measureNativeAttention, renderDeformableAttention, renderNativeAttention } from './deformable_attention.mjs';
import { measureInstructionCounts, renderInstructionCounts } from './instruction_counts.mjs';
import { measureImageWarps, renderImageWarps } from './image_warps.mjs';
import { measureLoops, renderLoops } from './loop_latency.mjs';
import { machine, nativeEnv } from './machine.mjs';
import { measureScalingInputs, nativeIds, runNativeChecks, timeNative, writeNativeInputs } from './native_binary.mjs';
import { NODE_SESSION_OPTIONS, SESSION_OPTIONS, selectModels, timeModels } from './onnx_models.mjs';
import { poolScaling, renderPoolScaling } from './pool_scaling.mjs';
import { measureThreadPatterns, renderThreadPatterns } from './thread_patterns.mjs';
import { measureTinyCalls, renderTinyCalls } from './tiny_calls.mjs';
import { measureFixedMaps, renderFixedMaps } from './fixed_maps.mjs';
import { startOrtWebThreads } from './ort_web_threads.mjs';
import * as peers from './peers.mjs';
import { renderReport } from './report.mjs';
import {
  MODEL_TIMING, NATIVE_MIN_TIME, NATIVE_REF_REPS, NATIVE_ROUND_REPS, NATIVE_ROUNDS, ORT_NODE_SHARE, ORT_WEB_T2_MAX_REPS, THREADS, TIMING, args, log,
} from './settings.mjs';
import { measureTransformersPipeline, renderTransformersPipeline } from './transformers_pipeline.mjs';
import { measureWasmSizes, renderWasmSizes } from './wasm_size.mjs';
import { measureDetrPipeline, renderDetrPipeline } from './detr_pipeline.mjs';
import { baselineWorkload, makeWorkloads } from './workloads.mjs';

const require = createRequire(import.meta.url);

// --- main ------------------------------------------------------------------------------------------

async function main() {
  if (args.inputsOnly) {
    writeNativeInputs(args.inputsOnly, makeWorkloads().filter((w) => !args.only || args.only.includes(w.name)));
    log(`wrote the native inputs to ${args.inputsOnly}`);
    return;
  }
  if (args.fromJson) {
    const saved = JSON.parse(readFileSync(args.fromJson, 'utf8'));
    const workloads = makeWorkloads().filter((w) => saved.results[w.name]);
    const report = renderReport({ ...saved, workloads, impls: IMPLS });
    writeFileSync(args.out, report);
    writeChart(saved);
    console.log(report);
    log(`wrote ${args.out} from ${args.fromJson}`);
    return;
  }
  const env = machine();
  log(`machine: ${env.cpu}, ${env.cores} cores, node ${env.node}`);

  ortWeb.env.wasm.numThreads = 1; // one thread; no worker is started
  ortWeb.env.logLevel = 'error';
  const ortNode = require('onnxruntime-node');
  const simd = await load({ variant: 'simd' });
  // The threaded build on THREADS threads, timed in the same rounds as the one-thread build.
  const simdThreads = threadsSupported() ? await load({ variant: 'simd-threads', numThreads: THREADS }) : null;
  const scalar = await load({ variant: 'scalar' });
  const cv5 = await loadOpenCv('@techstark/opencv-js');
  const cv4 = await loadOpenCv('opencv-js-v4');
  const copier = await wasmCopier();
  env.wasmTargets = {
    simd: `${simd.backend} (${simd.target})`, scalar: `${scalar.backend} (${scalar.target})`,
    threads: simdThreads ? `${simdThreads.backend} (${simdThreads.threads} threads)` : 'no wasm threads in this Node',
  };
  env.opencvParallel = `${cv5.parallel} (5), ${cv4.parallel} (4)`;

  let workloads = makeWorkloads();
  if (args.only) workloads = workloads.filter((w) => args.only.includes(w.name));
  const results = {};
  // The inputs as files: for the native binary and for the child process running
  // onnxruntime-web on THREADS threads (ort_web_threads.mjs), the same bytes as ours.
  const dir = mkdtempSync(join(os.tmpdir(), 'gridsample-bench-'));
  let scaling = null;
  let ortWebThreads = null;
  try {
    writeNativeInputs(dir, workloads);
    if (workloads.length) ortWebThreads = await startOrtWebThreads({ threads: THREADS, dir, maxReps: ORT_WEB_T2_MAX_REPS });

    // 1. Everything that runs in this process's wasm/JS engine, workload by workload.
    for (const w of workloads) {
      log(`\n== ${w.name}: ${w.summary}`);
      const floorBytes = floorCopyBytes(w.inBytes, w.outBytes);
      const setups = {
        'simd': () => peers.oursHeap(simd, w),
        'simd-copy': () => peers.oursCopy(simd, w),
        'scalar': () => peers.oursHeap(scalar, w),
        'ort-web': () => peers.onnxruntimeWeb(ortWeb, w),
        'cv5': () => peers.openCv(cv5.cv, w),
        'cv5-planar': () => peers.openCvPlanar(cv5.cv, w),
        'cv4': () => peers.openCv(cv4.cv, w),
        'cv4-planar': () => peers.openCvPlanar(cv4.cv, w),
        'plain-js': () => peers.plainJs(w),
        'floor-wasm': () => floorImpl(copier.prepare(floorBytes)),
        'floor-js': () => floorImpl(typedArrayCopier(floorBytes)),
      };
      const base = baselineWorkload(w);
      if (base) setups['simd-base'] = () => peers.oursHeap(simd, base);
      if (simdThreads) {
        // One module on 1 and on THREADS threads, set before each call: its two rows differ in
        // the thread count alone (two modules differed by up to 1.4x on one thread, process to
        // process, which made the same call 0.85x to 1.9x "on 2 threads").
        const setThreads = threadControl(simdThreads);
        const on = (count) => () => {
          const impl = peers.oursHeap(simdThreads, w);
          const run = impl.run;
          return { ...impl, run: () => { setThreads(count); return run(); } };
        };
        setups['simd-t1'] = on(1);
        setups['simd-t2'] = on(THREADS);
      }
      setups['ort-web-t2'] = () => ortWebThreads.setup(w.name);
      results[w.name] = await runWasmWorkload(w, setups);
    }
    if (ortWebThreads) {
      env.ortWebThreads = await ortWebThreads.info();
      ortWebThreads.close();
      ortWebThreads = null;
    }

    // 2. The native binary on the same bytes (checks, then rounds alternating with
    // onnxruntime-node, which is checked against it), workload by workload.
    const native = runNativeChecks(args.native, dir, workloads);
    if (native.error) log(`native: ${native.error}`);
    env.native = nativeEnv(native.context);
    for (const w of workloads) {
      const r = results[w.name];
      const errorRow = { status: 'error', error: native.error };
      for (const id of nativeIds(w)) r[id] = native.results?.[w.name]?.[id] ?? errorRow;
      // The native build checked against the wasm SIMD one: same library, same inputs.
      if (r.native.output && w.reference) r.native.check = { ...compare(w.reference, r.native.output, w.tol), against: w.referenceId };
      log(`\n== ${w.name} (native)`);
      await timeNative(args.native, dir, w, r, ortNode);
      delete w.reference;
      for (const id of [...nativeIds(w), 'ort-node', 'ort-node-t2']) log(`  ${id.padEnd(12)} ${describeResult(r[id])}`);
    }

    // 2b. The scaling model's inputs (report_scaling.mjs, scalingModel): memory bandwidth on 1 and
    // THREADS threads, and the per-call costs of a tiny call and of a small split call.
    if (workloads.length) scaling = measureScalingInputs(args.native, dir);
  } finally {
    ortWebThreads?.close();
    rmSync(dir, { recursive: true, force: true });
  }

  // 3. Whole ONNX models: onnxruntime-web alone against the split session on our SIMD build.
  const models = await timeModels(selectModels(args.only), { ort: ortWeb, ortNode, gridsample: simd, ...MODEL_TIMING, log });

  // 4. A frame loop's latency per call (p50, p90), then the first calls after load() in fresh
  // Node processes and Chromium pages, warm-up on and off, then instruction counts.
  let extra = '';
  if (!args.only) {
    log('\n== multi-scale deformable attention, the sampling alone');
    extra += `\n${renderDeformableAttention(await measureDeformableAttention({ log }))}`;
    extra += `\n${renderNativeAttention(measureNativeAttention(join(dirname(args.native), 'gridsample_attention'), { log }))}`;
    extra += `\n${renderGpuCosts()}`;
    log('\n== WebGPU: the cost of a call around its kernel (SwiftShader, dispatches of 0 workgroups)');
    extra += `\n${renderGpuCallCost(measureGpuCallCost({ log }))}`;
    log("\n== onnxruntime-web's WebGPU GridSample and ours (SwiftShader)");
    extra += `\n${renderOrtWebGpu(measureOrtWebGpu({ log }))}`;
    log('\n== image warps');
    extra += `\n${renderImageWarps(await measureImageWarps(simd, [['OpenCV.js 5', cv5.cv], ['OpenCV.js 4', cv4.cv]], log))}`;
    log('\n== transformers.js object detection: onnxruntime-web alone against the split session');
    extra += `\n${renderTransformersPipeline(measureTransformersPipeline({ log }))}`;
    log('\n== end to end: a Deformable-DETR-shaped detector at 640x640, onnxruntime alone, split unfused and fused');
    extra += `\n${renderDetrPipeline(measureDetrPipeline({ log }))}`;
    log('\n== worker pool (createPool, 2 workers) against one instance');
    extra += `\n${renderPoolScaling(await poolScaling({ workers: THREADS, log, timing: TIMING }), scaling?.cores)}`;
    if (threadsSupported()) {
      log('\n== threads, calls one at a time');
      extra += `\n${renderThreadPatterns(await measureThreadPatterns({ threads: THREADS, log }), scaling?.cores)}`;
    }
    log('\n== loops');
    extra += `\n${renderLoops(measureLoops(simd, log))}`;
    log('\n== tiny calls, prepared and unprepared');
    extra += `\n${renderTinyCalls(await measureTinyCalls({ log }))}`;
    log('\n== a fixed map: remap prepared once, 1280x720 RGBA frames');
    extra += `\n${renderFixedMaps(await measureFixedMaps(simd, [['OpenCV.js 5', cv5.cv], ['OpenCV.js 4', cv4.cv]], log))}`;
    log('\n== first calls in fresh processes');
    extra += `\n${renderFirstCalls(measureFirstCalls(log))}`;
    log('\n== first calls in fresh Chromium pages');
    extra += `\n${renderFirstCallsChromium(await measureFirstCallsChromium(log))}`;
    log('\n== instructions per output element (valgrind)');
    extra += `\n${renderInstructionCounts(await measureInstructionCounts(log))}`;
    log('\n== .wasm bytes per feature (links the size modules)');
    extra += `\n${renderWasmSizes(measureWasmSizes({ log }))}`;
  }

  env.loadEnd = os.loadavg()[0].toFixed(2);
  const method = {
    ...TIMING, nativeRefReps: NATIVE_REF_REPS, nativeRounds: NATIVE_ROUNDS, nativeRoundReps: NATIVE_ROUND_REPS,
    nativeMinTime: NATIVE_MIN_TIME, ortNodeShare: ORT_NODE_SHARE, opencvTol: OPENCV_TOL, ortWebT2MaxReps: ORT_WEB_T2_MAX_REPS,
    models: { ...MODEL_TIMING, sessionOptions: SESSION_OPTIONS, nodeSessionOptions: NODE_SESSION_OPTIONS },
  };
  const report = renderReport({ env, workloads, results, models, impls: IMPLS, quick: args.quick, method, scaling }) + extra;
  writeFileSync(args.out, report);
  writeChart({ env, results, quick: args.quick });
  if (args.json) writeFileSync(args.json, JSON.stringify({ env, results, models, method, scaling, quick: args.quick, only: args.only }, null, 1));
  console.log(report);
  log(`wrote ${args.out}`);
}

/** Writes chart.svg beside the report (chart.mjs) from the run's measurements. */
function writeChart({ env, results, quick }) {
  const file = join(dirname(args.out), 'chart.svg');
  writeFileSync(file, renderChart({ env, results, impls: IMPLS, quick }));
  log(`wrote ${file}`);
}

main().then(
  // OpenCV.js and onnxruntime keep handles open; the report is written, so leave now.
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
