// The demo page's entry (index.html's module script): routes the worker's messages to the page's modules, exposes window.__demo and starts the page; the warping itself runs in worker.mjs (the perspective panel: perspective.mjs).
//
// The page's modules: page_state.mjs (the state they share), worker_link.mjs (the worker and
// what is sent to it), source.mjs (the source picture), controls.mjs (the sliders, θ and the
// options), drawing.mjs (the output canvas, the thumbnails and the sampling grid over the
// source), figures.mjs (the live figures), test_hook.mjs (window.__demo).
import { $, BATCH, THUMB, hook, page, query, frameDrawn } from './page_state.mjs';
import { showTheta, updateTheta, wireControls } from './controls.mjs';
import { onBenchmark, onGpu, record } from './figures.mjs';
import { drawFrame, drawOverlay, followSourceSize, initWorker } from './drawing.mjs';
import { startPerspectivePanel } from './perspective.mjs';
import { captureWebcam, showBuiltin, wireSources } from './source.mjs';
import { hookPerspective, installHook } from './test_hook.mjs';
import { answer, post, worker } from './worker_link.mjs';

function showError(message) {
  const banner = $('banner');
  banner.hidden = false;
  banner.textContent = message;
}

function onReady(m) {
  hook.ready = true;
  hook.backend = m.backend;
  hook.threads = m.threads;
  $('fig-backend').textContent = m.backend;
  $('fig-threads').textContent = m.threads > 1 ? `${m.threads} threads`
    : m.isolated ? '1 thread' : '1 thread (page not cross-origin isolated)';
  $('fig-one-card').hidden = m.threads === 1;
  $('fig-ours-threads').textContent = m.threads > 1 ? `${m.threads} threads · ` : '';
  $('fig-target').textContent = `SIMD target ${m.target}${m.offscreen ? ' · OffscreenCanvas' : ' · main-thread canvas'}`;
}

function onFrame(m) {
  hook.frames += 1;
  hook.lastFrame = { seq: m.seq, sourceId: m.sourceId, width: m.width, height: m.height, path: m.path, oursMs: m.oursMs,
    jsMs: m.jsMs, maxDiff: m.maxDiff, frameMs: m.frameMs, workload: m.workload };
  drawFrame(m);
  page.lattice = { data: m.lattice, width: m.width, height: m.height, align: m.align };
  drawOverlay();
  record(m.workload, m.oursMs, m.jsMs, m.maxDiff);
  frameDrawn();
  if (page.stream) captureWebcam();
}

installHook();

// The perspective panel, on the main thread with its own instance of the package; its state
// for the browser test as window.__demo.perspective.
startPerspectivePanel().then(hookPerspective, (e) => showError(`The perspective panel failed: ${e && e.message ? e.message : e}`));

worker.onerror = (e) => {
  showError(`The worker failed: ${e.message || 'could not start (see the console)'}`);
  console.error('gridsample demo worker:', e.message);
};

worker.onmessage = ({ data: m }) => {
  switch (m.type) {
    case 'ready':
      onReady(m);
      break;
    case 'frame':
      onFrame(m);
      break;
    case 'stats':
      hook.lastStats = m;
      record(m.workload, m.oursMs, m.jsMs, m.maxDiff, m.oneMs);
      break;
    case 'benchmark':
      onBenchmark(m);
      break;
    case 'gpu':
      onGpu(m);
      break;
    case 'read':
      answer(m);
      break;
    case 'error':
      showError(`gridsample: ${m.message}`);
      console.error('gridsample demo:', m.message);
      break;
    default:
      break;
  }
};

followSourceSize();
wireControls();
wireSources();

updateTheta();
showTheta();
// ?fused=0 warps with affineGrid + gridSample even where the package has warpAffine.
initWorker({ batch: BATCH, thumb: THUMB, fused: query.get('fused') !== '0' });
post();
showBuiltin();
