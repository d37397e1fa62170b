// Draws bench/chart.svg from one run's measurements: per workload, how many times faster ours is than each peer (log-scale bars around 1x), paired as RESULTS.md pairs them.
//
// Pure: measurements in, SVG text out; the same measurements give the same bytes. Plain SVG
// 1.1 for GitHub's README rendering (an <img>): explicit size and viewBox, generic font
// families only, no scripts, no links, every text escaped.
//
// The pairing is impls.mjs's IMPLS: each peer row carries `peer` (the bar's name) and `vs` (the
// row of ours the report's "speed-up of ours" divides by, one that moves the same bytes), so a
// bar is the peer row's median / its `vs` row's median, the figure of that column. Rows of one
// peer (OpenCV.js 5 and 4, two layouts) make one bar: the one least favourable to ours, i.e.
// the fastest, as the summary takes. As in the summary, a ratio needs both rows usable (timed,
// output matching ours); rows timed but with a differing output get a note instead of a bar;
// a peer not run, not available or failing gets no row.
import { ratio, usable } from './report_format.mjs';

const W = 1000;
const LABEL_END = 380; // right edge of the row labels
const PLOT = [392, W - 16]; // the bars' horizontal extent, padding for the ratio labels included
const TOP = 92; // first row's top
const GROUP_H = 24;
const ROW_H = 20;
const BAR_H = 12;
const FONT = 'Helvetica, Arial, sans-serif';
const FASTER = '#2f6fb3';
const SLOWER = '#c0392b';
// A rough width of text at `size` px in a sans-serif font: `em` per character (digits are
// about 0.56 em, so 0.6 keeps the ratio labels inside the plot; prose averages about 0.53).
const textWidth = (text, size, em = 0.6) => text.length * size * em;

/** `text` safe inside an SVG element or a quoted attribute. */
export function escapeXml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&apos;' })[c]);
}

const num = (x) => (Math.round(x * 10) / 10).toString();

/**
 * The chart's rows: [{workload, bars: [{peer, ours, id, ratio} | {peer, ours, note}]}], in the
 * order of `results` (workloads) and of `impls` (peers, by their first row); workloads with no
 * row left out.
 */
export function chartRows(results, impls) {
  const implsById = Object.fromEntries(impls.map((i) => [i.id, i]));
  const peers = [...new Set(impls.filter((i) => i.peer && i.vs).map((i) => i.peer))];
  const groups = [];
  for (const [workload, r] of Object.entries(results)) {
    const bars = [];
    for (const peer of peers) {
      const pairs = impls.filter((i) => i.peer === peer && i.vs && r[i.id] && r[i.vs]);
      const measured = pairs.filter((i) => usable(r[i.id]) && usable(r[i.vs]))
        .map((i) => ({ peer, id: i.id, ours: implsById[i.vs].short ?? i.vs, ratio: r[i.id].time.median / r[i.vs].time.median }));
      if (measured.length) {
        bars.push(measured.reduce((a, b) => (b.ratio < a.ratio ? b : a)));
        continue;
      }
      const differs = pairs.find((i) => r[i.id].status === 'ok' && r[i.vs].status === 'ok');
      if (differs) bars.push({ peer, ours: implsById[differs.vs].short ?? differs.vs, note: 'output differs from ours: not compared' });
    }
    if (bars.length) groups.push({ workload, bars });
  }
  return groups;
}

/** Tick values on a log axis from lo to hi: 1-2-5 steps, or powers of ten alone when those are too many. */
function ticks(lo, hi) {
  const at = (mantissas) => {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); ++e) {
      for (const m of mantissas) {
        const v = m * 10 ** e;
        if (v >= lo * 0.999 && v <= hi * 1.001) out.push(Number(v.toPrecision(6)));
      }
    }
    return out;
  };
  const fine = at([1, 2, 5]);
  return fine.length <= 12 ? fine : at([1]);
}

/** The one-line caption: which run made the chart, on what machine (RESULTS.md's header facts). */
function caption(env, quick) {
  return `${quick ? 'make bench --quick (development only, not for quoting)' : 'make bench'}, gridsample ${env?.commit ?? 'unknown commit'}, ` +
    `${env?.date ?? 'unknown date'}; ${env?.cpu ?? 'unknown CPU'} (${env?.cores ?? '?'} logical cores), Node.js ${env?.node ?? '?'}`;
}

/**
 * The chart as SVG text. `measurements` is what bench.mjs saves with --json (env, results,
 * quick) plus `impls`, its IMPLS rows (id, short, peer, vs).
 */
