// The demo's perspective panel: a photographed page (a flat document laid on a desk by warpPerspective itself), four corner handles to drag, and the page rectified live with perspectiveTransform + warpPerspective in pixel space, on the main thread.

import { load } from '../../js/browser.mjs';

const PHOTO = [640, 480]; // the "photo" of the page on a desk
const PAGE = [360, 480]; // the rectified page (3:4), and the flat document it was made from
// Where the page's corners lie in the photo: top-left, top-right, bottom-right, bottom-left.
const START = [[168, 58], [472, 92], [530, 430], [96, 398]];
const HANDLE = 11; // handle radius in photo pixels

const $ = (id) => document.getElementById(id);

// A document to photograph: a title, paragraphs, a table and a chart on white paper.
function drawDocument(ctx, [w, h]) {
  ctx.fillStyle = '#fbfaf6';
  ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = '#1d3557';
  ctx.font = 'bold 26px "DejaVu Sans", Arial, sans-serif';
  ctx.fillText('Quarterly report', 24, 50);
  ctx.fillStyle = '#e76f51';
  ctx.fillRect(24, 62, 140, 4);
  ctx.font = '12px "DejaVu Sans", Arial, sans-serif';
  ctx.fillStyle = '#333';
  const words = 'Straight lines stay straight and text stays readable once the page is rectified'.split(' ');
  for (let line = 0; line < 9; ++line) {
    ctx.fillText(words.slice(line % 4, (line % 4) + 8).join(' '), 24, 96 + line * 17);
  }
  ctx.strokeStyle = '#457b9d';
  ctx.lineWidth = 1;
  for (let r = 0; r <= 5; ++r) {
    ctx.beginPath();
    ctx.moveTo(24, 270 + r * 22);
    ctx.lineTo(w - 24, 270 + r * 22);
    ctx.stroke();
  }
  for (let c = 0; c <= 4; ++c) {
    const x = 24 + (c * (w - 48)) / 4;
    ctx.beginPath();
    ctx.moveTo(x, 270);
    ctx.lineTo(x, 380);
    ctx.stroke();
  }
  const bars = [0.5, 0.8, 0.35, 0.95, 0.65];
  bars.forEach((b, k) => {
    ctx.fillStyle = k % 2 ? '#2a9d8f' : '#e9c46a';
    ctx.fillRect(40 + k * 60, 460 - 60 * b, 36, 60 * b);
  });
}

// The photo: a wooden desk, the document laid on it at START by warpPerspective (the map from
// document pixels to photo pixels; transparent outside the page, so it composes over the desk).
function makePhoto(gs) {
  const doc = new OffscreenCanvas(...PAGE);
  const docCtx = doc.getContext('2d');
  drawDocument(docCtx, PAGE);
  const docImage = docCtx.getImageData(0, 0, ...PAGE);
  const [pw, ph] = PAGE;
  const h = gs.perspectiveTransform([[0, 0], [pw - 1, 0], [pw - 1, ph - 1], [0, ph - 1]], START);
  const laid = gs.warpPerspective(docImage, h, { space: 'pixel', width: PHOTO[0], height: PHOTO[1], mode: 'bicubic' });
  const photo = new OffscreenCanvas(...PHOTO);
  const ctx = photo.getContext('2d', { willReadFrequently: true });
  const desk = ctx.createLinearGradient(0, 0, PHOTO[0], PHOTO[1]);
  desk.addColorStop(0, '#6b4f3a');
  desk.addColorStop(1, '#3e2c20');
  ctx.fillStyle = desk;
  ctx.fillRect(0, 0, ...PHOTO);
  for (let k = 0; k < 40; ++k) { // wood grain
    ctx.strokeStyle = `rgba(255, 220, 180, ${0.03 + 0.03 * (k % 3)})`;
    ctx.beginPath();
    ctx.moveTo(0, k * 12 + 4);
    ctx.bezierCurveTo(200, k * 12 - 8, 420, k * 12 + 14, PHOTO[0], k * 12);
    ctx.stroke();
  }
  const page = new OffscreenCanvas(...PHOTO);
  page.getContext('2d').putImageData(new ImageData(laid.data, ...PHOTO), 0, 0);
  ctx.drawImage(page, 0, 0);
  return ctx.getImageData(0, 0, ...PHOTO);
}

/**
 * Starts the panel in the page's #persp-* elements; resolves to the hooks the browser test
 * reads: { frames, quad, source(), output(), mode, lastMs }.
 */
