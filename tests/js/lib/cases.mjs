// Reads the golden cases (tests/cases, format in its README) and replays them through the JS API.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { bf16ToNumber, f16ToNumber } from './halfs.mjs';

const ARRAY_OF = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, bfloat16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
};
const INTEGER = new Set(['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64']);

/** Case names (<name>.json other than index.json), sorted. */
export function listCases(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'index.json')
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

function readArray(dir, spec) {
  const Ctor = ARRAY_OF[spec.dtype];
  if (!Ctor) throw new Error(`unknown dtype ${JSON.stringify(spec.dtype)} in the case file`);
  const file = readFileSync(join(dir, spec.file));
  // A fresh, aligned buffer: small Node Buffers share a pool at arbitrary offsets.
  const bytes = new Uint8Array(file.length);
  bytes.set(file);
  const count = spec.shape.reduce((a, b) => a * b, 1);
  if (bytes.length !== count * Ctor.BYTES_PER_ELEMENT) {
    throw new Error(`${spec.file}: ${bytes.length} bytes, shape ${JSON.stringify(spec.shape)} of ${spec.dtype} needs ${count * Ctor.BYTES_PER_ELEMENT}`);
  }
  return { data: new Ctor(bytes.buffer), shape: spec.shape.slice(), dtype: spec.dtype };
}

/** One case, with its tensors read from the .bin files. Throws on a malformed case. */
export function loadCase(dir, name) {
  const json = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'));
  try {
    return parseCase(dir, name, json);
  } catch (e) {
    e.category = json.category; // so that the failure is still counted in its category
    throw e;
  }
}

function parseCase(dir, name, json) {
  const c = {
    name,
    op: json.op,
    category: json.category || '',
    attrs: json.attrs || {},
    expected: readArray(dir, json.expected),
    atol: json.tolerance ? json.tolerance.atol : 0,
    rangeOnly: json.check === 'range_only',
    range: json.range,
    inputs: {},
  };
  for (const [key, spec] of Object.entries(json.inputs)) {
    c.inputs[key] = key === 'size' && spec.value ? { value: spec.value.slice(), dtype: spec.dtype } : readArray(dir, spec);
  }
  if (c.op !== 'GridSample' && c.op !== 'AffineGrid') throw new Error(`unknown op ${JSON.stringify(c.op)}`);
  return c;
}

/** Element i of a typed array of `dtype` as a number (half types decoded). */
export function decode(dtype, data, i) {
  if (dtype === 'float16') return f16ToNumber(data[i]);
  if (dtype === 'bfloat16') return bf16ToNumber(data[i]);
  return Number(data[i]);
}

function options(c) {
  const a = c.attrs;
  const o = { alignCorners: a.align_corners };
  if (c.op === 'GridSample') {
    o.mode = a.mode;
    o.paddingMode = a.padding_mode;
  }
  return o;
}

/**
 * Runs a case through `gs` and returns the output {data, shape, dtype}.
 * path 'copy': plain typed arrays in, a new result out (the everyday API).
 * path 'heap': inputs copied into heap tensors, output into a heap tensor first filled with
 *   `fill` bytes (0xFF is NaN in every float type, so unwritten elements show up).
 */
export function runCase(gs, c, path = 'copy', fill = 0xff) {
  const opts = options(c);
  if (path === 'copy') {
    if (c.op === 'GridSample') return gs.gridSample(c.inputs.X, c.inputs.grid, opts);
    return gs.affineGrid(c.inputs.theta, c.inputs.size.value, opts);
  }
  const owned = [];
  try {
    const heap = (t) => { const h = gs.tensorFrom(t); owned.push(h); return h; };
    const out = gs.tensor(c.expected.dtype, c.expected.shape);
    owned.push(out);
    new Uint8Array(out.data.buffer, out.data.byteOffset, out.byteLength).fill(fill);
    if (c.op === 'GridSample') gs.gridSample(heap(c.inputs.X), heap(c.inputs.grid), { ...opts, out });
    else gs.affineGrid(heap(c.inputs.theta), c.inputs.size.value, { ...opts, out });
    return { data: out.data.slice(), shape: out.shape.slice(), dtype: out.dtype };
  } finally {
    for (const t of owned) t.dispose();
  }
}

function unravel(flat, shape) {
  const idx = new Array(shape.length).fill(0);
  for (let k = shape.length - 1; k >= 0; --k) {
    idx[k] = flat % shape[k];
    flat = Math.floor(flat / shape[k]);
  }
  return idx;
}

/**
 * Compares an output with the case's pass criterion. Returns {passed, error?, worstFlat,
 * worstIndex, got, expected, maxAbsError, atol, rangeLo?, rangeHi?}.
 */
