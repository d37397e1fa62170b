// A fixed map applied to every frame (issue 47 item 2; make bench's "A fixed map" table): 1280x720 RGBA uint8 bilinear remap by a lens-undistortion map, per frame: gs.prepareRemap's run (the map planned once) against gs.remap with the float maps, and OpenCV.js's remap with the maps convertMaps made once (CV_16SC2 + CV_16UC1) and with the float maps; timed side by side in rounds.
//
//   node --expose-gc bench/js/fixed_maps.mjs    # prints the section (the SIMD build in js/dist; OpenCV.js from bench/node_modules)
//
// Ours work on heap tensors with `out` (zero copy, as the other image rows); OpenCV.js on Mats.
import { fileURLToPath } from 'node:url';

import { loadOpenCv } from './in_process.mjs';
import { calibrate, stats, timeInRounds } from './timing.mjs';
import { rgbaImage } from './workloads.mjs';

const WIDTH = 1280;
const HEIGHT = 720;

/**
 * The maps of undistorting a wide-angle camera's frames (as cv.initUndistortRectifyMap makes
 * them, float32 planes): output pixel (u, v) reads the frame at the radially distorted point,
 * k1 = 0.15, k2 = 0.05, focal length 0.8 * width, the corners partly outside the frame.
 */
export function lensMaps(width = WIDTH, height = HEIGHT) {
  const mapX = new Float32Array(width * height);
  const mapY = new Float32Array(width * height);
  const [cx, cy, f] = [(width - 1) / 2, (height - 1) / 2, 0.8 * width];
  for (let v = 0; v < height; ++v) {
    for (let u = 0; u < width; ++u) {
      const [x, y] = [(u - cx) / f, (v - cy) / f];
      const r2 = x * x + y * y;
      const d = 1 + 0.15 * r2 + 0.05 * r2 * r2;
      mapX[v * width + u] = cx + f * x * d;
      mapY[v * width + u] = cy + f * y * d;
    }
  }
  return { mapX, mapY };
}

// Largest |a - b| and the share of values that differ.
function difference(a, b) {
  let max = 0;
  let differ = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(a[i] - b[i]);
    if (d > max) max = d;
    if (d > 0) differ += 1;
  }
  return { max, differ: differ / a.length };
}

/**
 * The rows for `gs` (a loaded SIMD module) and OpenCV.js builds (`cvs`: [[label, cv], ...]):
 * {rows: [{id, label, error, time, diff}], planBytes, prepareMs}; `diff` against the
 * unprepared remap's bytes.
 */
