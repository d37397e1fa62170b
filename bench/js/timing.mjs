// Timing of one implementation: warm-up, then repeated samples; median and min in milliseconds.
import { performance } from 'node:perf_hooks';

const now = () => performance.now();

// Defaults keep a whole `make bench` within its ~10 minute budget on 2 cores while giving at
// least 7 samples (a stable median) for every implementation.
export const DEFAULTS = { warmup: 2, minReps: 7, maxReps: 40, budgetMs: 700, minSampleMs: 2 };

/** Median and min of per-call times in ms; `batch` is recorded as given. */
export function stats(samples, batch) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], reps: sorted.length, batch };
}

/**
 * Times `fn` (sync or async; async results are awaited, which is part of that API's cost).
 * Calls faster than `minSampleMs` are batched so that timer resolution does not matter; a
 * sample is the batch's time divided by its size.
 * @returns {Promise<{median: number, min: number, reps: number, batch: number}>}
 */
export async function measure(fn, options = {}) {
  const { warmup, minReps, maxReps, budgetMs, minSampleMs } = { ...DEFAULTS, ...options };
  // Collect garbage left by the previous implementation so that it is not charged here.
  if (globalThis.gc) globalThis.gc();
  let t = now();
  await fn();
  const first = now() - t;
  for (let i = 1; i < warmup; ++i) await fn();
  const batch = first >= minSampleMs ? 1 : Math.min(1000, Math.ceil(minSampleMs / Math.max(first, 1e-3)));
  const samples = [];
  const start = now();
  while (samples.length < minReps || (samples.length < maxReps && now() - start < budgetMs)) {
    t = now();
    for (let i = 0; i < batch; ++i) await fn();
    samples.push((now() - t) / batch);
  }
  return stats(samples, batch);
}
