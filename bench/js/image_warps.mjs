// The image warps of issue 15 against OpenCV.js (make bench's "Image warps" table): warpPerspective and remap on a 1024x1024 RGBA picture beside OpenCV.js's warpPerspective and remap, and our warpAffine on the same picture; warpFlow on (1, 3, 512, 512) beside gridSample on the equivalent grid; each group timed side by side in rounds.
//
// Every implementation works in place on inputs made beforehand: ours on heap tensors with
// `out` (the demo's frame loop), OpenCV.js on Mats. The homography keystones the picture (a
// document photographed from below); it is given from output pixels to input pixels, as
// `inverse: true` and OpenCV's WARP_INVERSE_MAP take it, so neither side inverts a matrix per
// call. The remap maps swirl the picture (float32 planes, OpenCV's CV_32FC1 maps). Run in
// make bench's process after the workloads (the modules are warm).

import { calibrate, stats, timeInRounds } from './timing.mjs';
import { rgbaImage, RGBA_THETA } from './workloads.mjs';

const SIDE = 1024;

// Output pixel (j, i) -> input pixel: a keystone (the top edge narrower) with w from 1 to 1.25
// down the picture, and a small shift.
const KEYSTONE = [1.1, 0.12, -40, 0.02, 1.15, -30, 0.0, 0.00025, 1.0];

// Remap's maps: a swirl about a point off the centre (up to 0.8 rad), partly outside, on a
// side x side picture.
function swirlMaps(side = SIDE) {
  const mapX = new Float32Array(side * side);
  const mapY = new Float32Array(side * side);
  for (let i = 0; i < side; ++i) {
    for (let j = 0; j < side; ++j) {
      const [dx, dy] = [j - 0.45 * side, i - 0.55 * side];
      const a = 0.8 * Math.exp(-(dx * dx + dy * dy) / (0.08 * side * side));
      mapX[i * side + j] = 0.45 * side + Math.cos(a) * dx - Math.sin(a) * dy + 3.3;
      mapY[i * side + j] = 0.55 * side + Math.sin(a) * dx + Math.cos(a) * dy - 2.7;
    }
  }
  return { mapX, mapY };
}

// warpFlow's workload: X (1, 3, FLOW_SIDE, FLOW_SIDE) float32, the swirl as a flow (1, 2, H, W)
// in pixels, and the normalised grid (align_corners 0) of the same positions for gridSample.
const FLOW_SIDE = 512;
function flowWorkload() {
  const n = FLOW_SIDE * FLOW_SIDE;
  const x = Float32Array.from({ length: 3 * n }, (_, i) => Math.sin(i * 0.013) + 0.5 * Math.cos(i * 0.0007));
  const { mapX, mapY } = swirlMaps(FLOW_SIDE);
  const flow = new Float32Array(2 * n);
  const grid = new Float32Array(2 * n);
  for (let p = 0; p < n; ++p) {
    flow[p] = mapX[p] - (p % FLOW_SIDE);
    flow[n + p] = mapY[p] - Math.floor(p / FLOW_SIDE);
    grid[2 * p] = (2 * mapX[p] + 1) / FLOW_SIDE - 1;
    grid[2 * p + 1] = (2 * mapY[p] + 1) / FLOW_SIDE - 1;
  }
  return { x, flow, grid };
}

// Bilinear RGBA with transparent-black outside, in double, rounded half to even: the exact
// result the remap rows are measured against.
function exactRemap(data, mapX, mapY) {
  const out = new Float64Array(4 * SIDE * SIDE);
  const at = (x, y, c) => (x < 0 || y < 0 || x >= SIDE || y >= SIDE ? 0 : data[4 * (y * SIDE + x) + c]);
  for (let p = 0; p < SIDE * SIDE; ++p) {
    const [x, y] = [mapX[p], mapY[p]];
    const [x0, y0] = [Math.floor(x), Math.floor(y)];
    const [fx, fy] = [x - x0, y - y0];
    for (let c = 0; c < 4; ++c) {
      const v = (1 - fy) * ((1 - fx) * at(x0, y0, c) + fx * at(x0 + 1, y0, c)) + fy * ((1 - fx) * at(x0, y0 + 1, c) + fx * at(x0 + 1, y0 + 1, c));
      const r = Math.round(v);
      out[4 * p + c] = Math.abs(v - Math.floor(v) - 0.5) < 1e-9 ? 2 * Math.round(v / 2) : r;
    }
  }
  return out;
}

// Largest |a - b| and the share of values more than 2 levels apart.
function difference(a, b) {
  let max = 0;
  let over = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(a[i] - b[i]);
    if (d > max) max = d;
    if (d > 2) over += 1;
  }
  return { max, over: over / a.length };
}