export async function startPerspectivePanel() {
  const gs = await load();
  const photo = makePhoto(gs);
  const sourceCanvas = $('persp-source');
  const overlay = $('persp-overlay');
  const outputCanvas = $('persp-output');
  [sourceCanvas.width, sourceCanvas.height] = PHOTO;
  [overlay.width, overlay.height] = PHOTO;
  [outputCanvas.width, outputCanvas.height] = PAGE;
  sourceCanvas.getContext('2d').putImageData(photo, 0, 0);
  const overlayCtx = overlay.getContext('2d');
  const outputCtx = outputCanvas.getContext('2d', { willReadFrequently: true });
  const hooks = { frames: 0, quad: START.map((p) => [...p]), mode: 'bilinear', lastMs: 0, lastOutput: null };
  const [pw, ph] = PAGE;
  const corners = [[0, 0], [pw - 1, 0], [pw - 1, ph - 1], [0, ph - 1]];

  function drawOverlay(active) {
    overlayCtx.clearRect(0, 0, ...PHOTO);
    overlayCtx.lineWidth = 2;
    overlayCtx.strokeStyle = 'rgba(244, 162, 97, 0.95)';
    overlayCtx.beginPath();
    hooks.quad.forEach(([x, y], k) => (k ? overlayCtx.lineTo(x, y) : overlayCtx.moveTo(x, y)));
    overlayCtx.closePath();
    overlayCtx.stroke();
    hooks.quad.forEach(([x, y], k) => {
      overlayCtx.fillStyle = k === active ? '#f4a261' : 'rgba(29, 53, 87, 0.85)';
      overlayCtx.beginPath();
      overlayCtx.arc(x, y, HANDLE, 0, 2 * Math.PI);
      overlayCtx.fill();
      overlayCtx.stroke();
    });
  }

  function render() {
    const t0 = performance.now();
    let h;
    try {
      h = gs.perspectiveTransform(hooks.quad, corners);
    } catch (e) {
      $('persp-info').textContent = e.message.replace(/^perspectiveTransform: src: /, '');
      return;
    }
    const y = gs.warpPerspective(photo, h, { space: 'pixel', width: pw, height: ph, mode: hooks.mode });
    hooks.lastMs = performance.now() - t0;
    hooks.lastOutput = y;
    outputCtx.putImageData(new ImageData(y.data, pw, ph), 0, 0);
    hooks.frames += 1;
    $('persp-info').textContent = `${hooks.lastMs.toFixed(2)} ms · ${pw}×${ph} ${hooks.mode} · ${gs.backend}`;
    $('persp-matrix').textContent = `H = [${h.map((v) => (Math.abs(v) < 1e-3 && v !== 0 ? v.toExponential(2) : v.toFixed(3))).join(', ')}]`;
  }

  // Dragging: the pointer's position in photo pixels, the nearest handle within reach.
  let dragging = -1;
  let pending = false;
  const at = (e) => {
    const r = overlay.getBoundingClientRect();
    return [((e.clientX - r.left) * PHOTO[0]) / r.width, ((e.clientY - r.top) * PHOTO[1]) / r.height];
  };
  const schedule = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      drawOverlay(dragging);
      render();
    });
  };
  overlay.addEventListener('pointerdown', (e) => {
    const [x, y] = at(e);
    const reach = 2.5 * HANDLE;
    let best = -1;
    let bestD = reach;
    hooks.quad.forEach(([qx, qy], k) => {
      const d = Math.hypot(qx - x, qy - y);
      if (d < bestD) [best, bestD] = [k, d];
    });
    if (best < 0) return;
    dragging = best;
    overlay.setPointerCapture(e.pointerId);
    schedule();
  });
  overlay.addEventListener('pointermove', (e) => {
    if (dragging < 0) return;
    const [x, y] = at(e);
    hooks.quad[dragging] = [Math.min(PHOTO[0] - 1, Math.max(0, x)), Math.min(PHOTO[1] - 1, Math.max(0, y))];
    schedule();
  });
  const release = () => {
    dragging = -1;
    schedule();
  };
  overlay.addEventListener('pointerup', release);
  overlay.addEventListener('pointercancel', release);
  $('persp-reset').addEventListener('click', () => {
    hooks.quad = START.map((p) => [...p]);
    schedule();
  });
  $('persp-mode').addEventListener('change', (e) => {
    hooks.mode = e.target.value;
    schedule();
  });

  drawOverlay(-1);
  render();
  hooks.source = () => photo;
  hooks.output = () => outputCtx.getImageData(0, 0, pw, ph);
  return hooks;
}
