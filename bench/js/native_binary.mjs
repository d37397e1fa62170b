// Drives the native Google Benchmark binary (bench/native) on the workloads' input bytes: its input files, the checking run, the rounds alternating with onnxruntime-node, and the scaling model's measurements.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { floorCopyBytes } from './copy_floor.mjs';
import { dispose, setUp, timed } from './in_process.mjs';
import * as peers from './peers.mjs';
import {
  MEMBW_REPS, NATIVE_MIN_TIME, NATIVE_REF_REPS, NATIVE_ROUND_REPS, NATIVE_ROUNDS, ORT_NODE_SHARE, ORT_SPIN_PAUSE_MS, PROBE_REPS, THREADS, TIMING, log,
} from './settings.mjs';
import { calibrate, sampleFor, stats } from './timing.mjs';
import { baselineWorkload, modelProbes } from './workloads.mjs';

// A baseline's manifest entry: its mode and padding; a layout's baseline (workloads.mjs,
// channelsLastWorkload) also its layout and X, saved beside the workload's.
function baselineEntry(save, w, base) {
  const entry = { mode: base.mode, padding: base.paddingMode };
  if (base.layout === w.layout) return entry;
  save(`${w.name}.baseline_x.f32`, base.x.data);
  return { ...entry, layout: base.layout ?? 'nchw', x: { shape: base.x.shape, file: `${w.name}.baseline_x.f32` }, y_shape: base.yShape };
}

export function writeNativeInputs(dir, workloads) {
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
        layout: w.layout ?? 'nchw',
        ...(base ? { baseline: baselineEntry(save, w, base) } : {}),
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
export const nativeIds = (w) => [...roundIds(w), 'native-ref'];

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
export function runNativeChecks(binary, dir, workloads) {
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
export async function timeNative(binary, dir, w, r, ortNode) {
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
  // {kernel: {target: row}}: the public API with dispatch forced to each target
  // (report_tables.mjs, dispatchTable, checks that the default choice is not slower than a
  // lower target).
  r.targets = Object.fromEntries(Object.entries(targetRuns).map(([kernel, byTarget]) => [kernel,
    Object.fromEntries(Object.entries(byTarget).map(([t, reps]) => [t, nativeTimed({ status: 'ok' }, reps)]))]));
}

/**
 * The scaling model's measured inputs (report_scaling.mjs, scalingModel), after the native rounds:
 * - membw: gridsample_membw (next to the native binary; bench/native/membw.cc), streaming copy
 *   and read bandwidth of 256 MiB and L3-resident buffers on 1 and THREADS threads, or {error};
 * - probes: the native binary on modelProbes() (workloads.mjs), public API on 1 and THREADS
 *   threads in the same launch, PROBE_REPS repetitions each, randomly interleaved: {name:
 *   {t1, t2, shape}} (medians in ms), or {error}. `tiny` is never split (a call's fixed cost);
 *   `split` is split into 16 equal pieces per thread (what splitting a call costs).
 */
export function measureScalingInputs(binary, dir) {
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