export function compare(c, out) {
  const e = c.expected;
  const r = { passed: false, worstFlat: -1, maxAbsError: 0, atol: c.rangeOnly ? c.range.atol : c.atol };
  if (out.dtype !== e.dtype) return { ...r, error: `output dtype ${out.dtype}, expected ${e.dtype}` };
  if (JSON.stringify(Array.from(out.shape)) !== JSON.stringify(e.shape)) {
    return { ...r, error: `output shape [${Array.from(out.shape).join(', ')}], expected [${e.shape.join(', ')}]` };
  }
  const n = e.data.length;
  if (out.data.length !== n) return { ...r, error: `output has ${out.data.length} elements, expected ${n}` };
  let worst = -1;
  let firstNaN = -1;
  const channels = e.shape[1];
  const inner = e.shape.slice(2).reduce((a, b) => a * b, 1);
  for (let i = 0; i < n; ++i) {
    const got = decode(out.dtype, out.data, i);
    let err;
    let want;
    if (c.rangeOnly) {
      const b = Math.floor(i / (channels * inner));
      const ch = Math.floor(i / inner) % channels;
      const lo = c.range.lo[b][ch] - c.range.atol;
      const hi = c.range.hi[b][ch] + c.range.atol;
      err = !Number.isFinite(got) ? Infinity : got < lo ? lo - got : got > hi ? got - hi : 0;
      want = Number.isFinite(got) && got < lo ? lo : hi;
      if (err > worst) { r.rangeLo = lo; r.rangeHi = hi; }
    } else {
      want = decode(e.dtype, e.data, i);
      // got === want first so that equal infinities count as exact.
      err = got === want ? 0 : Math.abs(got - want);
      if (Number.isNaN(err)) err = Infinity;
    }
    if (Number.isNaN(got) && firstNaN < 0) firstNaN = i;
    if (err > worst) {
      worst = err;
      r.worstFlat = i;
      r.got = got;
      r.expected = want;
    }
  }
  r.maxAbsError = Math.max(worst, 0);
  if (c.rangeOnly) {
    r.passed = r.maxAbsError === 0;
    if (!r.passed && !Number.isFinite(r.got)) r.error = 'output is not finite';
  } else {
    r.passed = firstNaN < 0 && r.maxAbsError <= c.atol;
    if (firstNaN >= 0) {
      r.worstFlat = firstNaN;
      r.got = NaN;
      r.expected = decode(e.dtype, e.data, firstNaN);
      r.error = 'output contains NaN';
    }
  }
  if (r.worstFlat >= 0) r.worstIndex = unravel(r.worstFlat, e.shape);
  return r;
}

const INTEGER_OUT = (c) => INTEGER.has(c.expected.dtype);

/**
 * Loads, runs and checks one case the way the native conformance runner does (heap path with
 * a NaN fill; integer outputs twice, over two fills, and required to be identical).
 * Never throws: a malformed or unsupported case is a failed result with `error`.
 */
export function checkCase(gs, dir, name, path = 'heap') {
  let c;
  try {
    c = loadCase(dir, name);
  } catch (e) {
    return { name, category: e.category || '', passed: false, worstFlat: -1, error: `cannot load: ${e.message}` };
  }
  try {
    const out = runCase(gs, c, path, 0xff);
    if (path === 'heap' && INTEGER_OUT(c) && out.data.length) {
      const again = runCase(gs, c, path, 0x00);
      const a = new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength);
      const b = new Uint8Array(again.data.buffer, again.data.byteOffset, again.data.byteLength);
      if (a.length !== b.length || a.some((v, i) => v !== b[i])) {
        return { name, category: c.category, passed: false, worstFlat: -1, error: 'output differs between two runs (elements left unwritten?)' };
      }
    }
    return { name, category: c.category, rangeOnly: c.rangeOnly, ...compare(c, out) };
  } catch (e) {
    return { name, category: c.category, passed: false, worstFlat: -1, error: `${e.name}: ${e.message}` };
  }
}

// C's printf %.<p>g, so that both runners print numbers alike.
function formatG(v, p) {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const strip = (m) => (m.includes('.') ? m.replace(/\.?0+$/, '') : m);
  const [mant, e] = v.toExponential(p - 1).split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= p) {
    return `${strip(mant)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return strip(v.toFixed(p - 1 - exp));
}
const g9 = (v) => formatG(v, 9);
const g3 = (v) => formatG(v, 3);

/** One line in the native runner's format (tests/native/case_runner.cc DescribeResult). */
export function describeResult(r, implementation) {
  let s = `${r.passed ? 'PASS' : 'FAIL'} ${r.name} [${r.category || '-'}] (${implementation})`;
  if (r.worstFlat < 0) return r.error ? `${s}: ${r.error}` : s;
  s += `: worst [${r.worstIndex.join(', ')}] (flat ${r.worstFlat}): got ${g9(r.got)}`;
  if (r.rangeOnly) {
    s += `, allowed [${g9(r.rangeLo)}, ${g9(r.rangeHi)}] (range atol ${g3(r.atol)}), outside by ${g3(r.maxAbsError)}`;
  } else {
    s += `, expected ${g9(r.expected)}, abs error ${g3(r.maxAbsError)} ${r.maxAbsError <= r.atol ? '<=' : '>'} atol ${g3(r.atol)}`;
  }
  return r.error ? `${s}: ${r.error}` : s;
}
