// bench/js/chart.mjs on hand-made measurements in the shape bench.mjs saves: one bar per measured (workload, peer) pair, paired and sized as the report's ratios, well-formed and escaped SVG.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { escapeXml, renderChart } from '../../bench/js/chart.mjs';

// Rows in the shape of impls.mjs's IMPLS (id, short, peer, vs; floors and baselines carry no peer).
const IMPLS = [
  { id: 'simd', short: 'ours SIMD heap' },
  { id: 'simd-copy', short: 'ours SIMD copying', vs: 'simd' },
  { id: 'scalar', vs: 'simd' },
  { id: 'ort-web', peer: 'onnxruntime-web', vs: 'simd-copy' },
  { id: 'cv5', peer: 'OpenCV.js', vs: 'simd' },
  { id: 'cv4', peer: 'OpenCV.js', vs: 'simd' },
  { id: 'plain-js', short: 'plain JS', peer: 'plain JS loop', vs: 'simd' },
  { id: 'odd', peer: 'Simd <AVX2> & "co\'s"', vs: 'simd' },
  { id: 'floor-js', floor: true, vs: 'simd' },
  { id: 'native', short: 'ours native' },
  { id: 'native-ref', vs: 'native' },
  { id: 'ort-node', peer: 'onnxruntime-node', vs: 'native' },
  { id: 'native-t2', short: 'ours native, 2 threads' },
  { id: 'ort-node-t2', peer: 'onnxruntime-node, 2 threads', vs: 'native-t2' },
];

// A result row as bench.mjs writes it: timed, with its check against ours unless `check` is null.
const ok = (median, check = { maxDiff: 0, bad: 0, ok: true, tol: 1e-5, against: 'simd' }) => ({
  status: 'ok', check, time: { median, p90: median * 1.1, min: median * 0.9, reps: 3, batch: 1 },
});
const differs = (median) => ok(median, { maxDiff: 0.5, bad: 12, ok: false, tol: 1e-5, against: 'simd' });

const ENV = {
  cpu: 'Test <CPU> & "Co"', cores: 2, node: 'v22.0.0', date: '2026-01-02T03:04:05.000Z', commit: 'abc1234',
};
const RESULTS = {
  img2d: {
    'simd': ok(2, null),
    'simd-copy': ok(2.5),
    'scalar': ok(8),
    'ort-web': ok(10), // 10 / 2.5 (its pair is the copying API, not the heap row): 4x
    'cv5': ok(5), // 2.5x
    'cv4': ok(4), // 2x: the fastest OpenCV.js row makes the bar
    'plain-js': { status: 'n/a', error: 'not for this workload' },
    'odd': ok(3), // 1.5x
    'floor-js': ok(0.5, null),
    'native': ok(1, null),
    'native-ref': ok(6),
    'ort-node': ok(0.5), // 0.5x: ours slower
    'native-t2': ok(0.6, null),
    'ort-node-t2': { status: 'error', error: 'session failed' },
  },
  cubic2d: {
    'simd': ok(4, null),
    'simd-copy': ok(4.4),
    'ort-web': differs(40), // timed but its output differs: a note, no bar
    'plain-js': ok(200), // 50x
    'native': ok(2, null),
    'ort-node': ok(16), // 8x
    'native-t2': { status: 'error', error: 'binary crashed' }, // ours failed: no pair for ort-node-t2
    'ort-node-t2': ok(3),
  },
  // Nothing of ours ran: no group at all.
  vol3d: {
    'simd': { status: 'error', error: 'out of memory' },
    'ort-web': ok(9),
  },
};
const EXPECTED = {
  'img2d onnxruntime-web': 4,
  'img2d OpenCV.js': 2,
  'img2d Simd <AVX2> & "co\'s"': 1.5,
  'img2d onnxruntime-node': 0.5,
  'cubic2d plain JS loop': 50,
  'cubic2d onnxruntime-node': 8,
};

