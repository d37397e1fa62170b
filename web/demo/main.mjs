// The demo page's main thread: source picture, controls, sampling-grid overlay and live figures; the warping itself runs in worker.mjs (the perspective panel: perspective.mjs).
import { FLOWS } from '../../js/images/flows.mjs';
import { paramsFromTheta, thetaFromParams } from '../../js/images/pixel_space.mjs';
import { startPerspectivePanel } from './perspective.mjs';
import { drawTestImage } from './test_image.mjs';
import { DEFAULT_PARAMS, randomThetas, toPixel } from './transforms.mjs';

const BATCH = 8; // thumbnails in the spatial-transformer view (one call with N = BATCH)
const THUMB = 128;
const WINDOW = 15; // the live figures are medians of this many recent frames
const SLIDERS = ['rotate', 'scaleX', 'scaleY', 'shear', 'tx', 'ty'];
// Built-in picture shapes, width : height (the Shape menu).
const ASPECTS = { square: 1, wide: 16 / 10 };

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);

const state = {
  params: { ...DEFAULT_PARAMS }, // in pixels about the source's centre (js/images/pixel_space.mjs)
  theta: null, // the same map as AffineGrid's θ for the source's size: see updateTheta()
  flow: 'none',
  strengths: Object.fromEntries(Object.entries(FLOWS).map(([k, v]) => [k, v.strength])),
  mode: 'bilinear',
  padding: 'zeros',
  align: false,
  compareJs: true,
  gpu: query.get('gpu') === '1', // the WebGPU switch (?gpu=1 turns it on)
  size: 512,
  shape: 'square',
};

let seq = 0; // params messages sent
let sourceId = 0; // source images sent
let source = { kind: 'builtin', bitmap: null, name: '' };
let stream = null; // webcam MediaStream
let lattice = null; // last frame's grid subsample, for the overlay
let hoverTile = -1;
let batchSeed = 1;
let figures = { key: '', ours: [], js: [], one: [] };
const waiting = []; // resolvers of settled()

// --- worker ------------------------------------------------------------------------------

// ?threads=N on the page goes to the worker's load().
const workerUrl = new URL('./worker.mjs', import.meta.url);
const threadsParam = query.get('threads');
if (threadsParam) workerUrl.searchParams.set('threads', threadsParam);
const worker = new Worker(workerUrl, { type: 'module' });
const outputCanvas = $('output');
const tiles = Array.from({ length: BATCH }, (_, n) => {
  const c = document.createElement('canvas');
  c.width = THUMB;
  c.height = THUMB;
  c.title = `thumbnail ${n + 1}: hover to see its θ on the source`;
  c.addEventListener('mouseenter', () => { hoverTile = n; drawOverlay(); });
  c.addEventListener('mouseleave', () => { hoverTile = -1; drawOverlay(); });
  $('tiles').append(c);
  return c;
});
// ?offscreen=0 forces the fallback that browsers without OffscreenCanvas take.
const offscreen = typeof outputCanvas.transferControlToOffscreen === 'function' && query.get('offscreen') !== '0';
const outputCtx = offscreen ? null : outputCanvas.getContext('2d');
const tileCtxs = offscreen ? null : tiles.map((c) => c.getContext('2d'));

