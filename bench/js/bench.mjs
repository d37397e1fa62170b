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
// bandwidth (gridsample_membw) and two probe calls in the native binary (report.mjs,
// scalingModel). Before timing, each output is compared with ours; a
// peer whose output differs is flagged and its ratio is not counted. Last, each example ONNX
// model runs on onnxruntime-web alone and on gridsample/onnx's split session (onnx_models.mjs),
// the image warps are timed against OpenCV.js (image_warps.mjs),
// a frame loop's p50 / p90 per call is taken (loop_latency.mjs), the first calls after load()
// are timed in fresh processes and fresh Chromium pages (first_calls.mjs), and the instructions per output element of
// our wasm kernels in V8's two tiers are counted under valgrind (instruction_counts.mjs).
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

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as ortWeb from 'onnxruntime-web';

import { load, threadsSupported } from '../../js/node.mjs';
import { threadControl } from '../../js/core/api.mjs';
import { renderChart } from './chart.mjs';
import { floorCopyBytes, typedArrayCopier, wasmCopier } from './copy_floor.mjs';
import { measureFirstCalls, measureFirstCallsChromium, renderFirstCalls, renderFirstCallsChromium } from './first_calls.mjs';
import { measureInstructionCounts, renderInstructionCounts } from './instruction_counts.mjs';
import { measureImageWarps, renderImageWarps } from './image_warps.mjs';
import { measureLoops, renderLoops } from './loop_latency.mjs';
import { SESSION_OPTIONS, selectModels, timeModels } from './onnx_models.mjs';
import { poolScaling, renderPoolScaling } from './pool_scaling.mjs';
import { startOrtWebThreads } from './ort_web_threads.mjs';
import * as peers from './peers.mjs';
import { renderReport } from './report.mjs';
import { measureTransformersPipeline, renderTransformersPipeline } from './transformers_pipeline.mjs';
import { DEFAULTS, calibrate, sampleFor, stats, timeInRounds } from './timing.mjs';
import { baselineWorkload, makeWorkloads, modelProbes } from './workloads.mjs';

const require = createRequire(import.meta.url);
const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// --- command line -----------------------------------------------------------------------------