export function renderChart({ env, results, impls, quick }) {
  const groups = chartRows(results, impls);
  const bars = groups.flatMap((g) => g.bars).filter((b) => b.ratio !== undefined);
  const height = TOP + groups.reduce((h, g) => h + GROUP_H + g.bars.length * ROW_H, 0) + (groups.length ? 62 : 40);
  const out = [];
  const text = (x, y, body, attrs = '') => out.push(`<text x="${num(x)}" y="${num(y)}"${attrs}>${body}</text>`);

  out.push(`<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="${FONT}" font-size="12">`);
  out.push('<title>gridsample benchmark: how many times faster ours is than each peer</title>');
  out.push(`<rect x="0" y="0" width="${W}" height="${height}" fill="#ffffff"/>`);
  text(16, 28, 'How many times faster gridsample is than each peer', ' font-size="18" font-weight="bold" fill="#111111"');
  // A long CPU name or commit note would run off the edge: squeezed to the width instead.
  const line = caption(env, quick);
  text(16, 48, escapeXml(line), ` fill="#444444"${textWidth(line, 12, 0.55) > W - 32 ? ` textLength="${W - 32}" lengthAdjust="spacingAndGlyphs"` : ''}`);
  text(16, 66, escapeXml('Each bar: the peer\'s median time / ours (the row of ours RESULTS.md pairs it with), log scale. ' +
    'Right of 1x: ours is faster.'), ' font-size="11" fill="#444444"');
  if (!bars.length && !groups.length) {
    text(16, TOP + 8, 'No peer was measured against ours in this run.', ' fill="#111111"');
    out.push('</svg>');
    return `${out.join('\n')}\n`;
  }

  // The log axis: the ratios and 1x, with room at each end for the labels of the outermost bars.
  const logs = bars.map((b) => Math.log10(b.ratio));
  let a = Math.min(0, ...logs);
  let b = Math.max(0, ...logs);
  if (b - a < Math.log10(2)) b = a + Math.log10(2);
  const label = (bar) => `${ratio(bar.ratio)}${bar.ratio < 1 ? ' (ours slower)' : ''}`;
  const padLeft = Math.max(16, ...bars.filter((x) => x.ratio < 1).map((x) => textWidth(label(x), 11) + 10));
  const padRight = Math.max(16, ...bars.filter((x) => x.ratio >= 1).map((x) => textWidth(label(x), 11) + 10));
  const span = PLOT[1] - PLOT[0] - padLeft - padRight;
  const x = (v) => PLOT[0] + padLeft + ((Math.log10(v) - a) / (b - a)) * span;
  const lo = 10 ** (a - (padLeft / span) * (b - a));
  const hi = 10 ** (b + (padRight / span) * (b - a));
  const bottom = height - 52;

  // Grid lines and their values, top and bottom; 1x drawn over them, marked.
  for (const t of ticks(lo, hi)) {
    if (t === 1) continue;
    out.push(`<line x1="${num(x(t))}" y1="${TOP - 8}" x2="${num(x(t))}" y2="${bottom}" stroke="#dddddd" stroke-width="1"/>`);
    for (const y of [TOP - 12, bottom + 14]) text(x(t), y, `${t}x`, ' font-size="10" fill="#666666" text-anchor="middle"');
  }
  out.push(`<line class="one" x1="${num(x(1))}" y1="${TOP - 8}" x2="${num(x(1))}" y2="${bottom}" stroke="#111111" stroke-width="1.5"/>`);
  for (const y of [TOP - 12, bottom + 14]) text(x(1), y, '1x', ' font-size="10" font-weight="bold" fill="#111111" text-anchor="middle"');
  text(x(1), bottom + 28, '1x = as fast as the peer', ' font-size="10" fill="#111111" text-anchor="middle"');

  let y = TOP;
  for (const g of groups) {
    text(16, y + 16, escapeXml(g.workload), ' font-size="13" font-weight="bold" fill="#111111"');
    out.push(`<line x1="16" y1="${y + 21}" x2="${W - 16}" y2="${y + 21}" stroke="#bbbbbb" stroke-width="0.5"/>`);
    y += GROUP_H;
    for (const bar of g.bars) {
      const mid = y + ROW_H / 2;
      text(LABEL_END, mid + 4, `${escapeXml(bar.peer)}<tspan fill="#777777"> vs ${escapeXml(bar.ours)}</tspan>`,
        ' fill="#111111" text-anchor="end"');
      if (bar.ratio === undefined) {
        text(x(1) + 6, mid + 4, escapeXml(bar.note), ' font-size="11" font-style="italic" fill="#777777"');
      } else {
        const x0 = Math.min(x(1), x(bar.ratio));
        const x1 = Math.max(x(1), x(bar.ratio));
        const slower = bar.ratio < 1;
        out.push(`<rect class="bar" data-workload="${escapeXml(g.workload)}" data-peer="${escapeXml(bar.peer)}" data-ratio="${bar.ratio.toPrecision(6)}" ` +
          `x="${num(x0)}" y="${num(mid - BAR_H / 2)}" width="${num(Math.max(x1 - x0, 1))}" height="${BAR_H}" fill="${slower ? SLOWER : FASTER}"/>`);
        text(slower ? x0 - 4 : x1 + 4, mid + 4, escapeXml(label(bar)),
          ` font-size="11" fill="${slower ? SLOWER : '#111111'}" text-anchor="${slower ? 'end' : 'start'}"`);
      }
      y += ROW_H;
    }
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