const hook = {
  ready: false,
  backend: null,
  offscreen,
  crossOriginIsolated: self.crossOriginIsolated === true,
  frames: 0,
  sentSeq: 0,
  sourceId: 0,
  lastFrame: null,
  lastStats: null,
  lastGpu: null, // the WebGPU switch's last figures
  get state() { return JSON.parse(JSON.stringify({ ...state, sourceKind: source.kind, batchSeed })); },
  /** Resolves once a frame for the latest state and source has been drawn. */
  settled() {
    return new Promise((resolve) => {
      if (isSettled()) resolve(hook.lastFrame);
      else waiting.push(resolve);
    });
  },
  /** The source pixels the worker received: {width, height, base64 of RGBA}. */
  sourcePixels() {
    const im = sourceCtx.getImageData(0, 0, sourceCanvas.width, sourceCanvas.height);
    return { width: im.width, height: im.height, base64: toBase64(im.data) };
  },
  /** What the output canvas holds, read back from it. */
  readOutput() {
    if (outputCtx) {
      const im = outputCtx.getImageData(0, 0, outputCanvas.width, outputCanvas.height);
      return Promise.resolve({ width: im.width, height: im.height, base64: toBase64(im.data) });
    }
    return ask({ type: 'read' }).then((m) => ({ width: m.width, height: m.height, base64: toBase64(m.data) }));
  },
  /** What thumbnail n of the batch view holds. */
  readTile(n) {
    if (tileCtxs) {
      const im = tileCtxs[n].getImageData(0, 0, THUMB, THUMB);
      return Promise.resolve({ width: im.width, height: im.height, base64: toBase64(im.data) });
    }
    return ask({ type: 'read', tile: n }).then((m) => ({ width: m.width, height: m.height, base64: toBase64(m.data) }));
  },
  /** RGBA pixels after a trip through a 2-D canvas (which stores premultiplied alpha). */
  canvasRoundTrip({ width, height, base64 }) {
    const c = document.createElement('canvas');
    c.width = width;
    c.height = height;
    const ctx = c.getContext('2d', { willReadFrequently: true });
    ctx.putImageData(new ImageData(fromBase64(base64), width, height), 0, 0);
    return { width, height, base64: toBase64(ctx.getImageData(0, 0, width, height).data) };
  },
};
window.__demo = hook; // for the browser test; the page never reads it

// The perspective panel, on the main thread with its own instance of the package; its state
// for the browser test as window.__demo.perspective.
const image64 = (im) => ({ width: im.width, height: im.height, base64: toBase64(im.data) });
startPerspectivePanel().then((panel) => {
  hook.perspective = {
    get frames() { return panel.frames; },
    get quad() { return panel.quad.map((p) => [...p]); },
    get mode() { return panel.mode; },
    sourcePixels: () => image64(panel.source()),
    readOutput: () => image64(panel.output()),
  };
}, (e) => showError(`The perspective panel failed: ${e && e.message ? e.message : e}`));

function isSettled() {
  const f = hook.lastFrame;
  return !!f && f.seq === seq && f.sourceId === sourceId;
}

let asked = 0;
const answers = new Map();
function ask(message) {
  const id = ++asked;
  return new Promise((resolve) => {
    answers.set(id, resolve);
    worker.postMessage({ ...message, id });
  });
}

function toBase64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(text) {
  const s = atob(text);
  const out = new Uint8ClampedArray(s.length);
  for (let i = 0; i < s.length; ++i) out[i] = s.charCodeAt(i);
  return out;
}

function showError(message) {
  const banner = $('banner');
  banner.hidden = false;
  banner.textContent = message;
}

worker.onerror = (e) => {
  showError(`The worker failed: ${e.message || 'could not start (see the console)'}`);
  console.error('gridsample demo worker:', e.message);
};

worker.onmessage = ({ data: m }) => {
  switch (m.type) {
    case 'ready':
      hook.ready = true;
      hook.backend = m.backend;
      hook.threads = m.threads;
      $('fig-backend').textContent = m.backend;
      $('fig-threads').textContent = m.threads > 1 ? `${m.threads} threads`
        : m.isolated ? '1 thread' : '1 thread (page not cross-origin isolated)';
      $('fig-one-card').hidden = m.threads === 1;
      $('fig-ours-threads').textContent = m.threads > 1 ? `${m.threads} threads · ` : '';
      $('fig-target').textContent = `SIMD target ${m.target}${m.offscreen ? ' · OffscreenCanvas' : ' · main-thread canvas'}`;
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
      answers.get(m.id)?.(m);
      answers.delete(m.id);
      break;
    case 'error':
      showError(`gridsample: ${m.message}`);
      console.error('gridsample demo:', m.message);
      break;
    default:
      break;
  }
};