function parseArgs(argv) {
  const args = { native: join(ROOT, 'build/bench/gridsample_bench'), out: join(BENCH_DIR, 'RESULTS.md'), json: null, only: null, quick: false };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--native') args.native = value();
    else if (a === '--out') args.out = value();
    else if (a === '--json') args.json = value();
    else if (a === '--only') args.only = value().split(',');
    else if (a === '--quick') args.quick = true;
    else if (a === '--inputs-only') args.inputsOnly = value();
    else if (a === '--from-json') args.fromJson = value();
    else throw new Error(`unknown argument ${a}`);
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
// --quick (development only): fewer samples; the report says so.
const TIMING = { ...DEFAULTS, ...(args.quick ? { warmup: 1, minReps: 3, maxReps: 3, budgetMs: 0 } : {}) };
// Runs of each session of a whole ONNX model (onnx_models.mjs) after its warm-up runs: at
// least `runs`, and more until `minMs` have passed (small models need thousands).
const MODEL_TIMING = args.quick ? { runs: 5, minMs: 0, warmup: 1 } : { runs: 30, minMs: 2000, warmup: 5 };
const NATIVE_MIN_TIME = args.quick ? 0.01 : 0.05; // seconds per Google Benchmark repetition
const NATIVE_REF_REPS = TIMING.minReps; // repetitions of the scalar reference, in the checking run
// Native rounds per workload: the binary (public API, baseline and memcpy floor,
// NATIVE_ROUND_REPS repetitions each), then onnxruntime-node for its share of the JS samples
// and budget.
const NATIVE_ROUNDS = 3;
// The thread count of the scaling rows (this machine has 2 cores).
const THREADS = 2;
// Pause after onnxruntime-node's samples in a native round (its threads stop spinning).
const ORT_SPIN_PAUSE_MS = 200;
const NATIVE_ROUND_REPS = args.quick ? 1 : 3;
const ORT_NODE_SHARE = {
  minReps: Math.ceil(TIMING.minReps / NATIVE_ROUNDS),
  maxReps: Math.floor(TIMING.maxReps / NATIVE_ROUNDS),
  budgetMs: TIMING.budgetMs / NATIVE_ROUNDS,
};
// Samples of onnxruntime-web on THREADS threads per workload (at least TIMING.minReps): each is
// followed by a pause until its spinning threads are quiet (ort_web_threads.mjs), so fewer.
const ORT_WEB_T2_MAX_REPS = 9;
// The scaling model's measurements (measureScalingInputs): repetitions of the bandwidth
// program (gridsample_membw) and of the two probe calls in the native binary.
const MEMBW_REPS = args.quick ? 3 : 7;
const PROBE_REPS = args.quick ? 3 : 9;
const log = (...m) => console.error(...m);

// --- implementations -----------------------------------------------------------------------------

// Every row of the report, in table order: `vs` names the row of ours its speed-up (or, for
// a floor, our ratio to it) is taken against; `short` is how that row is named; `peer` is the
// peer a row times, as chart.mjs names its bars (one bar per peer: its fastest row); `floor` and
// `baseline` rows are not checked against the reference (a baseline computes other values:
// ours on the workload's inputs with its baseline's settings; only workloads with one have
// it). Ratios pair rows that move the same bytes: onnxruntime copies inputs into its heap and
// the output out on every run(), as our copying API does; OpenCV.js and the plain JS loop
// work on data already in place, as our heap tensors do.
const IMPLS = [
  { id: 'simd', short: 'ours SIMD heap', label: 'gridsample wasm SIMD, heap tensors (zero-copy)' },
  { id: 'simd-t1', short: 'ours SIMD threads build, 1 thread', label: 'gridsample wasm SIMD with threads (simd-threads, set to 1 thread), heap tensors', vs: 'simd' },
  { id: 'simd-t2', short: 'ours SIMD, 2 threads', label: `gridsample wasm SIMD with threads (simd-threads, ${THREADS} threads), heap tensors` },
  { id: 'simd-base', baseline: true, label: 'gridsample wasm SIMD, heap tensors, baseline settings', vs: 'simd' },
  { id: 'simd-copy', short: 'ours SIMD copying', label: 'gridsample wasm SIMD, copying API', vs: 'simd' },
  { id: 'scalar', label: 'gridsample wasm scalar, heap tensors', vs: 'simd' },
  { id: 'ort-web', peer: 'onnxruntime-web', label: 'onnxruntime-web (wasm SIMD, 1 thread)', vs: 'simd-copy' },
  // In a child process (numThreads is per process), sampled in this workload's rounds.
  { id: 'ort-web-t2', peer: `onnxruntime-web, ${THREADS} threads`, label: `onnxruntime-web (wasm SIMD, numThreads ${THREADS}, child process)`, vs: 'simd-t2' },
  // OpenCV.js 5 and 4 both: 5 is faster at float remap, 4 at the RGBA warpAffine (measured).
  { id: 'cv5', peer: 'OpenCV.js', label: 'OpenCV.js 5, channels-last (remap / warpAffine)', vs: 'simd' },
  { id: 'cv5-planar', peer: 'OpenCV.js', label: 'OpenCV.js 5, one NCHW plane at a time (convertMaps + remap)', vs: 'simd' },
  { id: 'cv4', peer: 'OpenCV.js', label: 'OpenCV.js 4, channels-last (remap / warpAffine)', vs: 'simd' },
  { id: 'cv4-planar', peer: 'OpenCV.js', label: 'OpenCV.js 4, one NCHW plane at a time (convertMaps + remap)', vs: 'simd' },
  { id: 'plain-js', short: 'plain JS', peer: 'plain JS loop', label: 'plain JS loop', vs: 'simd' },
  { id: 'floor-wasm', floor: true, label: 'copy floor: wasm memory.copy', vs: 'simd' },
  { id: 'floor-js', floor: true, label: 'copy floor: TypedArray.set', vs: 'simd' },
  { id: 'native', short: 'ours native', label: 'gridsample native, public API' },
  { id: 'native-base', baseline: true, label: 'gridsample native, public API, baseline settings', vs: 'native' },
  { id: 'native-ref', label: 'gridsample native, scalar reference', vs: 'native' },
  { id: 'ort-node', peer: 'onnxruntime-node', label: 'onnxruntime-node (CPU, 1 thread)', vs: 'native' },
  { id: 'native-t2', short: 'ours native, 2 threads', label: `gridsample native, public API, ${THREADS} threads (its pool)` },
  { id: 'ort-node-t2', peer: `onnxruntime-node, ${THREADS} threads`, label: `onnxruntime-node (CPU, intraOpNumThreads ${THREADS})`, vs: 'native-t2' },
  { id: 'floor-native', floor: true, label: 'copy floor: memcpy', vs: 'native' },
];
const IMPL = Object.fromEntries(IMPLS.map((impl) => [impl.id, impl]));

/** Whether row `id`'s output is compared with the reference (not a floor's nor a baseline's). */
const checked = (id) => !IMPL[id].floor && !IMPL[id].baseline;

// Largest accepted |difference| for peers that round on purpose (per mode); else w.tol.
// OpenCV quantises sampling positions to 1/32 pixel (INTER_BITS = 5): a position error of up
// to 1/64 px per axis on data in [0, 1) moves a linear result by at most 2 * (1/64) * 1, a
// Keys cubic one by at most 2 * (1/64) * (max sum |w'| / 2 = 1.5) * (max sum |w| = 1.375).
const OPENCV_TOL = { nearest: 1e-6, linear: 2 / 64, cubic: (2 / 64) * 1.5 * 1.375 };

/** A number, or a function of the element index, bounding |ours - theirs|. */
function tolerance(id, w, ref) {
  if (!id.startsWith('cv')) return w.tol;
  if (w.op === 'GridSample') return OPENCV_TOL[w.mode] * 1.01;
  if (w.op === 'WarpAffineRGBA8') return contrastTolerance(ref, w.image.width, w.image.height);
  return w.tol;
}

/**
 * Per-element tolerance for OpenCV's 8-bit warp: 1 level of rounding plus the same 1/64 px
 * per axis position error, which moves a result by at most 2/64 of the value range over one
 * pixel around it (taken from the reference output's 3x3 neighbourhood, per channel). Smooth
 * areas must agree within a level; the image's edge, where alpha drops from 255 to 0 within
 * a pixel, gets up to 9.
 */
function contrastTolerance(ref, width, height) {
  const tol = new Float32Array(ref.length);
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      for (let c = 0; c < 4; ++c) {
        let lo = 255;
        let hi = 0;
        for (let dy = -1; dy <= 1; ++dy) {
          const yy = Math.min(height - 1, Math.max(0, y + dy));
          for (let dx = -1; dx <= 1; ++dx) {
            const xx = Math.min(width - 1, Math.max(0, x + dx));
            const v = ref[4 * (yy * width + xx) + c];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
          }
        }
        tol[4 * (y * width + x) + c] = 1 + (2 / 64) * (hi - lo);
      }
    }
  }
  return tol;
}

