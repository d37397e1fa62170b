// The demo page's source picture: the built-in picture, an opened or dropped file, or the webcam, drawn at its working size on the source canvas and sent to the worker.
import { ASPECTS, $, hook, page, sourceCanvas, state } from './page_state.mjs';
import { paramsChanged } from './controls.mjs';
import { resizeOverlay } from './drawing.mjs';
import { drawTestImage } from './test_image.mjs';
import { worker } from './worker_link.mjs';

const sourceCtx = sourceCanvas.getContext('2d', { willReadFrequently: true });

/** The source pixels the worker received: an ImageData. */
export function sourceImage() {
  return sourceCtx.getImageData(0, 0, sourceCanvas.width, sourceCanvas.height);
}

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
  page.sourceId += 1;
  hook.sourceId = page.sourceId;
  worker.postMessage({ type: 'source', id: page.sourceId, width, height, pixels: im.data.buffer }, [im.data.buffer]);
  $('source-info').textContent = info;
  resizeOverlay();
  // The sliders are in pixels: the same transform of a picture of another size is another θ.
  if (resized) {
    paramsChanged();
  }
}

/** Shows and sends the built-in picture in the chosen shape and size. */
export function showBuiltin() {
  stopWebcam();
  page.source = { kind: 'builtin', bitmap: null, name: '' };
  pressed('src-builtin');
  const [w, h] = fit(ASPECTS[state.shape], 1, state.size);
  sendSource((ctx) => drawTestImage(ctx, w, h), w, h, `built-in picture · ${w}×${h}`);
}

function showBitmap() {
  const { bitmap, name } = page.source;
  const [w, h] = fit(bitmap.width, bitmap.height, state.size);
  sendSource((ctx) => ctx.drawImage(bitmap, 0, 0, w, h), w, h, `${name} · ${bitmap.width}×${bitmap.height} → ${w}×${h}`);
}

async function openFile(file) {
  if (!file) return;
  try {
    const bitmap = await createImageBitmap(file);
    stopWebcam();
    page.source = { kind: 'file', bitmap, name: file.name || 'image' };
    pressed('src-file');
    showBitmap();
  } catch {
    $('source-info').textContent = `${file.name || 'that file'} is not an image this browser can decode`;
  }
}

let capturing = false;
/** Sends the webcam's next frame once the worker has drawn the last one (the page calls it after each frame). */
export function captureWebcam() {
  const video = $('video');
  const stream = page.stream;
  // One frame in flight at a time: the next is taken when the worker has drawn this one.
  if (!stream || capturing || hook.lastFrame?.sourceId !== page.sourceId || video.readyState < 2) return;
  capturing = true;
  const grab = () => {
    capturing = false;
    if (!page.stream) return;
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
    page.stream = s;
    const video = $('video');
    video.srcObject = s;
    await video.play();
    page.source = { kind: 'webcam', bitmap: null, name: 'webcam' };
    pressed('src-webcam');
    const [w, h] = fit(video.videoWidth, video.videoHeight, state.size);
    sendSource((ctx) => ctx.drawImage(video, 0, 0, w, h), w, h, 'webcam');
  } catch (e) {
    $('source-info').textContent = `webcam not available: ${e.name === 'NotAllowedError' ? 'permission denied' : e.message || e.name}`;
  }
}

function stopWebcam() {
  if (!page.stream) return;
  for (const track of page.stream.getTracks()) track.stop();
  page.stream = null;
  $('video').srcObject = null;
}

function pressed(id) {
  for (const b of document.querySelectorAll('.source-bar .segmented button')) b.setAttribute('aria-pressed', String(b.id === id));
}

function refreshSource() {
  if (page.source.kind === 'file') showBitmap();
  else if (page.source.kind === 'builtin') showBuiltin();
  // the webcam picks the new size up with its next frame
}

/** Wires the source's controls: size, shape, built-in, file picker, webcam, drag and drop. */
export function wireSources() {
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
}