function onFrame(m) {
  hook.frames += 1;
  hook.lastFrame = { seq: m.seq, sourceId: m.sourceId, width: m.width, height: m.height, path: m.path, oursMs: m.oursMs,
    jsMs: m.jsMs, maxDiff: m.maxDiff, frameMs: m.frameMs, workload: m.workload };
  if (m.image) {
    if (outputCanvas.width !== m.width || outputCanvas.height !== m.height) {
      outputCanvas.width = m.width;
      outputCanvas.height = m.height;
    }
    outputCtx.putImageData(m.image, 0, 0);
  }
  if (m.batch) {
    if (m.batch.images) m.batch.images.forEach((im, n) => tileCtxs[n].putImageData(im, 0, 0));
    $('batch-info').innerHTML = `N = ${m.batch.n} thumbnails of ${THUMB}×${THUMB}, each with its own random θ, from <b>one</b> ` +
      `<code>affineGrid</code> and <b>one</b> <code>gridSample</code> call on a [${m.batch.inputShape.join(', ')}] batch: ` +
      `<b>${formatMs(m.batch.ms)} ms</b>. Hover a thumbnail to see its θ on the source.`;
  }
  lattice = { data: m.lattice, width: m.width, height: m.height, align: m.align };
  drawOverlay();
  $('output-info').textContent = `${m.width}×${m.height}`;
  $('output-call').textContent = m.path === 'warpAffine' ? '= warpAffine(source, θ)'
    : m.path === 'warpFlow' ? '= warpFlow(source, flow)' : '= gridSample(source, grid)';
  $('workload').textContent = m.workload;
  record(m.workload, m.oursMs, m.jsMs, m.maxDiff);
  if (isSettled()) waiting.splice(0).forEach((resolve) => resolve(hook.lastFrame));
  if (stream) captureWebcam();
}

// --- live figures --------------------------------------------------------------------------

// The WebGPU card: the median of the settled states' GPU times of the current workload, and
// the largest difference from the wasm output (uint8 bilinear: the wasm blend is fixed point,
// within 1 level).
let gpuFigures = { key: '', ms: [] };
function onGpu(m) {
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
  $('fig-gpu-diff').textContent = m.gpuDiff === 0 ? 'same bytes as wasm' : `largest difference from wasm: ${m.gpuDiff}`;
  // SwiftShader (Chromium's WebGPU without a GPU) runs shaders on the CPU: its times say nothing.
  const emulated = /swiftshader/i.test(m.adapter) ? ' (a CPU emulation: times mean nothing)' : '';
  $('fig-gpu-adapter').textContent = m.adapter ? ` · ${m.adapter}${emulated}` : '';
}

function median(values) {
  const s = values.slice().sort((a, b) => a - b);
  return s.length ? s[s.length >> 1] : NaN;
}

