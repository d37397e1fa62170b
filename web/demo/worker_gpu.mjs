// The demo worker's WebGPU switch: the same fused warpAffine through gridsample/webgpu on this worker's GPU device into a GPU image kept across frames, timed per frame without a read back (until the GPU finished it), with frames per second, and checked once per state against the wasm output.
//
// Not drawn on a WebGPU canvas yet: headless Chromium on SwiftShader (the tests' browser) loses
// the device once a WebGPU canvas is presented (every later onSubmittedWorkDone and mapAsync
// rejects "A valid external Instance reference no longer exists", in a worker and on the page).
import { options, state, theta32 } from './worker_state.mjs';

// Frames run back to back per settled state: their times and rate are the card's figures.
const FRAMES = 5;

let gpu = null; // Promise of createGpu's API, or of an Error where WebGPU is missing
let gpuSource = null; // {id, image}
let target = null; // {key, out}: the output GPU image, made again when the size changes

function gpuApi() {
  gpu ??= import('../../js/webgpu/index.mjs').then(({ createGpu }) => createGpu({ wasm: state.gs })).catch((e) => e);
  return gpu;
}

function outputImage(api, w, h) {
  const key = `${w}x${h}`;
  if (target?.key !== key) {
    target?.out.dispose();
    target = { key, out: api.upload({ data: new Uint8ClampedArray(4 * w * h), width: w, height: h }) };
  }
  return target.out;
}

/**
 * The GPU's figures for the settled state: { gpuMs (each frame: the warp into a GPU image until
 * the GPU finished it, no read back), fps, gpuDiff (largest difference from the wasm output t.O,
 * from one read back after the frames), adapter } or { error }.
 */
export async function gpuCall(t) {
  const api = await gpuApi();
  if (api instanceof Error) return { error: api.message };
  const { device } = api;
  const { id, width: w, height: h } = state.source;
  const times = [];
  try {
    if (gpuSource?.id !== id) {
      gpuSource?.image.dispose();
      gpuSource = { id, image: api.upload({ data: state.source.rgba, width: w, height: h }) };
    }
    const out = outputImage(api, w, h);
    const start = performance.now();
    for (let f = 0; f < FRAMES; ++f) {
      const t0 = performance.now();
      await api.warpAffine(gpuSource.image, theta32(), { ...options(), out });
      await device.queue.onSubmittedWorkDone();
      times.push(performance.now() - t0);
    }
    const fps = (FRAMES * 1000) / (performance.now() - start);
    const read = await api.read(out);
    let maxDiff = 0;
    const ours = t.O.data;
    for (let i = 0; i < ours.length; ++i) maxDiff = Math.max(maxDiff, Math.abs(read.data[i] - ours[i]));
    const info = device.adapterInfo ?? {};
    return { gpuMs: times, fps, gpuDiff: maxDiff, adapter: [info.vendor, info.architecture, info.description].filter(Boolean).join(' ') };
  } catch (e) {
    return { error: e.message };
  }
}
