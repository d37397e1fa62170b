// The demo's module worker (worker_link.mjs starts it for main.mjs): loads the gridsample package like any app and answers the page's messages; the warps and their timing against plain JavaScript are worker_jobs.mjs's, the frame loop worker_loop.mjs's.
//
// Everything heavy happens here so that the page stays responsive. Tensors live in the wasm
// heap (the package's zero-copy tier) and are reused across frames. Two paths:
//   - affine θ: `warpAffine` on the RGBA bytes themselves (fused, no grid, no layout change);
//     packages without it take the gridSample path with an `affineGrid` grid;
//   - flow presets: the grid built in JavaScript and turned into a flow in pixels, then
//     `warpFlow` on planar float32 (1, 4, H, W), converted from the RGBA bytes once per source
//     and back for the canvas (the plain-JavaScript baseline samples the grid).
// Output canvases arrive as OffscreenCanvas when the browser can transfer them; otherwise the
// pixels are posted back and the page draws them.
//
// The worker's modules: worker_state.mjs (the state they share), worker_jobs.mjs (the
// sampling jobs), worker_loop.mjs (frames, settled-state measurements, the benchmark).
import { load } from '../../js/browser.mjs';
import { benchmark, errorMessage, schedule } from './worker_loop.mjs';
import { state } from './worker_state.mjs';

// Threads where the page is cross-origin isolated (load() falls back to one elsewhere): ?threads=N
// on the page, else every core up to 4 (at least 2, to show them on a 2-core machine).
const threadsAsked = Number(new URL(self.location.href).searchParams.get('threads'));
const cores = self.navigator?.hardwareConcurrency ?? 1;
const ready = load({ numThreads: Number.isInteger(threadsAsked) && threadsAsked >= 1 && threadsAsked <= 64 ? threadsAsked : Math.max(2, Math.min(4, cores)) });

onmessage = async ({ data: msg }) => {
  try {
    switch (msg.type) {
      case 'init': {
        if (msg.output) state.outCtx = msg.output.getContext('2d');
        if (msg.tiles) state.tileCtxs = msg.tiles.map((c) => c.getContext('2d'));
        state.gpuCanvas = msg.gpu ?? null;
        state.allowFused = msg.fused !== false;
        state.batchSize = msg.batch;
        state.thumb = msg.thumb;
        const gs = await ready;
        state.gs = gs;
        if (gs.threads > 1) state.single = await load({ variant: 'simd', numThreads: 1 });
        postMessage({ type: 'ready', backend: gs.backend, threads: gs.threads, isolated: self.crossOriginIsolated === true,
          target: gs.target, offscreen: !!state.outCtx,
          warpAffine: typeof gs.warpAffine === 'function' && state.allowFused });
        schedule();
        break;
      }
      case 'source':
        state.source = { id: msg.id, width: msg.width, height: msg.height, rgba: new Uint8ClampedArray(msg.pixels) };
        state.rgbaDirty = true;
        state.planarDirty = true;
        state.batchDirty = true;
        schedule();
        break;
      case 'params': {
        const before = state.params;
        const params = msg.params;
        state.params = params;
        if (!before || before.mode !== params.mode || before.padding !== params.padding || before.align !== params.align) {
          state.batchDirty = true;
        }
        schedule();
        break;
      }
      case 'shuffle':
        state.batchSeed = msg.seed;
        state.batchDirty = true;
        schedule();
        break;
      case 'benchmark':
        await ready;
        if (!state.source || !state.params) throw new Error('nothing to benchmark yet: no source picture');
        postMessage({ type: 'benchmark', ...benchmark(msg.reps || 20, msg.jsReps || 5) });
        break;
      case 'read': {
        // What the output canvas (or a thumbnail) holds, read back from it: for the browser test.
        const ctx = msg.tile === undefined ? state.outCtx : state.tileCtxs[msg.tile];
        const im = ctx.getImageData(0, 0, ctx.canvas.width, ctx.canvas.height);
        postMessage({ type: 'read', id: msg.id, width: im.width, height: im.height, data: im.data }, [im.data.buffer]);
        break;
      }
      default:
        throw new Error(`unknown message ${msg.type}`);
    }
  } catch (e) {
    postMessage(errorMessage(e));
  }
};
