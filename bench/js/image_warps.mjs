// The image warps of issue 15 against OpenCV.js (make bench's "Image warps" table): warpPerspective on a 1024x1024 RGBA picture beside OpenCV.js's warpPerspective and our warpAffine on the same picture, timed side by side in rounds.
//
// Every implementation works in place on inputs made beforehand: ours on heap tensors with
// `out` (the demo's frame loop), OpenCV.js on Mats. The homography keystones the picture (a
// document photographed from below); it is given from output pixels to input pixels, as
// `inverse: true` and OpenCV's WARP_INVERSE_MAP take it, so neither side inverts a matrix per
// call. Run in make bench's process after the workloads (the modules are warm).

import { calibrate, stats, timeInRounds } from './timing.mjs';
import { rgbaImage, RGBA_THETA } from './workloads.mjs';

const SIDE = 1024;

// Output pixel (j, i) -> input pixel: a keystone (the top edge narrower) with w from 1 to 1.25
// across the picture, and a small shift.
const KEYSTONE = [1.1, 0.12, -40, 0.02, 1.15, -30, 0.0, 0.00025, 1.0];

/**
 * Rows {label, time, vs, diff} for `gs` (a loaded SIMD module) and OpenCV.js 5 and 4 (`cvs`:
 * [[label, cv], ...]), and the targets met or missed.
 */
export async function measureImageWarps(gs, cvs, log = () => {}) {
  const { data } = rgbaImage(SIDE, SIDE);
  const x = gs.tensorFrom({ data, shape: [SIDE, SIDE, 4], dtype: 'uint8' });
  const y = gs.tensor('uint8', [SIDE, SIDE, 4]);
  const theta = Float32Array.from(RGBA_THETA);
  const entries = [];
  const outputs = {};
  const disposers = [() => x.dispose(), () => y.dispose()];
  const add = (id, label, run, output) => entries.push({ id, label, run, output });
  add('persp', 'gridsample wasm SIMD, warpPerspective (heap tensors)',
    () => gs.warpPerspective(x, KEYSTONE, { space: 'pixel', inverse: true, out: y }), () => y.data.slice());
  add('affine', 'gridsample wasm SIMD, warpAffine on the same picture (the rgba8 workload\'s map)',
    () => gs.warpAffine(x, theta, { out: y }), () => null);
  for (const [label, cv] of cvs) {
    const src = cv.matFromArray(SIDE, SIDE, cv.CV_8UC4, data);
    const dst = new cv.Mat();
    const h = cv.matFromArray(3, 3, cv.CV_64FC1, KEYSTONE);
    const size = new cv.Size(SIDE, SIDE);
    const zero = new cv.Scalar(0, 0, 0, 0);
    const flags = cv.INTER_LINEAR | cv.WARP_INVERSE_MAP;
    disposers.push(() => [src, dst, h].forEach((m) => m.delete()));
    add(label, `${label}, warpPerspective`, () => cv.warpPerspective(src, dst, h, size, flags, cv.BORDER_CONSTANT, zero),
      () => dst.data.slice());
  }
  try {
    const timed = [];
    for (const e of entries) {
      const entry = await calibrate(e.run);
      entry.id = e.id;
      timed.push(entry);
      outputs[e.id] = e.output();
    }
    await timeInRounds(timed);
    const rows = timed.map((t, k) => ({
      id: t.id, label: entries[k].label, error: t.error, time: t.error ? null : stats(t.samples, t.batch),
    }));
    // OpenCV.js's fixed-point positions (1/32 pixel) against ours: how far apart, how often.
    for (const row of rows) {
      const got = outputs[row.id];
      if (!got || row.id === 'persp') continue;
      let max = 0;
      let over = 0;
      for (let i = 0; i < got.length; ++i) {
        const d = Math.abs(got[i] - outputs.persp[i]);
        if (d > max) max = d;
        if (d > 2) over += 1;
      }
      row.diff = { max, over: over / got.length };
    }
    for (const r of rows) log(`  ${r.label}: ${r.error ? `error ${r.error}` : `median ${r.time.median.toFixed(3)} ms, p90 ${r.time.p90.toFixed(3)} ms`}`);
    return rows;
  } finally {
    disposers.forEach((d) => d());
  }
}

/** The report's section for measureImageWarps' rows. */
export function renderImageWarps(rows) {
  const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
  const persp = byId.persp?.time?.median;
  const opencv = rows.filter((r) => r.id.startsWith('OpenCV') && r.time);
  const fastestCv = opencv.length ? Math.min(...opencv.map((r) => r.time.median)) : NaN;
  const affine = byId.affine?.time?.median;
  const met = (ok) => (ok ? 'met' : '**missed**');
  const lines = [
    '## Image warps (wasm SIMD, Node.js, one process)',
    '',
    `A ${SIDE}x${SIDE} RGBA uint8 picture, bilinear, transparent outside (\`bench/js/image_warps.mjs\`): warpPerspective by a keystone homography (output to input pixels: \`inverse: true\`, OpenCV's WARP_INVERSE_MAP) on heap tensors with \`out\`, OpenCV.js's warpPerspective on Mats, and our warpAffine on the same picture (the rgba8 workload's map), timed side by side in rounds as the workloads are. "differs" compares with ours: OpenCV.js quantises positions to 1/32 pixel.`,
    '',
    '| implementation | median ms | p90 ms | ours (warpPerspective) faster by | max \\|diff\\| | values > 2 levels apart |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    if (!r.time) {
      lines.push(`| ${r.label} | error: ${r.error} | | | | |`);
      continue;
    }
    const speed = r.id === 'persp' ? '' : `${(r.time.median / persp).toFixed(2)}x`;
    const diff = r.diff ? [`${r.diff.max}`, `${(100 * r.diff.over).toFixed(2)}%`] : ['', ''];
    lines.push(`| ${r.label} | ${r.time.median.toFixed(3)} | ${r.time.p90.toFixed(3)} | ${speed} | ${diff.join(' | ')} |`);
  }
  lines.push('', 'Targets (issue 15):', '');
  lines.push(`- warpPerspective >= 3x faster than the fastest OpenCV.js warpPerspective: ${met(fastestCv / persp >= 3)} (${(fastestCv / persp).toFixed(2)}x)`);
  lines.push(`- warpPerspective within 1.3x of our warpAffine on the same picture: ${met(persp / affine <= 1.3)} (${(persp / affine).toFixed(2)}x)`);
  return `${lines.join('\n')}\n`;
}
