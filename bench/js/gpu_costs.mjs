// The static cost of gridsample/webgpu's shaders on the bench's shapes (issue 46 item 2): invocations, plans, grid loads and integer divisions per output element of each GridSample layout (js/webgpu/grid_sample_wgsl.mjs gridSampleLayout), source loads per uint8 RGBA warp pixel, and multiplications per channel and local-array accesses of plan and blend, against the shaders before them, since SwiftShader timings mean nothing.
import { deformableAttentionWgsl } from '../../js/webgpu/deformable_attention_wgsl.mjs';
import { gridSampleLayout, gridSampleWgsl } from '../../js/webgpu/grid_sample_wgsl.mjs';
import { warpWgsl } from '../../js/webgpu/warp_wgsl.mjs';

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
  out.push('', ...renderBlendCosts(), '');
  return out.join('\n');
}

/**
 * From a shader's WGSL: the multiplications (float and integer) one channel's blend executes
 * (each ` * ` of `fn blend` times the trip counts of the loops around it), and the accesses to a
 * function-scope array at a variable index anywhere in the shader (storage and uniform
 * bindings aside): the arrays a driver that does not unroll keeps in local memory.
 */
export function blendCosts(shader) {
  // Comments out, the shader's integer constants (TAPS, GROUP) as their values.
  let wgsl = shader.replace(/\/\/.*$/gm, '');
  for (const [, name, value] of wgsl.matchAll(/^const (\w+) = (\d+)u?;/gm)) wgsl = wgsl.replace(new RegExp(`\\b${name}\\b(?! =)`, 'g'), value);
  const lines = wgsl.split('\n');
  let multiplies = 0;
  const loops = [];
  let depth = 0;
  for (const line of lines.slice(lines.findIndex((l) => l.startsWith('fn blend(')))) {
    const loop = line.match(/for \(var (\w+) = 0u?; \1 < (\d+)u?;/);
    const trips = loop ? 1 : loops.reduce((a, l) => a * l.trips, 1);
    multiplies += (line.match(/ \* /g) ?? []).length * trips;
    for (const ch of line) {
      if (ch === '{' && ++depth && loop && !loops.some((l) => l.depth === depth)) loops.push({ depth, trips: Number(loop[2]) });
      if (ch === '}' && loops.at(-1)?.depth === depth--) loops.pop();
    }
    if (depth === 0 && multiplies + loops.length > 0 && line.startsWith('}')) break;
  }
  const bindings = new Set(['x', 'grid', 'y', 'coords', 'coords_y', 'value', 'loc', 'weights', 'levels', 'theta', 'fill', 'source', 'size', 'stride']);
  const indexed = (wgsl.match(/(\b[a-z_]\w*|\))\[[a-z_]\w*\]/g) ?? [])
    .filter((m) => !bindings.has(m.slice(0, m.indexOf('['))));
  return { multiplies, arrays: indexed.length };
}

// The same counts of the shaders before plan and blend were unrolled (at commit 445c3da; the
// deformable attention shader's weights were already multiplied once per tap).
const BEFORE = {
  'GridSample 2-D linear': [14, 12], 'GridSample 2-D cubic': [52, 12], 'GridSample 3-D linear': [38, 12],
  'GridSample 3-D cubic': [276, 12], 'GridSample 4-D linear': [94, 12], 'GridSample 4-D cubic': [1364, 12],
  'warp linear': [20, 10], 'warp cubic': [80, 10], 'MultiScaleDeformableAttention': [null, 20],
};

function renderBlendCosts() {
  const rows = [];
  for (const rank of [2, 3, 4]) {
    for (const mode of ['linear', 'cubic']) {
      const wgsl = gridSampleWgsl({ rank, mode, padding: 'zeros', align: false, fold: false, xHalf: false, gridHalf: false, layout: 'points' });
      rows.push([`GridSample ${rank}-D ${mode}`, (mode === 'cubic' ? 4 : 2) ** rank, blendCosts(wgsl)]);
    }
  }
  for (const mode of ['linear', 'cubic']) {
    const wgsl = warpWgsl({ source: 'maps', mode, padding: 'zeros', align: false, fill: false, fold: false, u8: false, rgba: false });
    rows.push([`warp ${mode}`, (mode === 'cubic' ? 4 : 2) ** 2, blendCosts(wgsl)]);
  }
  const msda = deformableAttentionWgsl({ valueHalf: false, locHalf: false, weightHalf: false, discrete: false });
  rows.push(['MultiScaleDeformableAttention', 4, { multiplies: null, arrays: blendCosts(msda).arrays }]);
  return ['Plan and blend (the reference\'s taps, zeros padding, float32; the fast planner\'s windows count the same):',
    'multiplications one channel\'s blend executes per output element (each tap\'s weight, the product of the axes\'',
    'weights, and its element offset are now computed once per point, outside the channel loop: one multiplication',
    'per tap remains), and accesses to a function-scope array at a variable index in the shader (a driver that does',
    'not unroll keeps those arrays in local memory). Windows of over 16 taps (cubic from 3-D on) unroll the 16 taps of',
    'their two innermost axes, whose products are computed once per point, and loop over the outer axes, picking their',
    'taps by selects: one more multiplication per tap and outer axis.', '',
    '| shader | taps | multiplications per channel before -> now | local-array accesses before -> now |', '| --- | ---: | ---: | ---: |',
    ...rows.map(([name, taps, now]) => {
      const [mul, arrays] = BEFORE[name];
      return `| ${name} | ${taps} | ${mul === null ? '-' : `${mul} -> ${now.multiplies}`} | ${arrays} -> ${now.arrays} |`;
    })];
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(renderGpuCosts());
