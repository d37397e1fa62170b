// The targets of issues #4 and #16 on the workloads' rows, the rules judging a target on two medians, and how a target's status is written.

import { ratio, usable } from './report_format.mjs';
import { baselineText } from './workloads.mjs';

// Targets of issue #4. Each is checked on this run's numbers only:
//   peer(id, x):           ours is at least x times faster than peer `id` (a list: the
//                          fastest of those peers whose output matches)
//   floor(ids, x, ours):   ours takes at most x times the fastest of the copy floors `ids`
//   faster(ours, base):    ours is faster than row `base` of the same workload: ours on the
//                          same inputs with the baseline's settings (workloads.mjs), timed in
//                          the same rounds
//   within(ours, base, x): ours takes at most x times that baseline row `base`
const peer = (id, x) => ({ kind: 'peer', id, x });
const floor = (ids, x, ours) => ({ kind: 'floor', ids, x, ours });
const faster = (ours, base) => ({ kind: 'faster', ours, base });
const within = (ours, base, x) => ({ kind: 'within', ours, base, x });
//   scales(one, many, x):  row `many` (ours on more threads) at least x times faster than row
//                          `one` (ours on one thread), timed in the same rounds
const scales = (one, many, x) => ({ kind: 'scales', one, many, x });
// Issue #16's thread scaling on 2 cores: ours on 2 threads against 1, natively and in wasm.
const twoThreads = () => [scales('native', 'native-t2', 1.8), scales('simd-t1', 'simd-t2', 1.7)];
export const WASM_FLOORS = ['floor-wasm', 'floor-js'];
const padding = () => [
  peer('ort-web', 10), peer('ort-node', 4), within('simd', 'simd-base', 1.3), within('native', 'native-base', 1.3),
];
// Issue #16 with 2 threads each: ours in wasm (simd-t2, heap tensors) against onnxruntime-web
// with numThreads 2 (ort-web-t2, in a child process sampled in the same rounds).
export const TARGETS = {
  img2d: [peer('ort-web', 6), floor(WASM_FLOORS, 3, 'simd'), peer('ort-node', 8), floor(['floor-native'], 2, 'native'),
    ...twoThreads(), peer('ort-node-t2', 3), peer('ort-web-t2', 4)],
  // A small call: no slower on 2 threads (the split threshold works).
  feat2d: [peer('ort-web', 3), peer('ort-node', 4), scales('native', 'native-t2', 1)],
  nearest2d: [peer('ort-web', 10), peer('ort-node', 4), faster('simd', 'simd-base'), faster('native', 'native-base')],
  cubic2d: [peer('ort-web', 6), peer('ort-node', 4), ...twoThreads()],
  border2d: padding(),
  reflect2d: padding(),
  vol3d: [peer('ort-web', 8), peer('ort-node', 4), ...twoThreads(), peer('ort-node-t2', 8), peer('ort-web-t2', 8)],
  // Issue #30: the copying API, in wasm, no slower than onnxruntime-node natively.
  affinegrid2d: [peer('ort-web', 2), peer('ort-node', 4), scales('ort-node', 'simd-copy', 1)],
  affinegrid3d: [peer('ort-web', 2), peer('ort-node', 4), scales('ort-node', 'simd-copy', 1)],
  rgba8: [peer(['cv5', 'cv4'], 3), ...twoThreads()],
  // Issue #44: channels-last at least as fast as NCHW on the same data, at every channel count.
  cl1: [within('simd', 'simd-base', 1), within('native', 'native-base', 1)],
  cl2: [within('simd', 'simd-base', 1), within('native', 'native-base', 1)],
  cl3: [within('simd', 'simd-base', 1), within('native', 'native-base', 1)],
  cl4: [within('simd', 'simd-base', 1), within('native', 'native-base', 1)],
  cl5: [within('simd', 'simd-base', 1), within('native', 'native-base', 1)],
  cl32: [within('simd', 'simd-base', 1), within('native', 'native-base', 1)],
  cl256: [within('simd', 'simd-base', 1), within('native', 'native-base', 1)],
};