function compare(ref, out, tol) {
  if (!out || out.length !== ref.length) {
    return { maxDiff: Infinity, bad: ref.length, ok: false, note: `output has ${out ? out.length : 0} elements, expected ${ref.length}` };
  }
  const at = typeof tol === 'number' ? () => tol : (i) => tol[i];
  let maxDiff = 0;
  let bad = 0;
  for (let i = 0; i < ref.length; ++i) {
    const d = Math.abs(ref[i] - out[i]);
    if (!(d <= at(i))) ++bad; // NaN counts as a mismatch
    if (!(d <= maxDiff)) maxDiff = Number.isNaN(d) ? Infinity : d;
  }
  return { maxDiff, bad, ok: bad === 0, tol: typeof tol === 'number' ? tol : 'local contrast' };
}

// --- environment --------------------------------------------------------------------------------

function machine() {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = (cpuinfo.match(/^model name\s*:\s*(.*)$/m) || [])[1] || os.cpus()[0]?.model || 'unknown';
  const flags = (cpuinfo.match(/^flags\s*:\s*(.*)$/m) || [])[1] || '';
  const isa = ['sse4_2', 'avx2', 'fma', 'avx512f'].filter((f) => flags.split(' ').includes(f));
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src', 'js', 'CMakeLists.txt'], { encoding: 'utf8' }).trim();
    if (dirty) commit += ' + uncommitted changes in src/js';
  } catch { /* not a git checkout */ }
  // Read from node_modules: onnxruntime-web does not export its package.json.
  const version = (pkg) => JSON.parse(readFileSync(join(BENCH_DIR, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  return {
    cpu: model,
    isa: isa.join(' '),
    cores: os.cpus().length,
    memoryGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    v8: process.versions.v8,
    date: new Date().toISOString(),
    loadStart: os.loadavg()[0].toFixed(2),
    commit,
    versions: {
      'onnxruntime-web': version('onnxruntime-web'),
      'onnxruntime-node': version('onnxruntime-node'),
      'OpenCV.js 5 (@techstark/opencv-js)': version('@techstark/opencv-js'),
      'OpenCV.js 4 (@techstark/opencv-js)': version('opencv-js-v4'),
    },
  };
}

// OpenCV.js throws C++ exceptions as numbers (pointers); loadOpenCv() adds each module's
// decoder (a pointer of one module means nothing to the other, so each is tried).
const numberErrorDecoders = [];

/** Loads one OpenCV.js build (npm package name) and waits for its runtime. */
async function loadOpenCv(name) {
  let cv = require(name);
  if (cv instanceof Promise) cv = await cv;
  else if (!cv.Mat) await new Promise((resolve) => { cv.onRuntimeInitialized = resolve; });
  // The npm build is compiled without pthreads ("Parallel framework: none"): single thread.
  numberErrorDecoders.push((n) => cv.exceptionFromPtr(n).msg.trim());
  const parallel = (cv.getBuildInformation().match(/Parallel framework:\s*(.*)/) || [])[1]?.trim();
  return { cv, parallel };
}

// --- setting up, checking and timing implementations --------------------------------------------

function errorText(e) {
  if (typeof e === 'number') {
    for (const decode of numberErrorDecoders) {
      try {
        const text = decode(e);
        if (text) return text;
      } catch { /* not this module's exception */ }
    }
    return `exception ${e}`;
  }
  return String(e && e.message !== undefined ? e.message : e).split('\n')[0];
}

/**
 * Sets up one implementation and runs it once, checking its output against `ref` (if given);
 * never throws. Returns its result row `{ status, check, output }` (or `{ status, error }`)
 * and, when it can be timed, the live implementation (`impl`, to be disposed by the caller).
 */
async function setUp(id, w, setup, ref) {
  let impl;
  try {
    impl = await setup();
  } catch (e) {
    return { res: { status: 'error', error: `setup failed: ${errorText(e)}` } };
  }
  if (impl.unavailable) return { res: { status: 'n/a', error: impl.unavailable } };
  try {
    await impl.run();
    const output = impl.output();
    const check = ref ? compare(ref, output, tolerance(id, w, ref)) : null;
    return { res: { status: 'ok', check, output }, impl };
  } catch (e) {
    dispose(impl);
    return { res: { status: 'error', error: errorText(e) } };
  }
}

/** Disposes `impl` (a promise when it lives in a child process, resolved once it is gone). */
function dispose(impl) {
  try { return impl.dispose(); } catch { /* nothing to free */ }
}

/** A result row completed by its timing entry: median and min, or the error that stopped it. */
function timed(res, entry) {
  return entry.error ? { status: 'error', error: errorText(entry.error) } : { ...res, time: stats(entry.samples, entry.batch) };
}

/**
 * Times the live implementations `[{ id, impl }]` of one workload together in rounds, sets
 * their rows of `r`, then disposes them. One timed in another process (`impl.remote`, the
 * threaded onnxruntime-web) calibrates there and takes its samples there when its turn in a
 * round comes; its row gets `threads`, the check that its threads ran (ort_web_threads.mjs).
 */
async function timeTogether(live, r) {
  const entries = [];
  for (const { impl } of live) entries.push(impl.remote ? await impl.remote.calibrate(TIMING) : await calibrate(impl.run, TIMING));
  await timeInRounds(entries, TIMING);
  for (const [i, { id, impl }] of live.entries()) {
    r[id] = timed(r[id], entries[i]);
    if (impl.remote && r[id].status === 'ok') {
      r[id].threads = await impl.remote.usage();
      const u = r[id].threads;
      log(`  ${id}: ${u.samples} samples in the child, ${Math.round(u.wallMs)} ms timed, ${Math.round(u.pauseMs)} ms waiting for its threads to idle; CPU ms per thread ${u.threadMs.map(Math.round).join(', ')}`);
    }
    await dispose(impl);
  }
}

function floorImpl(setupCopy) {
  return { run: setupCopy, output: () => null, dispose() {} };
}

// --- wasm / JS phase ---------------------------------------------------------------------------------

// The order of setting up and checking; the first checked implementation with an output is the reference.
const WASM_ORDER = ['simd', 'simd-t1', 'simd-t2', 'plain-js', 'simd-copy', 'scalar', 'ort-web', 'ort-web-t2', 'cv5', 'cv5-planar', 'cv4', 'cv4-planar', 'simd-base', 'floor-wasm', 'floor-js'];

/**
 * One workload in this process: sets up and checks every implementation of `setups` (those of
 * WASM_ORDER it has), then times those that work together in rounds. Returns the rows {id:
 * result}; leaves the reference output in w.reference (and its row id in w.referenceId) for
 * the native phase.
 */
async function runWasmWorkload(w, setups) {
  // Our SIMD result is the reference every peer is checked against; without it (the RGBA
  // warp until it exists), the plain JS loop is, as it follows DESIGN.md section 2.
  const start = performance.now();
  const r = {};
  const live = [];
  const ids = WASM_ORDER.filter((id) => setups[id]);
  w.reference = null;
  w.referenceId = null;
  for (const id of ids) {
    const { res, impl } = await setUp(id, w, setups[id], checked(id) ? w.reference : null);
    if (!w.reference && res.status === 'ok' && checked(id)) {
      w.reference = res.output;
      w.referenceId = id;
    }
    if (res.check) res.check.against = w.referenceId;
    delete res.output; // keep memory flat; only the reference is kept
    r[id] = res;
    if (impl) live.push({ id, impl });
  }
  await timeTogether(live, r);
  for (const id of ids) log(`  ${id.padEnd(10)} ${describeResult(r[id])}`);
  log(`  (${((performance.now() - start) / 1000).toFixed(1)} s)`);
  return r;
}

// --- native binary ------------------------------------------------------------------------------

function writeNativeInputs(dir, workloads) {
  const entries = [];
  const save = (file, data) => writeFileSync(join(dir, file), new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  for (const w of workloads) {
    const floorBytes = floorCopyBytes(w.inBytes, w.outBytes);
    if (w.op === 'GridSample') {
      save(`${w.name}.x.f32`, w.x.data);
      save(`${w.name}.grid.f32`, w.grid.data);
      const base = baselineWorkload(w);
      entries.push({
        name: w.name, op: w.op, floor_bytes: floorBytes,
        x: { shape: w.x.shape, file: `${w.name}.x.f32` },
        grid: { shape: w.grid.shape, file: `${w.name}.grid.f32` },
        y_shape: w.yShape, mode: w.mode, padding: w.paddingMode, align_corners: w.alignCorners,
        ...(base ? { baseline: { mode: base.mode, padding: base.paddingMode } } : {}),
      });
    } else if (w.op === 'AffineGrid') {
      save(`${w.name}.theta.f32`, w.theta.data);
      entries.push({
        name: w.name, op: w.op, floor_bytes: floorBytes,
        theta: { shape: w.theta.shape, file: `${w.name}.theta.f32` },
        size: w.size, grid_shape: w.gridShape, align_corners: w.alignCorners,
      });
    } else {
      const { data, width, height } = w.image;
      save(`${w.name}.image.u8`, data);
      save(`${w.name}.theta.f32`, w.theta);
      entries.push({
        name: w.name, op: w.op, floor_bytes: floorBytes,
        image: { shape: [1, height, width, 4], file: `${w.name}.image.u8` },
        theta: { shape: [1, 2, 3], file: `${w.name}.theta.f32` },
        y_shape: [1, height, width, 4],
      });
    }
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ workloads: entries }, null, 1));
}

/** The native rows of `w` timed in its rounds: public API, baseline (if it has one), memcpy floor. */
const roundIds = (w) => ['native', ...(w.baseline ? ['native-base'] : []), 'native-t2', 'floor-native'];

/** Every native row of `w`: those of its rounds and the scalar reference (timed in the checking run). */
const nativeIds = (w) => [...roundIds(w), 'native-ref'];

/**
 * Launches the native binary on the inputs in `dir` with `flags`; returns its Google Benchmark
 * JSON report, or {error}. `stdio`: where its console output goes (never our stdout, the report).
 */
function launchNative(binary, dir, flags, stdio) {
  const jsonOut = join(dir, 'native.json');
  const r = spawnSync(binary, [`--inputs=${dir}`, `--min_time=${NATIVE_MIN_TIME}`, `--benchmark_out=${jsonOut}`,
    '--benchmark_out_format=json', ...flags], { stdio });
  if (r.status !== 0) return { error: `native benchmark exited with ${r.status ?? r.signal}` };
  try {
    return JSON.parse(readFileSync(jsonOut, 'utf8'));
  } catch (e) {
    return { error: `cannot read the native benchmark's output: ${e.message}` };
  }
}

/**
 * The repetitions of a Google Benchmark report: {workload: {row id: [{ms, iterations}]}}, ms
 * per iteration; a repetition that failed is {error} (the binary's SkipWithError message).
 * The per-target rows (--targets) are {kernel: {'target:T': [...]}}, kernel being the
 * workload's name or, for rgba8's other channels-last kernels, 'rgba8.KERNEL'.
 */
function repetitions(report) {
  const idOf = { public: 'native', baseline: 'native-base', reference: 'native-ref', memcpy_floor: 'floor-native', [`threads:${THREADS}`]: 'native-t2' };
  const toMs = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 };
  const reps = {};
  for (const b of report.benchmarks) {
    if (b.run_type !== 'iteration') continue;
    const [name, variant] = b.run_name.split('/');
    const id = variant?.startsWith('target:') ? variant : idOf[variant];
    if (!id) continue;
    const rep = b.error_occurred ? { error: b.error_message } : { ms: b.real_time * toMs[b.time_unit], iterations: b.iterations };
    ((reps[name] ??= {})[id] ??= []).push(rep);
  }
  return reps;
}