function formatMs(ms) {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

function record(workload, oursMs, jsMs, maxDiff, oneMs = null) {
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

function onBenchmark(m) {
  const button = $('benchmark');
  button.disabled = false;
  button.textContent = 'Benchmark this setting';
  $('benchmark-result').innerHTML = `Median of ${m.reps}: wasm <b>${formatMs(m.oursMs)} ms</b>; ` +
    `plain JS <b>${formatMs(m.jsMs)} ms</b> (median of ${m.jsReps}); <b>${(m.jsMs / m.oursMs).toFixed(1)}×</b>. ` +
    `<br>${m.workload}`;
  hook.lastBenchmark = m;
}

// --- source picture ----------------------------------------------------------------------

const sourceCanvas = $('source');
const sourceCtx = sourceCanvas.getContext('2d', { willReadFrequently: true });

function fit(width, height, longest) {
  const s = longest / Math.max(width, height);
  return [Math.max(1, Math.round(width * s)), Math.max(1, Math.round(height * s))];
}

// Draws the source at its working size, shows it and hands a copy of its pixels to the worker.
function sendSource(draw, width, height, info) {
  const resized = sourceCanvas.width !== width || sourceCanvas.height !== height;
  if (resized) {
    sourceCanvas.width = width;
    sourceCanvas.height = height;
  }
  sourceCtx.clearRect(0, 0, width, height);
  sourceCtx.imageSmoothingQuality = 'high';
  draw(sourceCtx, width, height);
  const im = sourceCtx.getImageData(0, 0, width, height);
  sourceId += 1;
  hook.sourceId = sourceId;
  worker.postMessage({ type: 'source', id: sourceId, width, height, pixels: im.data.buffer }, [im.data.buffer]);
  $('source-info').textContent = info;
  resizeOverlay();
  // The sliders are in pixels: the same transform of a picture of another size is another θ.
  if (resized) {
    paramsChanged();
  }
}

function showBuiltin() {
  stopWebcam();
  source = { kind: 'builtin', bitmap: null, name: '' };
  pressed('src-builtin');
  const [w, h] = fit(ASPECTS[state.shape], 1, state.size);
  sendSource((ctx) => drawTestImage(ctx, w, h), w, h, `built-in picture · ${w}×${h}`);
}

function showBitmap() {
  const { bitmap, name } = source;
  const [w, h] = fit(bitmap.width, bitmap.height, state.size);
  sendSource((ctx) => ctx.drawImage(bitmap, 0, 0, w, h), w, h, `${name} · ${bitmap.width}×${bitmap.height} → ${w}×${h}`);
}

async function openFile(file) {
  if (!file) return;
  try {
    const bitmap = await createImageBitmap(file);
    stopWebcam();
    source = { kind: 'file', bitmap, name: file.name || 'image' };
    pressed('src-file');
    showBitmap();
  } catch {
    $('source-info').textContent = `${file.name || 'that file'} is not an image this browser can decode`;
  }
}

let capturing = false;
function captureWebcam() {
  const video = $('video');
  // One frame in flight at a time: the next is taken when the worker has drawn this one.
  if (!stream || capturing || hook.lastFrame?.sourceId !== sourceId || video.readyState < 2) return;
  capturing = true;
  const grab = () => {
    capturing = false;
    if (!stream) return;
    const [w, h] = fit(video.videoWidth, video.videoHeight, state.size);
    sendSource((ctx) => ctx.drawImage(video, 0, 0, w, h), w, h, `webcam · ${video.videoWidth}×${video.videoHeight} → ${w}×${h}`);
  };
  if (typeof video.requestVideoFrameCallback === 'function') video.requestVideoFrameCallback(grab);
  else requestAnimationFrame(grab);
}

async function startWebcam() {
  if (!navigator.mediaDevices?.getUserMedia) {
    $('source-info').textContent = 'no webcam access here (it needs https or localhost)';
    return;
  }
  try {
    const s = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
    stopWebcam();
    stream = s;
    const video = $('video');
    video.srcObject = stream;
    await video.play();
    source = { kind: 'webcam', bitmap: null, name: 'webcam' };
    pressed('src-webcam');
    const [w, h] = fit(video.videoWidth, video.videoHeight, state.size);
    sendSource((ctx) => ctx.drawImage(video, 0, 0, w, h), w, h, 'webcam');
  } catch (e) {
    $('source-info').textContent = `webcam not available: ${e.name === 'NotAllowedError' ? 'permission denied' : e.message || e.name}`;
  }
}

function stopWebcam() {
  if (!stream) return;
  for (const track of stream.getTracks()) track.stop();
  stream = null;
  $('video').srcObject = null;
}

function pressed(id) {
  for (const b of document.querySelectorAll('.source-bar .segmented button')) b.setAttribute('aria-pressed', String(b.id === id));
}

function refreshSource() {
  if (source.kind === 'file') showBitmap();
  else if (source.kind === 'builtin') showBuiltin();
  // the webcam picks the new size up with its next frame
}

// --- overlay: the sampling grid drawn over the source ----------------------------------------

const overlay = $('overlay');
const overlayCtx = overlay.getContext('2d');

function resizeOverlay() {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(sourceCanvas.clientWidth * dpr);
  const h = Math.round(sourceCanvas.clientHeight * dpr);
  if (overlay.width !== w || overlay.height !== h) {
    overlay.width = w;
    overlay.height = h;
  }
  drawOverlay();
}
new ResizeObserver(resizeOverlay).observe(sourceCanvas);

// Normalised grid coordinates to overlay pixels, through the source's pixel centres.
function projector(width, height, align) {
  const sx = overlay.width / width;
  const sy = overlay.height / height;
  return (gx, gy) => [(toPixel(gx, width, align) + 0.5) * sx, (toPixel(gy, height, align) + 0.5) * sy];
}

function drawOverlay() {
  const ctx = overlayCtx;
  ctx.clearRect(0, 0, overlay.width, overlay.height);
  if (!lattice || lattice.width !== sourceCanvas.width || lattice.height !== sourceCanvas.height) return;
  const dpr = window.devicePixelRatio || 1;
  const n = Math.round(Math.sqrt(lattice.data.length / 2)); // points per side
  const project = projector(lattice.width, lattice.height, lattice.align);
  const point = (a, b) => project(lattice.data[2 * (a * n + b)], lattice.data[2 * (a * n + b) + 1]);
  const line = (points, style, width) => {
    ctx.beginPath();
    let open = false;
    for (const [x, y] of points) {
      if (!Number.isFinite(x) || !Number.isFinite(y)) { open = false; continue; }
      if (open) ctx.lineTo(x, y);
      else ctx.moveTo(x, y);
      open = true;
    }
    ctx.strokeStyle = style;
    ctx.lineWidth = width * dpr;
    ctx.stroke();
  };
  const row = (a) => Array.from({ length: n }, (_, b) => point(a, b));
  const col = (b) => Array.from({ length: n }, (_, a) => point(a, b));
  ctx.save();
  ctx.shadowColor = 'rgba(0, 0, 0, 0.6)';
  ctx.shadowBlur = 2 * dpr;
  // 16 grid lines each way; the outline follows every lattice point (curved flows).
  const step = Math.max(1, Math.round((n - 1) / 16));
  for (let k = step; k < n - 1; k += step) {
    line(row(k), 'rgba(76, 201, 240, 0.7)', 1);
    line(col(k), 'rgba(76, 201, 240, 0.7)', 1);
  }
  for (const edge of [row(0), row(n - 1), col(0), col(n - 1)]) line(edge, '#f4a261', 2.5);
  // The output's top-left corner, so that rotations and mirror images can be told apart.
  const [x0, y0] = point(0, 0);
  if (Number.isFinite(x0) && Number.isFinite(y0)) {
    ctx.fillStyle = '#f4a261';
    ctx.beginPath();
    ctx.arc(x0, y0, 5 * dpr, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
  if (hoverTile >= 0) drawTileQuad(hoverTile);
}

// The quad a batch thumbnail samples: its θ applied to the thumbnail's corner pixels.
function drawTileQuad(n) {
  const t = randomThetas(BATCH, batchSeed).subarray(6 * n, 6 * n + 6);
  const c = state.align ? 1 : 1 - 1 / THUMB;
  const project = projector(sourceCanvas.width, sourceCanvas.height, state.align);
  const dpr = window.devicePixelRatio || 1;
  overlayCtx.beginPath();
  [[-c, -c], [c, -c], [c, c], [-c, c]].forEach(([x, y], i) => {
    const [px, py] = project(t[0] * x + t[1] * y + t[2], t[3] * x + t[4] * y + t[5]);
    if (i === 0) overlayCtx.moveTo(px, py);
    else overlayCtx.lineTo(px, py);
  });
  overlayCtx.closePath();
  overlayCtx.fillStyle = 'rgba(247, 37, 133, 0.18)';
  overlayCtx.fill();
  overlayCtx.strokeStyle = '#f72585';
  overlayCtx.lineWidth = 2.5 * dpr;
  overlayCtx.stroke();
}

// --- controls ----------------------------------------------------------------------------

function post() {
  seq += 1;
  hook.sentSeq = seq;
  worker.postMessage({
    type: 'params',
    params: {
      seq,
      theta: state.theta.slice(),
      flow: state.flow,
      strength: state.flow === 'none' ? 0 : state.strengths[state.flow],
      mode: state.mode,
      padding: state.padding,
      align: state.align,
      compareJs: state.compareJs,
      gpu: state.gpu,
    },
  });
}

const FORMAT = {
  rotate: (v) => `${Math.round(v)}°`,
  scaleX: (v) => v.toFixed(2),
  scaleY: (v) => v.toFixed(2),
  shear: (v) => v.toFixed(2),
  tx: (v) => `${+v.toFixed(1)} px`,
  ty: (v) => `${+v.toFixed(1)} px`,
};

// θ of the sliders' transform for the current source and alignCorners: the picture is the
// same with either alignCorners, and a rotation does not stretch a non-square picture.
function updateTheta() {
  state.theta = thetaFromParams(state.params, [sourceCanvas.width, sourceCanvas.height], state.align);
}

// After state.params, the source's size or alignCorners changed: θ anew, shown and sent.
function paramsChanged() {
  updateTheta();
  showTheta();
  post();
}

// Shows state.params on the sliders (clamped to their range; the label keeps the exact value)
// and state.theta in the matrix, except in the field being typed in.
function showTheta(except) {
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
  figures = { key: '', ours: [], js: [], one: [] };
  post();
});

// The WebGPU switch: offered where the browser has WebGPU; the worker times the same warp on
// the GPU once a state settles (the fused warpAffine path only).
if (!navigator.gpu) {
  $('gpu').disabled = true;
  $('gpu-switch').title = 'this browser has no WebGPU (navigator.gpu)';
  state.gpu = false;
}
$('gpu').checked = state.gpu;
$('gpu').addEventListener('change', (e) => {
  state.gpu = e.target.checked;
  gpuFigures = { key: '', ms: [] };
  $('fig-gpu-card').hidden = !state.gpu;
  post();
});
$('fig-gpu-card').hidden = !state.gpu;

$('benchmark').addEventListener('click', () => {
  const button = $('benchmark');
  button.disabled = true;
  button.textContent = 'Benchmarking…';
  worker.postMessage({ type: 'benchmark', reps: 20, jsReps: 5 });
});

$('shuffle').addEventListener('click', () => {
  batchSeed = 1 + Math.floor(Math.random() * 1e9);
  worker.postMessage({ type: 'shuffle', seed: batchSeed });
});

$('size').addEventListener('change', (e) => {
  state.size = Number(e.target.value);
  refreshSource();
});

$('shape').addEventListener('change', (e) => {
  state.shape = e.target.value;
  showBuiltin();
});

$('src-builtin').addEventListener('click', showBuiltin);
$('src-file').addEventListener('click', () => $('file').click());
$('file').addEventListener('change', (e) => { openFile(e.target.files[0]); e.target.value = ''; });
$('src-webcam').addEventListener('click', startWebcam);
if (!navigator.mediaDevices?.getUserMedia) $('src-webcam').disabled = true;

// Drag and drop onto the source; dropping elsewhere must not navigate away from the demo.
const dropZone = $('drop-zone');
let dragDepth = 0;
dropZone.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth += 1; dropZone.classList.add('dragging'); });
dropZone.addEventListener('dragleave', () => { dragDepth -= 1; if (dragDepth <= 0) dropZone.classList.remove('dragging'); });
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  dropZone.classList.remove('dragging');
  const file = [...(e.dataTransfer?.files || [])].find((f) => f.type.startsWith('image/')) || e.dataTransfer?.files[0];
  openFile(file);
});