export async function measureFixedMaps(gs, cvs, log = () => {}) {
  const { data } = rgbaImage(WIDTH, HEIGHT);
  const { mapX, mapY } = lensMaps();
  const x = gs.tensorFrom({ data, shape: [HEIGHT, WIDTH, 4], dtype: 'uint8' });
  const y = gs.tensor('uint8', [HEIGHT, WIDTH, 4]);
  const hx = gs.tensorFrom({ data: mapX, shape: [HEIGHT, WIDTH, 1] });
  const hy = gs.tensorFrom({ data: mapY, shape: [HEIGHT, WIDTH, 1] });
  const t0 = performance.now();
  const prepared = gs.prepareRemap(x, hx, hy);
  const prepareMs = performance.now() - t0;
  const disposers = [() => [x, y, hx, hy, prepared].forEach((t) => t.dispose())];
  const ours = () => y.data.slice();
  const entries = [
    { id: 'prepared', label: 'gridsample wasm SIMD, gs.prepareRemap once, then run (heap tensors: frame, out)', run: () => prepared.run(x, { out: y }), output: ours },
    { id: 'ours', label: 'gridsample wasm SIMD, gs.remap with the float maps (heap tensors: frame, two maps, out)', run: () => gs.remap(x, hx, hy, { out: y }), output: ours },
  ];
  for (const [label, cv] of cvs) {
    const src = cv.matFromArray(HEIGHT, WIDTH, cv.CV_8UC4, data);
    const dst = new cv.Mat();
    const mx = cv.matFromArray(HEIGHT, WIDTH, cv.CV_32FC1, mapX);
    const my = cv.matFromArray(HEIGHT, WIDTH, cv.CV_32FC1, mapY);
    const fixed1 = new cv.Mat();
    const fixed2 = new cv.Mat();
    cv.convertMaps(mx, my, fixed1, fixed2, cv.CV_16SC2, false);
    const zero = new cv.Scalar(0, 0, 0, 0);
    disposers.push(() => [src, dst, mx, my, fixed1, fixed2].forEach((m) => m.delete()));
    entries.push({ id: `cv-fixed-${label}`, label: `${label}, convertMaps once (CV_16SC2 + CV_16UC1), then remap`, output: () => dst.data.slice(),
      run: () => cv.remap(src, dst, fixed1, fixed2, cv.INTER_LINEAR, cv.BORDER_CONSTANT, zero) });
    entries.push({ id: `cv-float-${label}`, label: `${label}, remap with the float maps`, output: () => dst.data.slice(),
      run: () => cv.remap(src, dst, mx, my, cv.INTER_LINEAR, cv.BORDER_CONSTANT, zero) });
  }
  try {
    const timed = [];
    for (const e of entries) {
      const entry = await calibrate(e.run);
      timed.push({ entry, output: entry.error ? null : e.output() });
    }
    await timeInRounds(timed.map((t) => t.entry));
    const base = timed[1].output;
    const rows = entries.map((e, k) => {
      const { entry, output } = timed[k];
      const row = { id: e.id, label: e.label, error: entry.error, time: entry.error ? null : stats(entry.samples, entry.batch) };
      if (output && base) row.diff = difference(output, base);
      log(`  ${row.label}: ${row.error ? `error ${row.error}` : `median ${row.time.median.toFixed(3)} ms, p90 ${row.time.p90.toFixed(3)} ms`}`);
      return row;
    });
    return { rows, planBytes: prepared.planBytes, prepareMs };
  } finally {
    disposers.forEach((d) => d());
  }
}

/** The report's section for measureFixedMaps' result. */
export function renderFixedMaps({ rows, planBytes, prepareMs }) {
  const prepared = rows.find((r) => r.id === 'prepared')?.time?.median;
  const lines = [
    '## A fixed map: remap prepared once, per frame',
    '',
    `\`bench/js/fixed_maps.mjs\`: one ${WIDTH}x${HEIGHT} RGBA uint8 frame remapped (bilinear, zeros padding) by a lens-undistortion map (k1 = 0.15, k2 = 0.05; the corners partly outside the frame), ms per frame, median and p90 of rounds timed side by side, Node, one thread. \`gs.prepareRemap\` reads the map once and keeps per output pixel its taps' fixed-point weights (${(planBytes / 2 ** 20).toFixed(1)} MiB for this map, prepared in ${prepareMs.toFixed(1)} ms), as OpenCV's \`convertMaps\` to CV_16SC2 + CV_16UC1 does (done once, untimed, for the OpenCV row that uses it). "same bytes": the share of values equal to \`gs.remap\`'s output.`,
    '',
    '| implementation | median ms | p90 ms | prepared faster by | same bytes as gs.remap | largest difference |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    if (!r.time) {
      lines.push(`| ${r.label} | error: ${r.error} | | | | |`);
      continue;
    }
    const speed = r.id === 'prepared' ? '' : `${(r.time.median / prepared).toFixed(2)}x`;
    const diff = r.diff ? [`${(100 * (1 - r.diff.differ)).toFixed(2)}%`, `${r.diff.max}`] : ['', ''];
    lines.push(`| ${r.label} | ${r.time.median.toFixed(3)} | ${r.time.p90.toFixed(3)} | ${speed} | ${diff.join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { load } = await import('../../js/node.mjs');
  const gs = await load({ variant: 'simd', numThreads: 1 });
  const cvs = [];
  for (const [label, name] of [['OpenCV.js 5', '@techstark/opencv-js'], ['OpenCV.js 4', 'opencv-js-v4']]) {
    try {
      cvs.push([label, (await loadOpenCv(name)).cv]);
    } catch (e) {
      console.error(`${label} (${name}) not loaded: ${e.message}`);
    }
  }
  console.log(renderFixedMaps(await measureFixedMaps(gs, cvs, console.error)));
  process.exit(0); // OpenCV.js keeps the event loop alive
}