/**
 * A native row completed by its repetitions `runs` (the same statistics as the JS rows; their
 * iterations differ slightly, the smallest is shown), or by the error that stopped them.
 */
function nativeTimed(res, runs = [], error = null) {
  const failed = error ?? runs.find((x) => x.error)?.error ?? (runs.length ? null : 'no timing from the native benchmark');
  if (failed) return { status: 'error', error: failed };
  return { ...res, time: stats(runs.map((x) => x.ms), Math.min(...runs.map((x) => x.iterations))) };
}

/** Reads the native output a check wrote, as the workload's output typed array. */
function nativeOutput(c) {
  const out = readFileSync(c.output);
  return c.dtype === 'uint8'
    ? new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
    : new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4);
}

/**
 * The checking run of the native binary on the workloads written to `dir` (only the scalar
 * reference is timed in it); returns {results: {name: {id: row}}, context} or {error}. The
 * rows of roundIds are ok but not yet timed (nativeRounds times them).
 */
function runNativeChecks(binary, dir, workloads) {
  if (!workloads.length) return { results: {}, context: null };
  if (!existsSync(binary)) return { error: `native benchmark binary not found at ${binary} (bench/run.sh builds it)` };
  log(`native: ${binary}`);
  const report = launchNative(binary, dir, [`--reps=${NATIVE_REF_REPS}`, `--threads=${THREADS}`, '--benchmark_filter=/reference'], ['ignore', 2, 2]);
  if (report.error) return report;
  let checks;
  try {
    checks = JSON.parse(readFileSync(join(dir, 'native_checks.json'), 'utf8'));
  } catch (e) {
    return { error: `cannot read the native checks: ${e.message}` };
  }
  const reps = repetitions(report);
  const results = {};
  for (const w of workloads) {
    const c = checks[w.name];
    const all = (row) => Object.fromEntries(nativeIds(w).map((id) => [id, row]));
    if (!c) results[w.name] = all({ status: 'error', error: 'no result from the native benchmark' });
    else if (c.unavailable) results[w.name] = all({ status: 'n/a', error: c.unavailable });
    else if (c.error) results[w.name] = all({ status: 'error', error: c.error });
    else {
      // nlohmann writes a non-finite difference as null.
      const d = typeof c.max_abs_diff_vs_reference === 'number' ? c.max_abs_diff_vs_reference : Infinity;
      results[w.name] = {
        ...all({ status: 'ok' }), // the rows of the rounds, timed by nativeRounds
        'native': { status: 'ok', output: nativeOutput(c) },
        'native-ref': nativeTimed({ status: 'ok', check: { maxDiff: d, ok: d <= w.tol, tol: w.tol, against: 'native' } }, reps[w.name]?.['native-ref']),
        // Threads must not change a bit (tests/native/threads_test.cc): checked exactly.
        'native-t2': { status: 'ok', check: { maxDiff: c.threads_identical ? 0 : Infinity, ok: c.threads_identical === true, tol: 0, against: 'native' } },
      };
    }
  }
  return { results, context: report.context };
}