const decode = (s) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e) => ({ lt: '<', gt: '>', quot: '"', apos: '\'', amp: '&' })[e]);
const attrs = (tag) => Object.fromEntries([...tag.matchAll(/([\w:-]+)="([^"]*)"/g)].map((m) => [m[1], decode(m[2])]));

/** The chart's bars: [{workload, peer, ratio, x, width}] from their <rect class="bar"> elements. */
function bars(svg) {
  return [...svg.matchAll(/<rect class="bar"[^>]*\/>/g)].map(([tag]) => {
    const a = attrs(tag);
    return { workload: a['data-workload'], peer: a['data-peer'], ratio: Number(a['data-ratio']), x: Number(a.x), width: Number(a.width) };
  });
}

/**
 * Throws unless `xml` is well-formed: one root element, tags nested and closed in order, every
 * attribute quoted, no '<' in text or attribute values, every '&' a known or numeric entity.
 */
function assertWellFormed(xml) {
  const entity = /^&(?:lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/;
  const checkText = (text, where) => {
    for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) {
      assert.match(text.slice(i, i + 12), entity, `a bare '&' in ${where}: ${JSON.stringify(text.slice(i, i + 20))}`);
    }
  };
  const stack = [];
  let roots = 0;
  let i = xml.startsWith('<?xml') ? xml.indexOf('?>') + 2 : 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt === -1 ? xml.length : lt);
    if (!stack.length) assert.match(text, /^\s*$/, `text outside the root element: ${JSON.stringify(text.slice(0, 40))}`);
    checkText(text, 'text');
    if (lt === -1) break;
    if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('-->', lt);
      assert.ok(end !== -1, 'an unclosed comment');
      i = end + 3;
      continue;
    }
    const gt = xml.indexOf('>', lt);
    assert.ok(gt !== -1, 'an unclosed tag');
    const tag = xml.slice(lt, gt + 1);
    const close = tag.match(/^<\/([A-Za-z_][\w:.-]*)\s*>$/);
    if (close) {
      assert.equal(stack.pop(), close[1], `</${close[1]}> closes another element`);
    } else {
      const open = tag.match(/^<([A-Za-z_][\w:.-]*)((?:\s+[A-Za-z_][\w:.-]*\s*=\s*"[^"<]*")*)\s*(\/?)>$/);
      assert.ok(open, `a malformed tag: ${tag.slice(0, 80)}`);
      checkText(open[2], `the attributes of <${open[1]}>`);
      const names = [...open[2].matchAll(/([A-Za-z_][\w:.-]*)\s*=/g)].map((m) => m[1]);
      assert.equal(new Set(names).size, names.length, `a repeated attribute in <${open[1]}>`);
      if (!stack.length) ++roots;
      if (!open[3]) stack.push(open[1]);
    }
    i = gt + 1;
  }
  assert.deepEqual(stack, [], 'elements left open');
  assert.equal(roots, 1, 'one root element');
}

