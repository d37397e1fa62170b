// The demo page's drawing: the output canvas and batch thumbnails (handed to the worker as OffscreenCanvas, or drawn here from the pixels it posts, captioned, read back for window.__demo) and the overlay on the source (the last frame's sampling grid, the hovered thumbnail's quad).
import { BATCH, THUMB, $, hook, page, query, sourceCanvas, state } from './page_state.mjs';
import { formatMs } from './figures.mjs';
import { randomThetas, toPixel } from './transforms.mjs';
import { ask, worker } from './worker_link.mjs';

// --- output canvas and thumbnails ------------------------------------------------------------

const outputCanvas = $('output');
const tiles = Array.from({ length: BATCH }, (_, n) => {
  const c = document.createElement('canvas');
  c.width = THUMB;
  c.height = THUMB;
  c.title = `thumbnail ${n + 1}: hover to see its θ on the source`;
  c.addEventListener('mouseenter', () => { page.hoverTile = n; drawOverlay(); });
  c.addEventListener('mouseleave', () => { page.hoverTile = -1; drawOverlay(); });
  $('tiles').append(c);
  return c;
});
// ?offscreen=0 forces the fallback that browsers without OffscreenCanvas take.
const offscreen = typeof outputCanvas.transferControlToOffscreen === 'function' && query.get('offscreen') !== '0';
const outputCtx = offscreen ? null : outputCanvas.getContext('2d');
const tileCtxs = offscreen ? null : tiles.map((c) => c.getContext('2d'));
hook.offscreen = offscreen;

/** The worker's init message: `init`, with the canvases where the worker draws straight into them. */
export function initWorker(init) {
  if (offscreen) {
    // The worker draws straight into the page's canvases.
    const output = outputCanvas.transferControlToOffscreen();
    const offscreenTiles = tiles.map((c) => c.transferControlToOffscreen());
    // The WebGPU switch's canvas, where the worker's GPU draws the warp (WebGPU there too).
    const gpu = navigator.gpu ? $('gpu-output').transferControlToOffscreen() : null;
    worker.postMessage({ type: 'init', output, tiles: offscreenTiles, gpu, ...init }, [output, ...offscreenTiles, ...(gpu ? [gpu] : [])]);
  } else {
    worker.postMessage({ type: 'init', ...init });
  }
}

/** A frame's pixels (when the worker posted them rather than drew them) and its captions. */
export function drawFrame(m) {
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
  $('output-info').textContent = `${m.width}×${m.height}`;
  $('output-call').textContent = m.path === 'warpAffine' ? '= warpAffine(source, θ)'
    : m.path === 'warpFlow' ? '= warpFlow(source, flow)' : '= gridSample(source, grid)';
  $('workload').textContent = m.workload;
}

/** What the output canvas holds, read back from it (or, offscreen, by the worker): {width, height, data}. */
export function readOutput() {
  if (outputCtx) return Promise.resolve(outputCtx.getImageData(0, 0, outputCanvas.width, outputCanvas.height));
  return ask({ type: 'read' });
}

/** What thumbnail n of the batch view holds: {width, height, data}. */
export function readTile(n) {
  if (tileCtxs) return Promise.resolve(tileCtxs[n].getImageData(0, 0, THUMB, THUMB));
  return ask({ type: 'read', tile: n });
}

// --- overlay: the sampling grid drawn over the source ----------------------------------------

const overlay = $('overlay');
const overlayCtx = overlay.getContext('2d');

/** Sizes the overlay to the source canvas's displayed size (in device pixels) and redraws it. */
export function resizeOverlay() {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(sourceCanvas.clientWidth * dpr);
  const h = Math.round(sourceCanvas.clientHeight * dpr);
  if (overlay.width !== w || overlay.height !== h) {
    overlay.width = w;
    overlay.height = h;
  }
  drawOverlay();
}

/** Keeps the overlay the source canvas's size as the page's layout changes. */
export function followSourceSize() {
  new ResizeObserver(resizeOverlay).observe(sourceCanvas);
}

// Normalised grid coordinates to overlay pixels, through the source's pixel centres.
function projector(width, height, align) {
  const sx = overlay.width / width;
  const sy = overlay.height / height;
  return (gx, gy) => [(toPixel(gx, width, align) + 0.5) * sx, (toPixel(gy, height, align) + 0.5) * sy];
}

/** Draws page.lattice (when it is of the source's size) and the hovered thumbnail's quad. */
export function drawOverlay() {
  const ctx = overlayCtx;
  const lattice = page.lattice;
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
  if (page.hoverTile >= 0) drawTileQuad(page.hoverTile);
}

// The quad a batch thumbnail samples: its θ applied to the thumbnail's corner pixels.
function drawTileQuad(n) {
  const t = randomThetas(BATCH, page.batchSeed).subarray(6 * n, 6 * n + 6);
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
