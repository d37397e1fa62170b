// The demo worker's shared state, which its modules import: the package instances, the page's latest source and settings, the output contexts, the heap tensors kept across frames and what follows from the settings (path, options, θ, workload name).

/** The worker's state: set by worker.mjs's messages, read by the sampling jobs and the frame loop. */
export const state = {
  gs: null, // the package (threaded where the page is cross-origin isolated)
  single: null, // a single-threaded instance beside it, loaded only where gs has threads
  allowFused: true, // ?fused=0 on the page takes the affineGrid + gridSample path instead
  batchSize: 8, // thumbnails in the spatial-transformer view (the page says how many)
  thumb: 128, // thumbnail side
  outCtx: null, // OffscreenCanvasRenderingContext2D of the output, or null (fallback)
  tileCtxs: null,
  gpuCanvas: null, // the page's OffscreenCanvas for the WebGPU switch's drawing, or null (fallback)
  source: null, // {id, width, height, rgba}
  rgbaDirty: false, // the heap copy of the source bytes is stale
  planarDirty: false, // the planar float32 copy is stale
  params: null, // latest state from the page
  batchSeed: 1,
  batchDirty: true,
  lastJsAt: -Infinity, // when the plain-JavaScript baseline last ran
};

const heap = {}; // name -> HeapTensor, re-created when shapes change

/** A heap tensor of this shape, kept across frames (the zero-copy tier). */
export function heapTensor(name, dtype, shape) {
  const t = heap[name];
  if (t && t.dtype === dtype && t.shape.length === shape.length && t.shape.every((d, i) => d === shape[i])) return t;
  if (t) t.dispose();
  heap[name] = state.gs.tensor(dtype, shape);
  return heap[name];
}

/** The fused path needs a package with warpAffine and an affine state. */
export function fused() {
  return state.allowFused && state.params.flow === 'none' && typeof state.gs.warpAffine === 'function';
}

/** The sampling options of the current settings. */
export function options() {
  const { params } = state;
  return { mode: params.mode, paddingMode: params.padding, alignCorners: params.align };
}

export function theta32() {
  return Float32Array.from(state.params.theta);
}

/** What is timed, on what, with which options: the page keeps its figures per workload. */
export function workloadName() {
  const { source: { width: w, height: h }, params } = state;
  const call = fused() ? 'warpAffine' : params.flow === 'none' ? 'affineGrid + gridSample' : `warpFlow (${params.flow} flow)`;
  const data = fused() ? `${w}×${h} RGBA uint8` : `1×4×${h}×${w} float32`;
  return `${call} · ${data} · ${params.mode}/${params.padding}/align ${params.align ? 1 : 0}`;
}
