// Times a model on onnxruntime alone against gridsample/onnx's split session on the same feeds, part by part: what `gridsample onnx bench`, the ONNX demo page and `make bench` report.
import { InferenceSession } from '../onnx.mjs';
import { failureReason, quote } from './errors.mjs';
import { ARRAY_CLASSES } from './tensor_types.mjs';
import { stats } from './stats.mjs';

export { stats };

const now = () => globalThis.performance.now();

// A 31-bit LCG with values in [0, 1): the same feeds for the same seed everywhere.
function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}


/**
 * Random feeds for a session's inputs (its `inputMetadata`): floats uniform in [-1, 1) (or in
 * `ranges[name]`, [lo, hi)), integers in [0, 4), booleans false. A dimension the model leaves
 * open takes `dims[name]`'s value (a full shape per input name), else 1.
 */
export function randomFeeds(ort, metadata, { dims = {}, ranges = {}, seed = 1 } = {}) {
  const next = lcg(seed);
  const feeds = {};
  for (const { name, type, shape } of metadata) {
    const [lo, hi] = ranges[name] ?? [-1, 1];
    const uniform = () => lo + (hi - lo) * next();
    const given = dims[name];
    if (given && shape.length && given.length !== shape.length) {
      throw new RangeError(`input ${quote(name)}: the model declares ${shape.length} dimensions [${shape.join(', ')}], got ${given.length}: [${given.join(', ')}]`);
    }
    const d = given ? [...given] : shape.map((s) => (typeof s === 'number' && s > 0 ? s : 1));
    if (!shape.length && !given) throw new RangeError(`input ${quote(name)}: the model does not declare its rank; give its shape`);
    const n = d.reduce((a, b) => a * b, 1);
    let data;
    const ArrayClass = ARRAY_CLASSES[type];
    if (!ArrayClass || type === 'bfloat16') throw new RangeError(`input ${quote(name)}: cannot make random ${type} data`);
    if (type === 'float32' || type === 'float64') data = ArrayClass.from({ length: n }, uniform);
    else if (type === 'float16') data = ArrayClass.from({ length: n }, () => toHalf(uniform()));
    else if (type === 'int64') data = ArrayClass.from({ length: n }, () => BigInt(Math.floor(4 * next())));
    else if (type === 'bool') data = new ArrayClass(n);
    else data = ArrayClass.from({ length: n }, () => Math.floor(4 * next()));
    feeds[name] = new ort.Tensor(type, data, d); // bool as bytes, as onnxruntime stores it
  }
  return feeds;
}