/**
 * Native rounds of workload `w`: each collects garbage, launches the binary on this workload
 * alone (public API, baseline if any, memcpy floor and the public API on every SIMD target
 * this CPU has, NATIVE_ROUND_REPS repetitions each, interleaved in random order; skipped when
 * `timeBinary` is false), then samples each of onnxruntime-node's calibrated entries `orts`
 * (1 thread, THREADS threads) for its share. Returns the binary's repetitions `runs` {row id: [...]}, those of the target rows
 * `targetRuns` {kernel: {'target:T': [...]}} and the `error` that stopped launching it, if
 * any (onnxruntime-node's rounds go on).
 */
async function nativeRounds(binary, dir, w, timeBinary, orts) {
  const runs = Object.fromEntries(roundIds(w).map((id) => [id, []]));
  const targetRuns = {};
  let error = null;
  for (let round = 0; round < NATIVE_ROUNDS; ++round) {
    if (globalThis.gc) globalThis.gc();
    if (timeBinary && !error) {
      // Its console output is ignored (JSON: no banner on stderr); errors still reach our stderr.
      const flags = [`--only=${w.name}`, '--timing_only', '--targets', `--threads=${THREADS}`, `--reps=${NATIVE_ROUND_REPS}`,
        '--benchmark_enable_random_interleaving=true', '--benchmark_format=json'];
      const report = launchNative(binary, dir, flags, ['ignore', 'ignore', 2]);
      error = report.error ?? null;
      const all = error ? {} : repetitions(report);
      const got = all[w.name] ?? {};
      for (const id of Object.keys(runs)) runs[id].push(...(got[id] ?? []));
      for (const [kernel, rows] of Object.entries(all)) {
        for (const [id, reps] of Object.entries(rows)) {
          if (id.startsWith('target:')) ((targetRuns[kernel] ??= {})[id.slice(7)] ??= []).push(...reps);
        }
      }
    }
    for (const ort of orts) await sampleFor(ort, ORT_NODE_SHARE);
    // onnxruntime's pool threads spin for a while after a run: let them sleep before the
    // binary's next launch, or its second thread shares a core with them.
    if (orts.length) await new Promise((resolve) => setTimeout(resolve, ORT_SPIN_PAUSE_MS));
  }
  return { runs, targetRuns, error };
}

