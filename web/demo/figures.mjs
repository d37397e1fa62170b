// The demo page's live figures: medians of recent frames' times (wasm, one thread, plain JavaScript, WebGPU), the speed-up, the agreement line and the Benchmark button's result.
import { $, WINDOW, hook, state } from './page_state.mjs';

let figures = { key: '', ours: [], js: [], one: [] };
// The WebGPU card: the median of the settled states' GPU times of the current workload, and
// the largest difference from the wasm output (uint8 bilinear: the wasm blend is fixed point,
// within 1 level).
let gpuFigures = { key: '', ms: [] };

/** Starts the timing windows anew (the plain-JS comparison was switched). */
export function resetFigures() {
  figures = { key: '', ours: [], js: [], one: [] };
}

/** Starts the WebGPU card's window anew (the WebGPU switch was turned). */
export function resetGpuFigures() {
  gpuFigures = { key: '', ms: [] };
}

function median(values) {
  const s = values.slice().sort((a, b) => a - b);
  return s.length ? s[s.length >> 1] : NaN;
}

export function formatMs(ms) {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

/** Adds a frame's or a settled state's times (and its difference from plain JS) to the figures. */
export function record(workload, oursMs, jsMs, maxDiff, oneMs = null) {
  // A new workload (size, mode, flow...) starts new windows: medians never mix workloads.
  if (figures.key !== workload) {
    figures = { key: workload, ours: [], js: [], one: [] };
    $('fig-one').textContent = '–';
    $('agreement').textContent = state.compareJs ? 'plain JS vs wasm output: …' : '';
  }
  figures.ours.push(...[].concat(oursMs));
  if (jsMs !== null && jsMs !== undefined) figures.js.push(jsMs);
  figures.ours.splice(0, Math.max(0, figures.ours.length - WINDOW));
  figures.js.splice(0, Math.max(0, figures.js.length - WINDOW));
  const ours = median(figures.ours);
  const js = median(figures.js);
  $('fig-ours').textContent = formatMs(ours);
  $('fig-js').textContent = figures.js.length ? formatMs(js) : (state.compareJs ? '…' : 'off');
  $('fig-speedup').textContent = figures.js.length ? (js / ours).toFixed(1) : '–';
  // The settled state's same warp on one thread (threaded pages; the fused warp only).
  if (oneMs) {
    figures.one.push(...oneMs);
    figures.one.splice(0, Math.max(0, figures.one.length - WINDOW));
    const one = median(figures.one);
    $('fig-one').textContent = formatMs(one);
    $('fig-one-ratio').textContent = `threads ${(one / ours).toFixed(2)}× faster · `;
  }
  if (maxDiff !== null && maxDiff !== undefined) {
    const text = maxDiff === 0 || maxDiff >= 0.1 ? String(+maxDiff.toFixed(2)) : maxDiff.toExponential(1);
    // Bytes can differ by one where double (JS) and float32 (wasm) blending straddle a .5.
    $('agreement').textContent = `plain JS vs wasm output: largest difference ${text} (pixel values 0–255` +
      `${maxDiff >= 1 ? '; a rounding step' : ''})`;
  }
}

/** The worker's 'gpu' message: the WebGPU card. */
export function onGpu(m) {
  hook.lastGpu = m;
  if (m.error) {
    $('fig-gpu').textContent = 'n/a';
    $('fig-gpu-diff').textContent = m.error;
    return;
  }
  if (gpuFigures.key !== m.workload) gpuFigures = { key: m.workload, ms: [] };
  gpuFigures.ms.push(...m.gpuMs);
  gpuFigures.ms.splice(0, Math.max(0, gpuFigures.ms.length - WINDOW));
  $('fig-gpu').textContent = formatMs(median(gpuFigures.ms));
  $('fig-gpu-fps').textContent = m.fps >= 10 ? m.fps.toFixed(0) : m.fps.toFixed(1);
  $('fig-gpu-call').textContent = formatMs(median(m.callMs));
  const versus = (d) => (d === 0 ? 'same bytes as wasm' : `largest difference from wasm: ${d}`);
  $('fig-gpu-diff').textContent = versus(m.gpuDiff);
  $('gpu-info').textContent = m.canvasDiff === null ? '' : `what the canvas holds: ${versus(m.canvasDiff)}`;
  // SwiftShader (Chromium's WebGPU without a GPU) runs shaders on the CPU: its times say nothing.
  const emulated = /swiftshader/i.test(m.adapter) ? ' (a CPU emulation: times mean nothing)' : '';
  $('fig-gpu-adapter').textContent = m.adapter ? ` · ${m.adapter}${emulated}` : '';
}

/** The worker's 'benchmark' message: the Benchmark button's result. */
export function onBenchmark(m) {
  const button = $('benchmark');
  button.disabled = false;
  button.textContent = 'Benchmark this setting';
  $('benchmark-result').innerHTML = `Median of ${m.reps}: wasm <b>${formatMs(m.oursMs)} ms</b>; ` +
    `plain JS <b>${formatMs(m.jsMs)} ms</b> (median of ${m.jsReps}); <b>${(m.jsMs / m.oursMs).toFixed(1)}×</b>. ` +
    `<br>${m.workload}`;
  hook.lastBenchmark = m;
}
