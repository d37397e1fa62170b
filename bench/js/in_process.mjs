// Setting up, checking and timing the implementations this process times (and the child running onnxruntime-web on threads): one workload's wasm / JS phase, and the steps onnxruntime-node's rows share with it.

import { createRequire } from 'node:module';

import { checked, compare, tolerance } from './impls.mjs';
import { TIMING, log } from './settings.mjs';
import { calibrate, stats, timeInRounds } from './timing.mjs';

const require = createRequire(import.meta.url);

// OpenCV.js throws C++ exceptions as numbers (pointers); loadOpenCv() adds each module's
// decoder (a pointer of one module means nothing to the other, so each is tried).
const numberErrorDecoders = [];

/** Loads one OpenCV.js build (npm package name) and waits for its runtime. */
export async function loadOpenCv(name) {
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
export async function setUp(id, w, setup, ref) {
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
export function dispose(impl) {
  try { return impl.dispose(); } catch { /* nothing to free */ }
}

/** A result row completed by its timing entry: median and min, or the error that stopped it. */
export function timed(res, entry) {
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

export function floorImpl(setupCopy) {
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
export async function runWasmWorkload(w, setups) {
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

export function describeResult(res) {
  if (res.status !== 'ok') return `${res.status}: ${res.error}`;
  const t = res.time;
  const c = res.check ? ` | max|diff| ${res.check.maxDiff.toExponential(2)}${res.check.ok ? '' : ` MISMATCH (${res.check.bad ?? '?'} elements beyond ${res.check.tol})`}` : '';
  return `median ${t.median.toFixed(3)} ms, min ${t.min.toFixed(3)} ms (${t.reps} x ${t.batch})${c}`;
}
