// The demo page's controls: the sliders and θ's fields (kept in step through the source's size), the sampling options, the WebGPU switch, the batch's shuffle, the Benchmark button and the animation.
import { FLOWS } from '../../js/images/flows.mjs';
import { paramsFromTheta, thetaFromParams } from '../../js/images/pixel_space.mjs';
import { $, hook, page, sourceCanvas, state } from './page_state.mjs';
import { resetFigures, resetGpuFigures } from './figures.mjs';
import { post, worker } from './worker_link.mjs';

const SLIDERS = ['rotate', 'scaleX', 'scaleY', 'shear', 'tx', 'ty'];

const FORMAT = {
  rotate: (v) => `${Math.round(v)}°`,
  scaleX: (v) => v.toFixed(2),
  scaleY: (v) => v.toFixed(2),
  shear: (v) => v.toFixed(2),
  tx: (v) => `${+v.toFixed(1)} px`,
  ty: (v) => `${+v.toFixed(1)} px`,
};

/**
 * θ of the sliders' transform for the current source and alignCorners: the picture is the
 * same with either alignCorners, and a rotation does not stretch a non-square picture.
 */
export function updateTheta() {
  state.theta = thetaFromParams(state.params, [sourceCanvas.width, sourceCanvas.height], state.align);
}

/** After state.params, the source's size or alignCorners changed: θ anew, shown and sent. */
export function paramsChanged() {
  updateTheta();
  showTheta();
  post();
}

/**
 * Shows state.params on the sliders (clamped to their range; the label keeps the exact value)
 * and state.theta in the matrix, except in the field being typed in.
 */
export function showTheta(except) {
  // Translations up to a whole side either way.
  for (const [k, side] of [['tx', sourceCanvas.width], ['ty', sourceCanvas.height]]) {
    $(k).min = String(-side);
    $(k).max = String(side);
  }
  for (const k of SLIDERS) {
    $(k).value = String(state.params[k]);
    $(`${k}-value`).textContent = FORMAT[k](state.params[k]);
  }
  state.theta.forEach((v, i) => {
    const field = $(`m${i}`);
    if (field !== except) field.value = String(Math.round(v * 1000) / 1000);
  });
}

// Segmented buttons acting as radio groups; `apply` receives the chosen value.
function radioGroup(id, apply) {
  const group = $(id);
  group.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-value]');
    if (!button) return;
    for (const b of group.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === button));
    apply(button.dataset.value);
    post();
  });
}

// The transform: sliders, θ's fields, Reset and Randomize.
function wireTransform() {
  for (const k of SLIDERS) {
    $(k).addEventListener('input', (e) => {
      state.params[k] = Number(e.target.value);
      paramsChanged();
    });
  }

  for (let i = 0; i < 6; ++i) {
    $(`m${i}`).addEventListener('input', (e) => {
      const v = Number(e.target.value);
      if (e.target.value.trim() === '' || !Number.isFinite(v)) return;
      state.theta[i] = v;
      state.params = paramsFromTheta(state.theta, [sourceCanvas.width, sourceCanvas.height], state.align);
      showTheta(e.target);
      post();
    });
  }

  $('reset').addEventListener('click', () => {
    state.params = { rotate: 0, scaleX: 1, scaleY: 1, shear: 0, tx: 0, ty: 0 };
    paramsChanged();
  });

  $('randomize').addEventListener('click', () => {
    const r = (lo, hi) => lo + (hi - lo) * Math.random();
    const s = r(0.5, 1.2);
    state.params = { rotate: Math.round(r(-60, 60)), scaleX: s * r(0.85, 1.15), scaleY: s * r(0.85, 1.15),
      shear: r(-0.3, 0.3), tx: Math.round(r(-0.15, 0.15) * sourceCanvas.width), ty: Math.round(r(-0.15, 0.15) * sourceCanvas.height) };
    paramsChanged();
  });
}

// The sampling options: mode, padding, flow preset and its strength, alignCorners, the plain-JS comparison.
function wireSampling() {
  radioGroup('mode', (v) => { state.mode = v; });
  radioGroup('padding', (v) => { state.padding = v; });
  radioGroup('flow', (v) => {
    state.flow = v;
    const strength = $('strength');
    strength.disabled = v === 'none';
    strength.value = String(v === 'none' ? 0 : state.strengths[v]);
    $('strength-value').textContent = v === 'none' ? '' : state.strengths[v].toFixed(2);
    $('flow-hint').textContent = v === 'none'
      ? 'Pick a preset: a non-affine map, built per pixel as a flow in pixels and sampled with warpFlow; θ still moves the window.'
      : `${FLOWS[v].label}: strength ${FLOWS[v].hint}. Built as a flow in pixels and sampled with warpFlow; θ still moves the window.`;
  });

  $('strength').addEventListener('input', (e) => {
    if (state.flow === 'none') return;
    state.strengths[state.flow] = Number(e.target.value);
    $('strength-value').textContent = state.strengths[state.flow].toFixed(2);
    post();
  });

  $('align').addEventListener('change', (e) => {
    state.align = e.target.checked;
    paramsChanged();
  });
  $('compare').addEventListener('change', (e) => {
    state.compareJs = e.target.checked;
    resetFigures();
    post();
  });
}

// The WebGPU switch: offered where the browser has WebGPU; the worker times the same warp on
// the GPU once a state settles (the fused warpAffine path only).
function wireGpu() {
  if (!navigator.gpu) {
    $('gpu').disabled = true;
    $('gpu-switch').title = 'this browser has no WebGPU (navigator.gpu)';
    state.gpu = false;
  }
  $('gpu').checked = state.gpu;
  $('gpu').addEventListener('change', (e) => {
    state.gpu = e.target.checked;
    resetGpuFigures();
    showGpu();
    post();
  });
  showGpu();
}

// The GPU's card, and its view where the worker draws on a WebGPU canvas (OffscreenCanvas only).
function showGpu() {
  $('fig-gpu-card').hidden = !state.gpu;
  $('gpu-view').hidden = !(state.gpu && hook.offscreen);
}

// Animation: turn the rotation slider at 30°/s, never more than one frame ahead of the worker.
function wireAnimation() {
  let lastTick = 0;
  const tick = (now) => {
    if (!$('animate').checked) return;
    const dt = lastTick ? Math.min(0.1, (now - lastTick) / 1000) : 0;
    lastTick = now;
    if (!hook.lastFrame || hook.lastFrame.seq >= page.seq - 1) {
      let r = state.params.rotate + 30 * dt;
      if (r > 180) r -= 360;
      state.params.rotate = r;
      paramsChanged();
    }
    requestAnimationFrame(tick);
  };
  $('animate').addEventListener('change', (e) => {
    lastTick = 0;
    if (e.target.checked) requestAnimationFrame(tick);
  });
}

/** Wires every control but the source's (source.mjs). */
export function wireControls() {
  wireTransform();
  wireSampling();
  wireGpu();

  $('benchmark').addEventListener('click', () => {
    const button = $('benchmark');
    button.disabled = true;
    button.textContent = 'Benchmarking…';
    worker.postMessage({ type: 'benchmark', reps: 20, jsReps: 5 });
  });

  $('shuffle').addEventListener('click', () => {
    page.batchSeed = 1 + Math.floor(Math.random() * 1e9);
    worker.postMessage({ type: 'shuffle', seed: page.batchSeed });
  });

  wireAnimation();
}
