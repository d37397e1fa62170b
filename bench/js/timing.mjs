// Timing of implementations side by side: warm-up and batch calibration, then samples taken in rounds; median, p90 and min in milliseconds.
import { performance } from 'node:perf_hooks';

const now = () => performance.now();

// Defaults keep a whole `make bench` within its ~10 minute budget on 2 cores while giving at
// least 7 samples (a stable median) for every implementation. `budgetMs` is per implementation.
export const DEFAULTS = { warmup: 2, warmupMs: 20, minReps: 7, maxReps: 40, budgetMs: 700, minSampleMs: 2 };

/** The p-quantile of `values` (0 < p <= 1) by the nearest rank: the ceil(p n)-th smallest. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

/**
 * Median, p90 (percentile above) and min of per-call times in ms; `batch` is recorded as given
 * (a sample averages `batch` calls).
 */
export function stats(samples, batch) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, p90: percentile(sorted, 0.9), min: sorted[0], reps: sorted.length, batch };
}

/**
 * One untimed call of `body` (sync or async; the engine compiles on the first), then `runs`
 * timed ones, one after another: [median ms, the last call's result]. For standalone
 * comparisons of calls that each take long enough to time alone (decoding a file, say).
 */
export async function medianOfRuns(runs, body) {
  let result = await body();
  const times = [];
  for (let i = 0; i < runs; ++i) {
    const t = now();
    result = await body();
    times.push(now() - t);
  }
  return [stats(times).median, result];
}

/**
 * Warms `run` up (sync or async; async results are awaited, which is part of that API's cost)
 * and picks its batch size: calls faster than `minSampleMs` are batched so that timer
 * resolution does not matter. Never throws: returns a timing entry
 * `{ run, batch, samples: [], error }` whose `error` is what `run` threw, if it did.
 */
export async function calibrate(run, options = {}) {
  const { warmup, warmupMs, minSampleMs } = { ...DEFAULTS, ...options };
  const entry = { run, batch: 1, samples: [], error: null };
  try {
    // The fastest warm-up call sets the batch (the first may pay for page faults, and V8 runs
    // a wasm function's first calls on its baseline compiler): a call faster than a sample goes
    // on being called for up to `warmupMs`, so that the batch is the steady call's. From two
    // calls alone, two rows compared in the same rounds got batches of 5 and 18 for calls of
    // about the same speed, and the smaller batch spread the cold start after the other rows'
    // samples over fewer calls: cl5 against its NCHW baseline measured 1.21x and 1.49x in two
    // runs; with batches of 25 and 27, 1.11x, as the two alternating in a loop (1.04x-1.17x).
    let fastest = Infinity;
    const start = now();
    for (let i = 0; i < Math.max(1, warmup) || (fastest < minSampleMs && now() - start < warmupMs); ++i) {
      const t = now();
      await run();
      fastest = Math.min(fastest, now() - t);
    }
    entry.batch = fastest >= minSampleMs ? 1 : Math.min(1000, Math.ceil(minSampleMs / Math.max(fastest, 1e-3)));
  } catch (e) {
    entry.error = e;
  }
  return entry;
}

/**
 * Adds one sample to `entry`: the time of one batch divided by its size (or sets `error`). An
 * entry timed in another process (`remote`, see timeInRounds) gets the ms per call its
 * `remote()` resolves to.
 */
export async function sample(entry) {
  try {
    if (entry.remote) {
      entry.samples.push(await entry.remote());
      return;
    }
    const t = now();
    for (let i = 0; i < entry.batch; ++i) await entry.run();
    entry.samples.push((now() - t) / entry.batch);
  } catch (e) {
    entry.error = e;
  }
}

/** Whether `count` samples are enough: at least minReps, and maxReps reached or the budget spent. */
function enough(count, elapsedMs, { minReps, maxReps, budgetMs }) {
  return count >= minReps && (count >= maxReps || elapsedMs >= budgetMs);
}

/**
 * Times calibrated entries together, so that a drift of the machine's speed hits all alike:
 * each round collects garbage once (when --expose-gc), then every entry still without an error
 * takes one sample, in an order rotated by one per round. Rounds go on until every entry has
 * minReps samples and either maxReps or the budget (budgetMs per entry) is reached. An entry
 * may be timed elsewhere (`remote`: an async function resolving to one sample's ms per call,
 * e.g. a child process timing itself while this one waits) and may cap its own samples
 * (`maxReps`, never below minReps): it then sits out the rounds after its last one.
 */
export async function timeInRounds(entries, options = {}) {
  let active = entries.filter((e) => !e.error);
  const limits = { ...DEFAULTS, ...options };
  limits.budgetMs *= active.length;
  const full = (e) => e.maxReps !== undefined && e.samples.length >= Math.max(e.maxReps, limits.minReps);
  const start = now();
  for (let round = 0; active.length && !enough(round, now() - start, limits); ++round) {
    if (globalThis.gc) globalThis.gc();
    const order = active.map((_, i) => active[(round + i) % active.length]).filter((e) => !full(e));
    for (const e of order) await sample(e);
    active = active.filter((e) => !e.error);
  }
}

/** Samples one calibrated entry alone until it has enough for `options` (a share of a round). */
export async function sampleFor(entry, options = {}) {
  const limits = { ...DEFAULTS, ...options };
  const start = now();
  for (let n = 0; !entry.error && !enough(n, now() - start, limits); ++n) await sample(entry);
}