// Animation: turn the rotation slider at 30°/s, never more than one frame ahead of the worker.
let lastTick = 0;
function tick(now) {
  if (!$('animate').checked) return;
  const dt = lastTick ? Math.min(0.1, (now - lastTick) / 1000) : 0;
  lastTick = now;
  if (!hook.lastFrame || hook.lastFrame.seq >= seq - 1) {
    let r = state.params.rotate + 30 * dt;
    if (r > 180) r -= 360;
    state.params.rotate = r;
    paramsChanged();
  }
  requestAnimationFrame(tick);
}
$('animate').addEventListener('change', (e) => {
  lastTick = 0;
  if (e.target.checked) requestAnimationFrame(tick);
});

// --- start -------------------------------------------------------------------------------

updateTheta();
showTheta();
// ?fused=0 warps with affineGrid + gridSample even where the package has warpAffine.
const init = { batch: BATCH, thumb: THUMB, fused: query.get('fused') !== '0' };
if (offscreen) {
  // The worker draws straight into the page's canvases.
  const output = outputCanvas.transferControlToOffscreen();
  const offscreenTiles = tiles.map((c) => c.transferControlToOffscreen());
  worker.postMessage({ type: 'init', output, tiles: offscreenTiles, ...init }, [output, ...offscreenTiles]);
} else {
  worker.postMessage({ type: 'init', ...init });
}
post();
showBuiltin();
