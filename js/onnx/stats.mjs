// The median and 90th percentile of timed runs: what placement 'auto' decides from and what `gridsample onnx bench` reports (onnx/timing.mjs).

/** The median and 90th percentile of a list of milliseconds. */
export function stats(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2, p90: at(0.9), runs: sorted.length };
}
