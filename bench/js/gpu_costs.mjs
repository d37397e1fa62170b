// The static cost of gridsample/webgpu's shaders on the bench's shapes (issue 46 item 2): invocations, plans, grid loads and integer divisions per output element of each GridSample layout (js/webgpu/grid_sample_wgsl.mjs gridSampleLayout), and source loads per uint8 RGBA warp pixel, against the shaders before them, since SwiftShader timings mean nothing.
import { gridSampleLayout } from '../../js/webgpu/grid_sample_wgsl.mjs';

// Shapes of the bench's workloads (workloads.mjs) and of issue 46's examples: X (N, C, spatial)
// and the output's spatial size.
const SHAPES = [
  { name: 'img2d', n: 1, c: 3, rank: 2, outSpatial: 512 * 512 },
  { name: 'feat2d', n: 4, c: 32, rank: 2, outSpatial: 64 * 64 },
  { name: 'vol3d', n: 1, c: 32, rank: 3, outSpatial: 16 * 64 * 64 },
  { name: 'feature map 8x64x64x64 at 64x64', n: 8, c: 64, rank: 2, outSpatial: 64 * 64 },
  { name: 'cl32 (8x32x80x80 at 300x4)', n: 8, c: 32, rank: 2, outSpatial: 1200 },
  { name: 'cl256 (1x256x64x64 at 4096)', n: 1, c: 256, rank: 2, outSpatial: 4096 },
];

/**
 * Per output element of a layout ({ layout, groups }, gridSampleLayout's), for `n` items of `c`
 * channels and `outSpatial` points: plans (each reads `rank` grid coordinates and plans every
 * axis), and the u32 divisions and remainders the store code spends on indices (counted in its
 * WGSL: 4 per invocation of points, 5 of pairs, 3 per element of words; before, points spent 2).
 */
function perElement({ layout, groups = 1, old = false }, { n, c, outSpatial, rank }) {
  const elements = n * c * outSpatial;
  const points = n * outSpatial;
  const [plans, divisions] = {
    points: [points * groups, (old ? 2 : 4) * points * groups],
    pairs: [points * groups, 2.5 * points * groups],
    words: [elements, 3 * elements],
  }[layout];
  return { plans: plans / elements, gridLoads: (plans * rank) / elements, divisions: divisions / elements };
}

// The layout every call took before gridSampleLayout: one invocation per point (float32) or per
// u32 word of Y (float16).
const before = (s, dtype) => (dtype === 'float16'
  ? { layout: 'words', invocations: Math.ceil((s.n * s.c * s.outSpatial) / 2) }
  : { layout: 'points', invocations: s.n * s.outSpatial, old: true });

const named = ({ layout, groups = 1 }) => (groups > 1 ? `${layout} in ${groups} channel groups` : layout);

const fmt = (v) => (v >= 0.1 ? v.toFixed(2) : v.toPrecision(2));

/** The section "WebGPU: the GridSample shader's static cost". */
export function renderGpuCosts() {
  const out = [
    '## WebGPU: the shaders\' static cost',
    '',
    'Per output element of each bench shape, before (one layout: an invocation per output point for float32, per',
    'u32 word of Y for float16, each word planning its two elements) and now (`gridSampleLayout`,',
    'js/webgpu/grid_sample_wgsl.mjs: float16 pairs of points looping over the channels where the point count is',
    'even; channels in groups of at most 8, an invocation each, where a call has under 65,536 points). A plan reads the point\'s',
    'grid coordinates and plans every axis; divisions are the store code\'s u32 `/` and `%`. Counted from the',
    'shader, not timed (SwiftShader timings mean nothing); `bench/js/gpu_costs.mjs`.',
    '',
    '| shape | dtype | layout before -> now | invocations before -> now | plans / element | grid loads / element | divisions / element |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: |',
  ];
  for (const s of SHAPES) {
    for (const dtype of ['float32', 'float16']) {
      const was = before(s, dtype);
      const now = gridSampleLayout({ ...s, dtype });
      const [a, b] = [perElement(was, s), perElement(now, s)];
      const pair = (k) => `${fmt(a[k])} -> ${fmt(b[k])}`;
      out.push(`| ${s.name} | ${dtype} | ${named(was)} -> ${named(now)} | ${was.invocations.toLocaleString('en-US')} -> ${now.invocations.toLocaleString('en-US')} | ${pair('plans')} | ${pair('gridLoads')} | ${pair('divisions')} |`);
    }
  }
  out.push('', 'uint8 RGBA warps (warpAffine, warpPerspective, remap; js/webgpu/warp_wgsl.mjs), per output pixel: before, one',
    'invocation per u32 word of the output planned its pixel once but loaded each tap\'s source word once per channel',
    'and spent 4 divisions per byte on its indices; now (rows of whole words, `out` unpadded) one invocation per pixel',
    'loads each tap\'s word once and blends the 4 channels as a vec4 (the same operations per lane).', '',
    '| mode | taps | source word loads before -> now | divisions before -> now |', '| --- | ---: | ---: | ---: |');
  for (const [mode, taps] of [['nearest', 1], ['linear', 4], ['cubic', 16]]) out.push(`| ${mode} | ${taps} | ${4 * taps} -> ${taps} | 16 -> 2 |`);
  out.push('');
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(renderGpuCosts());