function why(res, label) {
  if (!res) return `${label}: not run`;
  if (res.status !== 'ok') return `${label}: ${res.status === 'n/a' ? res.error : `error (${res.error})`}`;
  return `${label}: output differs from ours`;
}

// The rule of each kind of target on two medians in ms, ours and `other` (the peer, the
// floor or the baseline): {v, met}, v being the ratio shown. peer: ours at least x times
// faster (v = other / ours); faster: ours below other (v = ours / other); floor and within:
// ours at most x times other or, with `slackMs`, other + slackMs if that is more.
export function judge(kind, ours, other, x, slackMs = 0) {
  if (kind === 'peer') return { v: other / ours, met: other / ours >= x };
  const v = ours / other;
  return { v, met: kind === 'faster' ? v < 1 : ours <= Math.max(x * other, other + slackMs) };
}

const judged = ({ v, met }) => ({ value: ratio(v), status: met ? 'met' : 'missed' });

/** Evaluates one target; returns {text, value, status: 'met' | 'missed' | 'n/a'}. */
export function evaluate(t, w, results, implsById) {
  const r = results[w.name];
  const label = (id) => implsById[id].label;
  if (t.kind === 'peer') {
    const ids = [].concat(t.id);
    const ours = implsById[ids[0]].vs;
    const which = ids.length > 1 ? ', whichever is faster' : '';
    const text = `${w.name}: ${label(ours)} >= ${t.x}x faster than ${ids.map(label).join(' or ')}${which}`;
    if (!usable(r[ours])) return { text, status: 'n/a', note: why(r[ours], ours) };
    const ok = ids.filter((id) => usable(r[id]));
    if (!ok.length) return { text, status: 'n/a', note: why(r[ids[0]], ids[0]) };
    return { text, ...judged(judge('peer', r[ours].time.median, Math.min(...ok.map((id) => r[id].time.median)), t.x)) };
  }
  if (t.kind === 'scales') {
    const text = `${w.name}: ${label(t.many)} >= ${t.x}x faster than ${label(t.one)}`;
    if (!usable(r[t.many])) return { text, status: 'n/a', note: why(r[t.many], t.many) };
    if (!usable(r[t.one])) return { text, status: 'n/a', note: why(r[t.one], t.one) };
    return { text, ...judged(judge('peer', r[t.many].time.median, r[t.one].time.median, t.x)) };
  }
  if (t.kind === 'floor') {
    const text = `${w.name}: ${label(t.ours)} within ${t.x}x of the copy floor`;
    if (!usable(r[t.ours])) return { text, status: 'n/a', note: why(r[t.ours], t.ours) };
    const floors = t.ids.filter((id) => usable(r[id]));
    if (!floors.length) return { text, status: 'n/a', note: why(r[t.ids[0]], t.ids[0]) };
    return { text, ...judged(judge('floor', r[t.ours].time.median, Math.min(...floors.map((id) => r[id].time.median)), t.x)) };
  }
  const than = `the same data with ${baselineText(w)}, timed in the same rounds, ${label(t.ours)}`;
  const text = t.kind === 'faster' ? `${w.name} faster than ${than}` : `${w.name} within ${t.x}x of ${than}`;
  const a = r[t.ours];
  const b = r[t.base];
  if (!usable(a)) return { text, status: 'n/a', note: why(a, t.ours) };
  if (!usable(b)) return { text, status: 'n/a', note: why(b, t.base) };
  return { text, ...judged(judge(t.kind, a.time.median, b.time.median, t.x)) };
}

export function statusCell(e) {
  if (e.status === 'met') return `met (${e.value})`;
  if (e.status === 'missed') return `**missed** (${e.value})`;
  return `n/a (${e.note})`;
}