/**
 * Checks onnxruntime-node against the native output (or our wasm one), then times it and the
 * binary in nativeRounds; completes the native rows of `r`.
 */
async function timeNative(binary, dir, w, r, ortNode) {
  const nativeOut = r.native.output ?? null;
  delete r.native.output;
  const sessions = [];
  for (const [id, threads] of [['ort-node', 1], ['ort-node-t2', THREADS]]) {
    const { res, impl } = await setUp(id, w, () => peers.onnxruntimeNode(ortNode, w, threads), nativeOut ?? w.reference);
    if (res.check) res.check.against = nativeOut ? 'native' : w.referenceId;
    delete res.output;
    r[id] = res;
    if (impl) sessions.push({ id, res, impl, ort: await calibrate(impl.run, TIMING) });
  }
  const timeBinary = r.native.status === 'ok';
  const { runs, targetRuns, error } = await nativeRounds(binary, dir, w, timeBinary, sessions.map((x) => x.ort));
  for (const { id, res, impl, ort } of sessions) {
    r[id] = timed(res, ort);
    dispose(impl);
  }
  if (!timeBinary) return;
  for (const id of roundIds(w)) r[id] = nativeTimed(r[id], runs[id], error);
  // {kernel: {target: row}}: the public API with dispatch forced to each target (report.mjs
  // checks that the default choice is not slower than a lower target).
  r.targets = Object.fromEntries(Object.entries(targetRuns).map(([kernel, byTarget]) => [kernel,
    Object.fromEntries(Object.entries(byTarget).map(([t, reps]) => [t, nativeTimed({ status: 'ok' }, reps)]))]));
}

