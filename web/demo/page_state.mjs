// The demo page's shared state, which its modules import: the settings the controls set, what the page has sent the worker and shown, the figures window.__demo reports, and the constants they share.
import { FLOWS } from '../../js/images/flows.mjs';
import { DEFAULT_PARAMS } from './transforms.mjs';

export const BATCH = 8; // thumbnails in the spatial-transformer view (one call with N = BATCH)
export const THUMB = 128;
export const WINDOW = 15; // the live figures are medians of this many recent frames
// Built-in picture shapes, width : height (the Shape menu).
export const ASPECTS = { square: 1, wide: 16 / 10 };

export const $ = (id) => document.getElementById(id);
export const query = new URLSearchParams(location.search);

// The source canvas: its size is the source's working size, which θ is computed for.
export const sourceCanvas = $('source');

/** The settings, as the controls show them and the worker receives them. */
export const state = {
  params: { ...DEFAULT_PARAMS }, // in pixels about the source's centre (js/images/pixel_space.mjs)
  theta: null, // the same map as AffineGrid's θ for the source's size: see updateTheta() (controls.mjs)
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

/** What the page has sent the worker and holds between its frames. */
export const page = {
  seq: 0, // params messages sent
  sourceId: 0, // source images sent
  source: { kind: 'builtin', bitmap: null, name: '' },
  stream: null, // webcam MediaStream
  lattice: null, // last frame's grid subsample, for the overlay
  hoverTile: -1, // the batch thumbnail under the pointer, or -1
  batchSeed: 1, // of the batch view's random thetas
};

/**
 * window.__demo's figures (test_hook.mjs adds its methods): the page's modules write them, the
 * browser test reads them; the page itself never does.
 */
export const hook = {
  ready: false,
  backend: null,
  offscreen: false, // set by drawing.mjs
  crossOriginIsolated: self.crossOriginIsolated === true,
  frames: 0,
  sentSeq: 0,
  sourceId: 0,
  lastFrame: null,
  lastStats: null,
  lastGpu: null, // the WebGPU switch's last figures
};

const waiting = []; // resolvers of settled()

// A frame for the latest state and source has been drawn.
function isSettled() {
  const f = hook.lastFrame;
  return !!f && f.seq === page.seq && f.sourceId === page.sourceId;
}

/** Resolves once a frame for the latest state and source has been drawn. */
export function settled() {
  return new Promise((resolve) => {
    if (isSettled()) resolve(hook.lastFrame);
    else waiting.push(resolve);
  });
}

/** After a frame: resolves settled()'s promises if it was the latest state's. */
export function frameDrawn() {
  if (isSettled()) waiting.splice(0).forEach((resolve) => resolve(hook.lastFrame));
}
