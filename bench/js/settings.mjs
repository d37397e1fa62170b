// bench.mjs's command line and the run's settings it implies: samples, rounds, repetitions and the thread count of the scaling rows.

import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

import { DEFAULTS } from './timing.mjs';

export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

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

export const args = parseArgs(process.argv.slice(2));
// --quick (development only): fewer samples; the report says so.
export const TIMING = { ...DEFAULTS, ...(args.quick ? { warmup: 1, minReps: 3, maxReps: 3, budgetMs: 0 } : {}) };
// Runs of each session of a whole ONNX model (onnx_models.mjs) after its warm-up runs: at
// least `runs`, and more until `minMs` have passed (small models need thousands).
export const MODEL_TIMING = args.quick ? { runs: 5, minMs: 0, warmup: 1 } : { runs: 30, minMs: 2000, warmup: 5 };
export const NATIVE_MIN_TIME = args.quick ? 0.01 : 0.05; // seconds per Google Benchmark repetition
export const NATIVE_REF_REPS = TIMING.minReps; // repetitions of the scalar reference, in the checking run
// Native rounds per workload: the binary (public API, baseline and memcpy floor,
// NATIVE_ROUND_REPS repetitions each), then onnxruntime-node for its share of the JS samples
// and budget.
export const NATIVE_ROUNDS = 3;
// The thread count of the scaling rows (this machine has 2 cores).
export const THREADS = 2;
// Pause after onnxruntime-node's samples in a native round (its threads stop spinning).
export const ORT_SPIN_PAUSE_MS = 200;
export const NATIVE_ROUND_REPS = args.quick ? 1 : 3;
export const ORT_NODE_SHARE = {
  minReps: Math.ceil(TIMING.minReps / NATIVE_ROUNDS),
  maxReps: Math.floor(TIMING.maxReps / NATIVE_ROUNDS),
  budgetMs: TIMING.budgetMs / NATIVE_ROUNDS,
};
// Samples of onnxruntime-web on THREADS threads per workload (at least TIMING.minReps): each is
// followed by a pause until its spinning threads are quiet (ort_web_threads.mjs), so fewer.
export const ORT_WEB_T2_MAX_REPS = 9;
// The scaling model's measurements (measureScalingInputs): repetitions of the bandwidth
// program (gridsample_membw) and of the two probe calls in the native binary.
export const MEMBW_REPS = args.quick ? 3 : 7;
export const PROBE_REPS = args.quick ? 3 : 9;
export const log = (...m) => console.error(...m);
