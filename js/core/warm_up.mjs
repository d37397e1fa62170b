// Warming the kernels inside load(): engines first run wasm in a baseline tier and optimise a function only after it has run for a while, so a fresh module's first calls would run several times slower (bench/README.md); the hot kernels run on small inputs for a time budget instead.

/** The warm-up budget load() spends by default, in milliseconds. */
export const DEFAULT_WARM_UP_MS = 50;

const SIDE = 48; // pixels per side of the warm-up inputs: small, so each call takes well under 1 ms
const THETA = [0.9, -0.3, 0.05, 0.3, 0.9, -0.02]; // a rotation and scale: some pixels fall outside

/**
 * Runs `api`'s kernels for about `budgetMs` milliseconds on small inputs: NCHW gridSample
 * (one wasm function holds every mode and rank), then, where `api` has them, the channels-last
 * warps of uint8 RGBA, RGB and float32 images, bilinear and bicubic, in turn. Leaves nothing
 * allocated.
 */
export function warmUp(api, budgetMs) {
  if (!(budgetMs > 0)) return;
  const n = SIDE * SIDE;
  const ramp = (length, period, scale, offset) =>
    Float32Array.from({ length }, (_, i) => ((i * 37) % period) * scale + offset);
  const x = api.tensorFrom({ data: ramp(3 * n, 7, 1 / 7, 0), shape: [1, 3, SIDE, SIDE] });
  const grid = api.tensorFrom({ data: ramp(2 * n, 220, 0.01, -1.1), shape: [1, SIDE, SIDE, 2] });
  const y = api.tensor('float32', [1, 3, SIDE, SIDE]);
  try {
    const rgba = { data: Uint8ClampedArray.from(ramp(4 * n, 256, 1, 0)), width: SIDE, height: SIDE };
    const rgb = { data: Uint8Array.from(ramp(3 * n, 256, 1, 0)), width: SIDE, height: SIDE, channels: 3 };
    const float = { data: ramp(3 * n, 9, 1 / 9, 0), width: SIDE, height: SIDE, channels: 3 };
    // The core module (gridsample/core) has no warps: GridSample alone then.
    const calls = [
      () => api.gridSample(x, grid, { out: y }),
      ...api.warpAffine ? [
        () => api.warpAffine(rgba, THETA),
        () => api.warpAffine(rgb, THETA),
        () => api.warpAffine(float, THETA),
        () => api.warpAffine(rgba, THETA, { mode: 'bicubic' }),
        () => api.warpAffine(float, THETA, { mode: 'bicubic' }),
      ] : [],
    ];
    const start = performance.now();
    for (let k = 0; performance.now() - start < budgetMs; ++k) calls[k % calls.length]();
  } finally {
    x.dispose();
    grid.dispose();
    y.dispose();
  }
}
