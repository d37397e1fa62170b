// window.__demo, the hook of the browser tests (tests/js/demo_*.test.mjs, lib/demo_page.mjs): page_state.mjs's figures with the state, settled() and the pixels of the source, the output, the thumbnails and the perspective panel as base64; the page itself never reads it.
import { hook, page, settled, state } from './page_state.mjs';
import { readOutput, readTile } from './drawing.mjs';
import { sourceImage } from './source.mjs';

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

// {width, height, data} (an ImageData, or the worker's 'read' answer) as {width, height, base64}.
const image64 = (im) => ({ width: im.width, height: im.height, base64: toBase64(im.data) });

const methods = {
  get state() { return JSON.parse(JSON.stringify({ ...state, sourceKind: page.source.kind, batchSeed: page.batchSeed })); },
  /** Resolves once a frame for the latest state and source has been drawn. */
  settled,
  /** The source pixels the worker received: {width, height, base64 of RGBA}. */
  sourcePixels: () => image64(sourceImage()),
  /** What the output canvas holds, read back from it. */
  readOutput: () => readOutput().then(image64),
  /** What thumbnail n of the batch view holds. */
  readTile: (n) => readTile(n).then(image64),
  /** RGBA pixels after a trip through a 2-D canvas (which stores premultiplied alpha). */
  canvasRoundTrip({ width, height, base64 }) {
    const c = document.createElement('canvas');
    c.width = width;
    c.height = height;
    const ctx = c.getContext('2d', { willReadFrequently: true });
    ctx.putImageData(new ImageData(fromBase64(base64), width, height), 0, 0);
    return image64(ctx.getImageData(0, 0, width, height));
  },
};

/** Makes page_state.mjs's hook, with the methods above, window.__demo. */
export function installHook() {
  Object.defineProperties(hook, Object.getOwnPropertyDescriptors(methods));
  window.__demo = hook; // for the browser test; the page never reads it
}

/** The perspective panel's state, as window.__demo.perspective. */
export function hookPerspective(panel) {
  hook.perspective = {
    get frames() { return panel.frames; },
    get quad() { return panel.quad.map((p) => [...p]); },
    get mode() { return panel.mode; },
    sourcePixels: () => image64(panel.source()),
    readOutput: () => image64(panel.output()),
  };
}
