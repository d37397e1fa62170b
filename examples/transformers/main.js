// The browser example: RT-DETR through transformers.js's object-detection pipeline, its GridSample nodes on gridsample (vite.config.js's alias), boxes drawn over the picture.
import { pipeline, RawImage } from '@huggingface/transformers';

const MODEL = 'onnx-community/rtdetr_r18vd';
const status = document.querySelector('#status');
const view = document.querySelector('#view');
const detectors = new Map(); // by device

async function detector(device) {
  if (!detectors.has(device)) {
    status.textContent = `Loading ${MODEL} (${device})...`;
    detectors.set(device, pipeline('object-detection', MODEL, { device, dtype: 'fp32' }));
  }
  return detectors.get(device);
}

document.querySelector('#file').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  try {
    const device = document.querySelector('#gpu').checked ? 'webgpu' : 'wasm';
    const detect = await detector(device);
    const image = await RawImage.fromBlob(file);
    status.textContent = 'Detecting...';
    const t0 = performance.now();
    const found = await detect(image, { threshold: 0.5 });
    const { counts } = detect.model.sessions.model.plan();
    status.textContent = `${found.length} objects in ${(performance.now() - t0).toFixed(0)} ms on ${device}; `
      + `${counts.gridsampleNodes} GridSample nodes ran on gridsample, ${counts.onnxruntimeNodes} nodes on onnxruntime-web.`;
    draw(image, found);
  } catch (e) {
    status.textContent = `Failed: ${e.message}`;
  }
});

function draw(image, found) {
  view.width = image.width;
  view.height = image.height;
  const ctx = view.getContext('2d');
  ctx.drawImage(image.toCanvas(), 0, 0);
  ctx.lineWidth = Math.max(2, image.width / 300);
  ctx.font = `${Math.max(12, image.width / 50)}px system-ui, sans-serif`;
  for (const { label, score, box } of found) {
    ctx.strokeStyle = ctx.fillStyle = '#e4007c';
    ctx.strokeRect(box.xmin, box.ymin, box.xmax - box.xmin, box.ymax - box.ymin);
    ctx.fillText(`${label} ${score.toFixed(2)}`, box.xmin + 4, box.ymin + parseInt(ctx.font, 10));
  }
}