/**
 * The scaling model's measured inputs (report.mjs, scalingModel), after the native rounds:
 * - membw: gridsample_membw (next to the native binary; bench/native/membw.cc), streaming copy
 *   and read bandwidth of 256 MiB and L3-resident buffers on 1 and THREADS threads, or {error};
 * - probes: the native binary on modelProbes() (workloads.mjs), public API on 1 and THREADS
 *   threads in the same launch, PROBE_REPS repetitions each, randomly interleaved: {name:
 *   {t1, t2, shape}} (medians in ms), or {error}. `tiny` is never split (a call's fixed cost);
 *   `split` is split into 16 equal pieces per thread (what splitting a call costs).
 */
function measureScalingInputs(binary, dir) {
  log('\n== scaling model inputs: memory bandwidth, probe calls');
  const start = performance.now();
  const membwPath = join(dirname(binary), 'gridsample_membw');
  let membw;
  if (!existsSync(membwPath)) {
    membw = { error: `${membwPath} not found (bench/run.sh builds it)` };
  } else {
    const r = spawnSync(membwPath, [`--reps=${MEMBW_REPS}`, `--threads=1,${THREADS}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 2] });
    try {
      membw = r.status === 0 ? JSON.parse(r.stdout) : { error: `gridsample_membw exited with ${r.status ?? r.signal}` };
    } catch (e) {
      membw = { error: `cannot read gridsample_membw's output: ${e.message}` };
    }
  }
  // Whether the 2 cores are independent for SIMD work now (bench/native/cores.cc).
  const coresPath = join(dirname(binary), 'gridsample_cores');
  let cores;
  if (!existsSync(coresPath)) {
    cores = { error: `${coresPath} not found (bench/run.sh builds it)` };
  } else {
    const r = spawnSync(coresPath, ['--reps=5'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 2] });
    try {
      cores = r.status === 0 ? JSON.parse(r.stdout) : { error: `gridsample_cores exited with ${r.status ?? r.signal}` };
    } catch (e) {
      cores = { error: `cannot read gridsample_cores's output: ${e.message}` };
    }
  }
  let probes;
  if (!existsSync(binary)) {
    probes = { error: `native benchmark binary not found at ${binary}` };
  } else {
    const probeDir = join(dir, 'probes');
    mkdirSync(probeDir, { recursive: true });
    const list = modelProbes();
    writeNativeInputs(probeDir, list);
    const report = launchNative(binary, probeDir, ['--timing_only', `--threads=${THREADS}`, `--reps=${PROBE_REPS}`,
      `--benchmark_filter=/(public|threads:${THREADS})/`, '--benchmark_enable_random_interleaving=true', '--benchmark_format=json'],
    ['ignore', 'ignore', 2]);
    if (report.error) {
      probes = report;
    } else {
      const reps = repetitions(report);
      probes = {};
      for (const w of list) {
        const one = nativeTimed({ status: 'ok' }, reps[w.name]?.native);
        const many = nativeTimed({ status: 'ok' }, reps[w.name]?.['native-t2']);
        probes[w.probe] = one.status === 'ok' && many.status === 'ok'
          ? { t1: one.time.median, t2: many.time.median, shape: w.summary }
          : { error: one.error ?? many.error };
      }
    }
  }
  log(`  membw: ${membw.error ?? membw.results.map((x) => `${x.size} ${x.kernel} ${x.threads}t ${x.gbps_median} GB/s`).join(', ')}`);
  log(`  probes: ${JSON.stringify(probes)}`);
  log(`  cores: ${JSON.stringify(cores)}`);
  log(`  (${((performance.now() - start) / 1000).toFixed(1)} s)`);
  return { membw, probes, cores, reps: { membw: MEMBW_REPS, probes: PROBE_REPS } };
}