// float32 -> float16 bits, round to nearest even (for the moderate values drawn here: no
// overflow handling; subnormals kept).
function toHalf(v) {
  const f = new Float32Array([v]);
  const u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = ((u >>> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return sign | Math.round(Math.abs(v) / 2 ** -24);
  let half = (exp << 10) | ((u >>> 13) & 0x3ff);
  const rest = u & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half += 1;
  return sign | half;
}

// A tensor's values as numbers: float16 bits (a Uint16Array) decoded; a native Float16Array,
// which onnxruntime-web hands out where the engine has one, is numbers already.
function values(t) {
  if (t.type !== 'float16' || !(t.data instanceof Uint16Array)) return t.data;
  return Float32Array.from(t.data, (h) => {
    const e = (h >> 10) & 31;
    const m = h & 1023;
    const v = e === 0 ? m * 2 ** -24 : e === 31 ? (m ? NaN : Infinity) : (1 + m / 1024) * 2 ** (e - 15);
    return h & 0x8000 ? -v : v;
  });
}

/** Per output: the largest absolute difference, and the largest magnitude of `want` (its scale). */
export function compareOutputs(got, want) {
  const result = {};
  for (const [name, w] of Object.entries(want)) {
    const [a, b] = [values(got[name]), values(w)];
    let diff = 0;
    let scale = 0;
    for (let i = 0; i < b.length; ++i) {
      const d = Math.abs(Number(a[i]) - Number(b[i]));
      if (!(d <= diff)) diff = d;
      scale = Math.max(scale, Math.abs(Number(b[i])));
    }
    result[name] = { maxAbsDiff: a.length === b.length ? diff : NaN, scale };
  }
  return result;
}

/** A part's operators as `Conv ×2, Relu` (plan().parts[i].ops). */
export const formatOps = (ops) => Object.entries(ops).map(([op, n]) => (n > 1 ? `${op} ×${n}` : op)).join(', ');

/** onnxruntime's own words for a failure, as the session's errors quote them. */
export { failureReason };

// The smallest step of performance.now() seen (0.1 ms in pages that are not cross-origin
// isolated, microseconds or less in Node.js).
function timerResolution() {
  let step = Infinity;
  for (let i = 0, last = now(); i < 5; ++i) {
    let t = now();
    while (t === last) t = now();
    step = Math.min(step, t - last);
    last = t;
  }
  return step;
}

// At least `runs` runs and `ms` milliseconds of them.
async function warm(session, feeds, runs, ms) {
  const start = now();
  for (let i = 0; i < runs || now() - start < ms; ++i) await session.run(feeds);
}

/**
 * Runs `model` (bytes, or a path or URL both read) on onnxruntime alone and on the split session, in alternating blocks of
 * runs: `runs` of each, or more until `minMs` have passed, after warming each up (`warmup` runs
 * and `warmupMs` milliseconds at least), with the same split with every part on onnxruntime
 * (the per-part reference; `reference: false` leaves it out) as a third. The feeds are
 * `feeds`, or `given` completed with random ones (randomFeeds with `dims` and `ranges`);
 * `subgraphs` is InferenceSession.create()'s option.
 * Resolves to { plan, feeds, onnxruntime: {median, p90} | {error}, split: {median, p90},
 * parts: [{part, runsOn, ops, ms: median, onnxruntimeMs: median | null}], reference: {error}?,
 * outputs: compareOutputs(split, onnxruntime) | null, gridsampleShare: {split, onnxruntime} }.
 * `onRound(i, runs)` is called after each round.
 */
export async function compareModel(model, { ort, feeds, given = {}, dims, ranges, runs = 20, minMs = 0, warmup = 3, warmupMs = 1000, reference = true, gridsample, subgraphs, sessionOptions = {}, onRound } = {}) {
  const split = await InferenceSession.create(model, { ...sessionOptions, ort, gridsample, subgraphs });
  const sessions = { split };
  const errors = {};
  try {
    feeds ??= { ...randomFeeds(ort, split.inputMetadata.filter((m) => !(m.name in given)), { dims, ranges }), ...given };
    // The plan after the first run, which decides where each node of ours runs from then on.
    const first = await split.run(feeds);
    const plan = split.plan();
    // onnxruntime alone gets the same bytes (read once by the split session when given a path).
    try {
      // A failure here is a finding, reported in the result: not logged by onnxruntime as well.
      sessions.onnxruntime = await ort.InferenceSession.create(model, { ...sessionOptions, logSeverityLevel: 4 });
      await sessions.onnxruntime.run(feeds);
    } catch (e) {
      errors.onnxruntime = failureReason(e);
      delete sessions.onnxruntime;
    }
    if (reference && plan.parts.some((p) => p.runsOn === 'gridsample')) {
      try {
        sessions.reference = await InferenceSession.create(model, { ...sessionOptions, logSeverityLevel: 4, ort, gridsample, subgraphs, gridsampleParts: 'onnxruntime' });
        await sessions.reference.run(feeds);
        // The reference splits as splitModel does: when placement left some of our nodes to
        // onnxruntime, its parts are not the split session's.
        const shape = (p) => p.parts.map((q) => `${q.runsOn} ${q.nodes.length}`).join();
        if (plan.attention?.fused) throw new Error('the split fused an attention chain, which has no onnxruntime form part by part');
        if (shape(sessions.reference.plan()) !== shape(plan)) throw new Error('placement left some GridSample / AffineGrid nodes to onnxruntime: the parts differ from the split\'s');
      } catch (e) {
        errors.reference = failureReason(e);
        await sessions.reference?.release();
        delete sessions.reference;
      }
    }
    const samples = { onnxruntime: [], split: [], parts: plan.parts.map(() => []), reference: plan.parts.map(() => []) };
    let outputs = null;
    if (sessions.onnxruntime) outputs = compareOutputs(first, await sessions.onnxruntime.run(feeds));
    // Engines optimise JavaScript and wasm after many calls, in the background: untimed runs
    // for at least warmupMs, so that small models are timed at their steady speed.
    for (const session of [sessions.onnxruntime, split, sessions.reference].filter(Boolean)) await warm(session, feeds, warmup, warmupMs);
    // Alternating blocks of runs: each session runs several times in a row, as in an app (a
    // switch of session costs onnxruntime-web more than a run), and drift hits both alike.
    const block = Math.max(1, Math.min(10, Math.ceil(runs / 4)));
    // A page that is not cross-origin isolated gets performance.now() in 0.1 ms steps: there a
    // sample is the mean of a block of runs (its whole time over n), not one run.
    const coarse = timerResolution() > 0.005;
    const timeBlock = async (session, n, sink, partSinks) => {
      const sums = partSinks.map(() => 0);
      const t0 = now();
      for (let i = 0; i < n; ++i) {
        const t1 = now();
        await session.run(feeds, partSinks.length ? { profile: true } : undefined);
        if (!coarse) sink?.push(now() - t1);
        session.lastProfile?.parts.forEach((p, k) => (coarse ? (sums[k] += p.ms) : partSinks[k].push(p.ms)));
      }
      if (coarse) {
        sink?.push((now() - t0) / n);
        sums.forEach((sum, k) => partSinks[k].push(sum / n));
      }
    };
    // At least `runs` runs of each, and more blocks until `minMs` have passed: a model of a
    // tenth of a millisecond needs thousands of runs before other work on the machine averages
    // out. The per-part reference runs its blocks in the same rounds, so that drift in the
    // machine's speed affects it as it does the other two.
    const start = now();
    let total = 0;
    while (total < runs || now() - start < minMs) {
      const n = total < runs ? Math.min(block, runs - total) : block;
      if (sessions.onnxruntime) await timeBlock(sessions.onnxruntime, n, samples.onnxruntime, []);
      await timeBlock(split, n, samples.split, samples.parts);
      if (sessions.reference) await timeBlock(sessions.reference, n, null, samples.reference);
      total += n;
      onRound?.(Math.min(total, runs), runs);
    }
    const parts = plan.parts.map((p, i) => ({
      part: p.part,
      runsOn: p.runsOn,
      ops: p.ops,
      ms: stats(samples.parts[i]).median,
      onnxruntimeMs: sessions.reference ? stats(samples.reference[i]).median : null,
    }));
    // `runs` counts runs, not samples (a block mean is one sample of several runs).
    const onnxruntime = sessions.onnxruntime ? { ...stats(samples.onnxruntime), runs: total } : { error: errors.onnxruntime };
    const splitStats = { ...stats(samples.split), runs: total };
    const ours = parts.filter((p) => p.runsOn === 'gridsample');
    const sum = (key) => ours.reduce((a, p) => a + p[key], 0);
    return {
      plan,
      feeds,
      // Samples are means of blocks of `block` runs where the timer is coarse.
      timing: { blockMeans: coarse, block },
      onnxruntime,
      split: splitStats,
      parts,
      reference: sessions.reference ? {} : { error: errors.reference ?? null },
      outputs,
      gridsampleShare: {
        split: sum('ms') / splitStats.median,
        onnxruntime: sessions.reference && sessions.onnxruntime ? sum('onnxruntimeMs') / onnxruntime.median : null,
      },
    };
  } finally {
    await Promise.all(Object.values(sessions).map((s) => s.release()));
  }
}