describe('bench chart (bench/js/chart.mjs)', () => {
  const svg = renderChart({ env: ENV, results: RESULTS, impls: IMPLS, quick: false });
  const drawn = bars(svg);

  test('the well-formedness check used below rejects broken XML', () => {
    assert.throws(() => assertWellFormed('<svg><text>a & b</text></svg>'));
    assert.throws(() => assertWellFormed('<svg><text>a</svg></text>'));
    assert.throws(() => assertWellFormed('<svg><rect x=1/></svg>'));
    assert.throws(() => assertWellFormed('<svg><text>a < b</text></svg>'));
    assert.throws(() => assertWellFormed('<svg/><svg/>'));
    assertWellFormed('<svg a="&lt;&amp;"><!-- x --><text>&#60;</text></svg>\n');
  });

  test('parses as XML: one <svg> root with explicit width, height and viewBox, no scripts, links or outside resources', () => {
    assertWellFormed(svg);
    const root = attrs(svg.match(/^<svg[^>]*>/)[0]);
    assert.equal(root.xmlns, 'http://www.w3.org/2000/svg');
    assert.match(root.width, /^\d+$/);
    assert.match(root.height, /^\d+$/);
    assert.equal(root.viewBox, `0 0 ${root.width} ${root.height}`);
    assert.doesNotMatch(svg, /<script|href=|url\(|@import|<foreignObject|\son\w+=/i);
  });

  test('one bar per (workload, peer) pair measured, with the ratio of the report\'s pairing', () => {
    const got = Object.fromEntries(drawn.map((b) => [`${b.workload} ${b.peer}`, b.ratio]));
    assert.deepEqual(Object.keys(got).sort(), Object.keys(EXPECTED).sort());
    for (const [pair, ratio] of Object.entries(EXPECTED)) assert.ok(Math.abs(got[pair] - ratio) < 1e-4, `${pair}: ${got[pair]}, expected ${ratio}`);
    // Labelled as RESULTS.md writes ratios.
    for (const label of ['4.00x', '2.00x', '1.50x', '50.0x', '8.00x']) assert.ok(svg.includes(`>${label}</text>`), `no label ${label}`);
  });

  test('a peer not run, failing, or paired with a row of ours that failed gets no bar', () => {
    assert.ok(!drawn.some((b) => b.peer === 'plain JS loop' && b.workload === 'img2d'), 'plain JS was n/a on img2d');
    assert.ok(!drawn.some((b) => b.peer === 'onnxruntime-node, 2 threads'), 'errors on one side of the pair');
    assert.ok(!drawn.some((b) => b.workload === 'vol3d'), 'ours failed on vol3d');
    assert.ok(!svg.includes('>vol3d<'), 'a workload with nothing to show has no heading');
    assert.ok(!drawn.some((b) => b.peer === undefined), 'our own rows (scalar, reference) and floors are not peers');
  });

  test('a peer whose output differs from ours gets a note, not a bar', () => {
    assert.ok(!drawn.some((b) => b.workload === 'cubic2d' && b.peer === 'onnxruntime-web'));
    assert.match(svg, /output differs from ours: not compared/);
  });

  test('bar lengths follow the ratios on a log scale; ours slower is drawn left of the 1x line and labelled so', () => {
    const one = Number(attrs(svg.match(/<line class="one"[^>]*\/>/)[0]).x1);
    const faster = drawn.filter((b) => b.ratio > 1).sort((a, b) => a.ratio - b.ratio);
    for (const b of faster) assert.ok(Math.abs(b.x - one) < 0.11, `${b.workload} ${b.peer} starts at the 1x line`);
    for (let k = 1; k < faster.length; ++k) assert.ok(faster[k].width > faster[k - 1].width, `${faster[k].peer} ${faster[k].ratio}x longer than ${faster[k - 1].peer} ${faster[k - 1].ratio}x`);
    // Log scale: 4x is twice as long as 2x, 0.5x as long as 2x (the other way).
    const by = (peer, w = 'img2d') => drawn.find((b) => b.peer === peer && b.workload === w);
    const [x4, x2, half] = [by('onnxruntime-web'), by('OpenCV.js'), by('onnxruntime-node')];
    assert.ok(Math.abs(x4.width / x2.width - 2) < 0.01, `4x: ${x4.width}, 2x: ${x2.width}`);
    assert.ok(Math.abs(half.width - x2.width) < 0.2, `0.5x: ${half.width}, 2x: ${x2.width}`);
    assert.ok(Math.abs(half.x + half.width - one) < 0.11 && half.x < one, '0.5x ends at the 1x line, on its left');
    assert.ok(svg.includes('>0.50x (ours slower)</text>'));
    assert.notEqual(svg.match(/<rect class="bar"[^>]*data-ratio="0\.5[^>]*>/)[0].match(/fill="([^"]+)"/)[1],
      svg.match(/<rect class="bar"[^>]*data-ratio="2\.0[^>]*>/)[0].match(/fill="([^"]+)"/)[1], 'slower bars have their own colour');
  });

  test('text is escaped', () => {
    assert.ok(svg.includes(escapeXml('Simd <AVX2> & "co\'s"')));
    assert.ok(svg.includes('Simd &lt;AVX2&gt; &amp; &quot;co&apos;s&quot;'));
    assert.ok(!svg.includes('<AVX2>') && !svg.includes('<CPU>'));
    assert.ok(svg.includes('Test &lt;CPU&gt; &amp; &quot;Co&quot;'));
  });

  test('the caption names the run and the machine as RESULTS.md does; the same measurements give the same bytes', () => {
    for (const fact of ['abc1234', '2026-01-02T03:04:05.000Z', 'Test &lt;CPU&gt;', '2 logical cores', 'v22.0.0']) assert.ok(svg.includes(fact), fact);
    assert.ok(!svg.includes('--quick'));
    assert.match(renderChart({ env: ENV, results: RESULTS, impls: IMPLS, quick: true }), /make bench --quick/);
    assert.equal(renderChart({ env: ENV, results: RESULTS, impls: IMPLS, quick: false }), svg);
  });

  test('a run with no peer measured (--only models) still makes a valid chart that says so', () => {
    const empty = renderChart({ env: ENV, results: {}, impls: IMPLS, quick: false });
    assertWellFormed(empty);
    assert.equal(bars(empty).length, 0);
    assert.match(empty, /No peer was measured/);
  });
});