/** The machine as the native binary's Google Benchmark context describes it, or null. */
function nativeEnv(context) {
  return context ? {
    target: context.gridsample_active_target,
    // Best first, as gridsample::AvailableTargets() lists them.
    targets: (context.gridsample_available_targets || '').split(' ').filter(Boolean),
    mhz: context.mhz_per_cpu,
    scaling: context.cpu_scaling_enabled,
    caches: (context.caches || []).map((c) => `L${c.level} ${c.type === 'Unified' ? '' : c.type[0]}${c.size / 1024} KiB`.replace('  ', ' ')).join(', '),
  } : null;
}

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

    // 2b. The scaling model's inputs (report.mjs, scalingModel): memory bandwidth on 1 and
    // THREADS threads, and the per-call costs of a tiny call and of a small split call.
    if (workloads.length) scaling = measureScalingInputs(args.native, dir);
  } finally {
    ortWebThreads?.close();
    rmSync(dir, { recursive: true, force: true });
  }

  // 3. Whole ONNX models: onnxruntime-web alone against the split session on our SIMD build.
  const models = await timeModels(selectModels(args.only), { ort: ortWeb, gridsample: simd, ...MODEL_TIMING, log });

  // 4. A frame loop's latency per call (p50, p90), then the first calls after load() in fresh
  // Node processes and Chromium pages, warm-up on and off, then instruction counts.
  let extra = '';
  if (!args.only) {
    log('\n== image warps');
    extra += `\n${renderImageWarps(await measureImageWarps(simd, [['OpenCV.js 5', cv5.cv], ['OpenCV.js 4', cv4.cv]], log))}`;
    log('\n== transformers.js object detection: onnxruntime-web alone against the split session');
    extra += `\n${renderTransformersPipeline(measureTransformersPipeline({ log }))}`;
    log('\n== worker pool (createPool, 2 workers) against one instance');
    extra += `\n${renderPoolScaling(await poolScaling({ workers: THREADS, log, timing: TIMING }), scaling?.cores)}`;
    log('\n== loops');
    extra += `\n${renderLoops(measureLoops(simd, log))}`;
    log('\n== first calls in fresh processes');
    extra += `\n${renderFirstCalls(measureFirstCalls(log))}`;
    log('\n== first calls in fresh Chromium pages');
    extra += `\n${renderFirstCallsChromium(await measureFirstCallsChromium(log))}`;
    log('\n== instructions per output element (valgrind)');
    extra += `\n${renderInstructionCounts(await measureInstructionCounts(log))}`;
  }

  env.loadEnd = os.loadavg()[0].toFixed(2);
  const method = {
    ...TIMING, nativeRefReps: NATIVE_REF_REPS, nativeRounds: NATIVE_ROUNDS, nativeRoundReps: NATIVE_ROUND_REPS,
    nativeMinTime: NATIVE_MIN_TIME, ortNodeShare: ORT_NODE_SHARE, opencvTol: OPENCV_TOL, ortWebT2MaxReps: ORT_WEB_T2_MAX_REPS,
    models: { ...MODEL_TIMING, sessionOptions: SESSION_OPTIONS },
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

function describeResult(res) {
  if (res.status !== 'ok') return `${res.status}: ${res.error}`;
  const t = res.time;
  const c = res.check ? ` | max|diff| ${res.check.maxDiff.toExponential(2)}${res.check.ok ? '' : ` MISMATCH (${res.check.bad ?? '?'} elements beyond ${res.check.tol})`}` : '';
  return `median ${t.median.toFixed(3)} ms, min ${t.min.toFixed(3)} ms (${t.reps} x ${t.batch})${c}`;
}

main().then(
  // OpenCV.js and onnxruntime keep handles open; the report is written, so leave now.
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