// Times `entries` ({id, label, run, output}) in rounds; rows {id, label, error, time, output}.
async function timeGroup(entries, log) {
  const timed = [];
  for (const e of entries) {
    const entry = await calibrate(e.run);
    timed.push({ entry, output: entry.error ? null : e.output() });
  }
  await timeInRounds(timed.map((t) => t.entry));
  return entries.map((e, k) => {
    const { entry, output } = timed[k];
    const row = { id: e.id, label: e.label, error: entry.error, time: entry.error ? null : stats(entry.samples, entry.batch), output };
    log(`  ${row.label}: ${row.error ? `error ${row.error}` : `median ${row.time.median.toFixed(3)} ms, p90 ${row.time.p90.toFixed(3)} ms`}`);
    return row;
  });
}

/**
 * The two groups' rows for `gs` (a loaded SIMD module) and OpenCV.js 5 and 4 (`cvs`:
 * [[label, cv], ...]): { perspective: rows, remap: rows }, each row {id, label, error, time,
 * diff}: `diff` against ours (perspective) or against the exact result (remap).
 */
export async function measureImageWarps(gs, cvs, log = () => {}) {
  const { data } = rgbaImage(SIDE, SIDE);
  const { mapX, mapY } = swirlMaps();
  const x = gs.tensorFrom({ data, shape: [SIDE, SIDE, 4], dtype: 'uint8' });
  const y = gs.tensor('uint8', [SIDE, SIDE, 4]);
  const hx = gs.tensorFrom({ data: mapX, shape: [SIDE, SIDE, 1] });
  const hy = gs.tensorFrom({ data: mapY, shape: [SIDE, SIDE, 1] });
  const disposers = [() => [x, y, hx, hy].forEach((t) => t.dispose())];
  const theta = Float32Array.from(RGBA_THETA);
  const ours = () => y.data.slice();
  const f = flowWorkload();
  const shape = [1, 3, FLOW_SIDE, FLOW_SIDE];
  const fx = gs.tensorFrom({ data: f.x, shape });
  const ff = gs.tensorFrom({ data: f.flow, shape: [1, 2, FLOW_SIDE, FLOW_SIDE] });
  const fg = gs.tensorFrom({ data: f.grid, shape: [1, FLOW_SIDE, FLOW_SIDE, 2] });
  const fy = gs.tensor('float32', shape);
  disposers.push(() => [fx, ff, fg, fy].forEach((t) => t.dispose()));
  const flows = [
    { id: 'ours', label: `gridsample wasm SIMD, warpFlow (1, 3, ${FLOW_SIDE}, ${FLOW_SIDE}) float32, flow (1, 2, ${FLOW_SIDE}, ${FLOW_SIDE}) (heap tensors)`, run: () => gs.warpFlow(fx, ff, { out: fy }), output: () => fy.data.slice() },
    { id: 'grid', label: 'gridsample wasm SIMD, gridSample on the equivalent normalised grid', run: () => gs.gridSample(fx, fg, { out: fy }), output: () => fy.data.slice() },
  ];
  const perspective = [
    { id: 'ours', label: 'gridsample wasm SIMD, warpPerspective (heap tensors)', run: () => gs.warpPerspective(x, KEYSTONE, { space: 'pixel', inverse: true, out: y }), output: ours },
    { id: 'affine', label: 'gridsample wasm SIMD, warpAffine on the same picture (the rgba8 workload\'s map)', run: () => gs.warpAffine(x, theta, { out: y }), output: () => null },
  ];
  const remap = [
    { id: 'ours', label: 'gridsample wasm SIMD, remap (heap tensors: picture, two float maps, out)', run: () => gs.remap(x, hx, hy, { out: y }), output: ours },
  ];
  for (const [label, cv] of cvs) {
    const src = cv.matFromArray(SIDE, SIDE, cv.CV_8UC4, data);
    const dst = new cv.Mat();
    const h = cv.matFromArray(3, 3, cv.CV_64FC1, KEYSTONE);
    const mx = cv.matFromArray(SIDE, SIDE, cv.CV_32FC1, mapX);
    const my = cv.matFromArray(SIDE, SIDE, cv.CV_32FC1, mapY);
    const size = new cv.Size(SIDE, SIDE);
    const zero = new cv.Scalar(0, 0, 0, 0);
    disposers.push(() => [src, dst, h, mx, my].forEach((m) => m.delete()));
    perspective.push({ id: `cv-${label}`, label: `${label}, warpPerspective`, output: () => dst.data.slice(),
      run: () => cv.warpPerspective(src, dst, h, size, cv.INTER_LINEAR | cv.WARP_INVERSE_MAP, cv.BORDER_CONSTANT, zero) });
    remap.push({ id: `cv-${label}`, label: `${label}, remap (the same float maps)`, output: () => dst.data.slice(),
      run: () => cv.remap(src, dst, mx, my, cv.INTER_LINEAR, cv.BORDER_CONSTANT, zero) });
  }
  try {
    log('  warpPerspective:');
    const p = await timeGroup(perspective, log);
    log('  remap:');
    const r = await timeGroup(remap, log);
    log('  warpFlow:');
    const w = await timeGroup(flows, log);
    const gridOutput = w.find((row) => row.id === 'grid').output;
    const flowOutput = w.find((row) => row.id === 'ours').output;
    if (gridOutput && flowOutput) {
      let max = 0;
      for (let i = 0; i < gridOutput.length; ++i) max = Math.max(max, Math.abs(gridOutput[i] - flowOutput[i]));
      w.find((row) => row.id === 'grid').diff = { max, over: 0 };
    }
    const base = p.find((row) => row.id === 'ours').output;
    for (const row of p) if (row.output && row.id !== 'ours') row.diff = difference(row.output, base);
    const exact = exactRemap(data, mapX, mapY);
    for (const row of r) if (row.output) row.diff = difference(row.output, exact);
    for (const row of [...p, ...r, ...w]) delete row.output;
    return { perspective: p, remap: r, flow: w };
  } finally {
    disposers.forEach((d) => d());
  }
}

