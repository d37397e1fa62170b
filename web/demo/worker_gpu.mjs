// The demo worker's WebGPU switch: the same fused warpAffine through gridsample/webgpu on this worker's GPU device into a GPU image kept across frames, drawn on the page's WebGPU canvas by a buffer-to-texture copy (no read back), timed per frame until the GPU finished it, with frames per second, and checked once per state against the wasm output: the image and what the canvas holds.
//
// Headless Chromium on SwiftShader (the tests' browser) keeps the device only with its Vulkan
// compositing (--use-vulkan=swiftshader --enable-features=Vulkan --use-angle=swiftshader): by
// default presenting a WebGPU canvas loses it ("A valid external Instance reference no longer
// exists").
import { options, state, theta32 } from './worker_state.mjs';

// Frames run back to back per settled state: their times and rate are the card's figures.
const FRAMES = 5;

let gpu = null; // Promise of createGpu's API, or of an Error where WebGPU is missing
let gpuSource = null; // {id, image}
let target = null; // {key, out}: the output GPU image, made again when the size changes
let canvas = null; // {context, key}: the page's canvas's WebGPU context, configured for the size `key`

function gpuApi() {
  gpu ??= import('../../js/webgpu/index.mjs').then(({ createGpu }) => createGpu({ wasm: state.gs })).catch((e) => e);
  return gpu;
}

// The output GPU image: rows padded to 256 bytes, as buffer-to-texture copies need them.
function outputImage(api, w, h) {
  const key = `${w}x${h}`;
  if (target?.key !== key) {
    target?.out.buffer.destroy();
    const bytesPerRow = Math.ceil((4 * w) / 256) * 256;
    const buffer = api.device.createBuffer({ size: Math.max(16, bytesPerRow * h), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    target = { key, out: { buffer, width: w, height: h, channels: 4, dtype: 'uint8', bytesPerRow } };
  }
  return target.out;
}

// The page's WebGPU canvas at the output's size (null without one: the page's fallback), its
// textures copy destinations and sources (for the check).
function canvasContext(api, w, h) {
  const offscreen = state.gpuCanvas;
  if (!offscreen) return null;
  const key = `${w}x${h}`;
  canvas ??= { context: offscreen.getContext('webgpu'), key: null };
  if (canvas.key !== key) {
    Object.assign(offscreen, { width: w, height: h });
    // The warp of an opaque source with zeros padding is premultiplied (colour and alpha both
    // scaled by the inside weight): the page's checkerboard shows through where it is clear.
    canvas.context.configure({ device: api.device, format: 'rgba8unorm', usage: GPUTextureUsage.COPY_DST | GPUTextureUsage.COPY_SRC, alphaMode: 'premultiplied' });
    canvas.key = key;
  }
  return canvas.context;
}

// Copies the GPU image `out` onto the canvas's current texture; returns that texture.
function draw(device, context, out, w, h) {
  const texture = context.getCurrentTexture();
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToTexture({ buffer: out.buffer, bytesPerRow: out.bytesPerRow }, { texture }, [w, h]);
  device.queue.submit([encoder.finish()]);
  return texture;
}

// The canvas texture's pixels (rows packed), by a copy and a map: the check's read back.
async function readTexture(device, texture, w, h) {
  const row = Math.ceil((4 * w) / 256) * 256;
  const staging = device.createBuffer({ size: row * h, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyTextureToBuffer({ texture }, { buffer: staging, bytesPerRow: row }, [w, h]);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const padded = new Uint8Array(staging.getMappedRange());
  const pixels = new Uint8Array(4 * w * h);
  for (let y = 0; y < h; ++y) pixels.set(padded.subarray(y * row, y * row + 4 * w), 4 * w * y);
  staging.destroy();
  return pixels;
}

const largestDifference = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

/**
 * The GPU's figures for the settled state: { gpuMs (each frame: the warp into a GPU image and
 * its copy onto the page's canvas, until the GPU finished them; no read back), callMs (each
 * frame's warpAffine call until it resolved), fps, gpuDiff
 * (largest difference from the wasm output t.O, from one read back after the frames),
 * canvasDiff (the same for what the canvas holds; null without one), adapter } or { error }.
 */
export async function gpuCall(t) {
  const api = await gpuApi();
  if (api instanceof Error) return { error: api.message };
  const { device } = api;
  const { id, width: w, height: h } = state.source;
  const times = [];
  const calls = []; // the warpAffine call's own time (batched: until it resolves, not the GPU's work)
  try {
    if (gpuSource?.id !== id) {
      gpuSource?.image.dispose();
      gpuSource = { id, image: api.upload({ data: state.source.rgba, width: w, height: h }) };
    }
    const out = outputImage(api, w, h);
    const context = canvasContext(api, w, h);
    const start = performance.now();
    for (let f = 0; f < FRAMES; ++f) {
      const t0 = performance.now();
      await api.warpAffine(gpuSource.image, theta32(), { ...options(), out });
      calls.push(performance.now() - t0);
      // The copy's submission submits the warp's batched work first (gridsample/webgpu).
      if (context) draw(device, context, out, w, h);
      await device.queue.onSubmittedWorkDone();
      times.push(performance.now() - t0);
    }
    const fps = (FRAMES * 1000) / (performance.now() - start);
    const ours = t.O.data;
    // The check, untimed: the last frame drawn again and its texture read in this task, before
    // the page presents it; then the image itself.
    const canvasPixels = context ? await readTexture(device, draw(device, context, out, w, h), w, h) : null;
    const canvasDiff = canvasPixels ? largestDifference(canvasPixels, ours) : null;
    const gpuDiff = largestDifference((await api.read(out)).data, ours);
    const info = device.adapterInfo ?? {};
    return { gpuMs: times, callMs: calls, fps, gpuDiff, canvasDiff, adapter: [info.vendor, info.architecture, info.description].filter(Boolean).join(' ') };
  } catch (e) {
    return { error: e.message };
  }
}