function groupTable(rows, diffHeader) {
  const ours = rows.find((r) => r.id === 'ours')?.time?.median;
  const lines = [
    `| implementation | median ms | p90 ms | ours faster by | ${diffHeader} | values > 2 levels off |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    if (!r.time) {
      lines.push(`| ${r.label} | error: ${r.error} | | | | |`);
      continue;
    }
    const speed = r.id === 'ours' ? '' : `${(r.time.median / ours).toFixed(2)}x`;
    const diff = r.diff ? [`${r.diff.max}`, `${(100 * r.diff.over).toFixed(3)}%`] : ['', ''];
    lines.push(`| ${r.label} | ${r.time.median.toFixed(3)} | ${r.time.p90.toFixed(3)} | ${speed} | ${diff.join(' | ')} |`);
  }
  return lines;
}

/** The report's section for measureImageWarps' rows. */
export function renderImageWarps({ perspective, remap, flow }) {
  const median = (rows, id) => rows.find((r) => r.id === id)?.time?.median ?? NaN;
  const fastestCv = (rows) => Math.min(...rows.filter((r) => r.id.startsWith('cv-') && r.time).map((r) => r.time.median));
  const met = (ok) => (ok ? 'met' : '**missed**');
  const persp = median(perspective, 'ours');
  const ours = median(remap, 'ours');
  const ratios = {
    perspective: fastestCv(perspective) / persp,
    affine: persp / median(perspective, 'affine'),
    remap: fastestCv(remap) / ours,
    flow: median(flow, 'ours') / median(flow, 'grid'),
  };
  const oursExact = remap.find((r) => r.id === 'ours')?.diff;
  const lines = [
    '## Image warps (wasm SIMD, Node.js, one process)',
    '',
    `A ${SIDE}x${SIDE} RGBA uint8 picture, bilinear, transparent outside (\`bench/js/image_warps.mjs\`), each group timed side by side in rounds as the workloads are; ours on heap tensors with \`out\`, OpenCV.js on Mats.`,
    '',
    '### warpPerspective',
    '',
    'A keystone homography, output to input pixels (`inverse: true`, OpenCV\'s WARP_INVERSE_MAP); our warpAffine on the same picture (the rgba8 workload\'s map) for scale. "max |diff|" compares with ours.',
    '',
    ...groupTable(perspective, 'max \\|diff\\| vs ours'),
    '',
    '### remap',
    '',
    'A swirl as two float32 maps (OpenCV\'s CV_32FC1). "max |diff|" compares with the exact result (bilinear in double, rounded half to even): OpenCV.js quantises positions to 1/32 pixel and weights to 1/1024; ours blends uint8 in fixed point inside the picture (within 1 level).',
    '',
    ...groupTable(remap, 'max \\|diff\\| vs exact'),
    '',
    '### warpFlow',
    '',
    `A swirl as a flow in pixels on (1, 3, ${FLOW_SIDE}, ${FLOW_SIDE}) float32, bilinear, zeros; gridSample on the normalised grid of the same positions, made beforehand. "ours faster by" is gridSample's time over warpFlow's; "max |diff|" compares the two outputs.`,
    '',
    ...groupTable(flow, 'max \\|diff\\| vs warpFlow'),
    '',
    'Targets (issue 15):',
    '',
    `- warpPerspective >= 3x faster than the fastest OpenCV.js warpPerspective: ${met(ratios.perspective >= 3)} (${ratios.perspective.toFixed(2)}x)`,
    `- warpPerspective within 1.3x of our warpAffine on the same picture: ${met(ratios.affine <= 1.3)} (${ratios.affine.toFixed(2)}x)`,
    `- remap >= 3x faster than the fastest OpenCV.js remap on the same maps: ${met(ratios.remap >= 3)} (${ratios.remap.toFixed(2)}x)`,
    `- warpFlow within 1.2x of gridSample on the equivalent grid: ${met(ratios.flow <= 1.2)} (${ratios.flow.toFixed(2)}x)`,
    `- remap exact where OpenCV.js quantises: ours within ${oursExact ? oursExact.max : '?'} level(s) of the exact result (OpenCV.js: ${remap.filter((r) => r.id.startsWith('cv-') && r.diff).map((r) => r.diff.max).join(', ')})`,
  ];
  return `${lines.join('\n')}\n`;
}
