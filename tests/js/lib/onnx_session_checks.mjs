// Helpers of the gridsample/onnx session tests: deterministic inputs, closeness to onnxruntime's outputs, one-line OnnxModelErrors and where a session's parts run.
import assert from 'node:assert/strict';

import * as ort from 'onnxruntime-node';

import { OnnxModelError } from '../../../js/onnx.mjs';
import { compareOutputs } from '../../../js/onnx/timing.mjs';

// Messages of onnxruntime's own failures, which the tests provoke, are not logged as well.
export const QUIET = { logSeverityLevel: 4 };
// The split as splitModel makes it, every node of ours on gridsample, whatever it costs: these
// tests are of the split's mechanics (placement has its own, at the end).
export const SPLIT = { placement: 'gridsample' };

// Deterministic inputs: a 31-bit LCG, values in [lo, hi).
export function random(seed) {
  let s = seed;
  return (lo, hi) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return lo + (hi - lo) * (s / 2147483648);
  };
}

export function tensor(dims, seed, lo = -1, hi = 1) {
  const r = random(seed);
  const n = dims.reduce((a, b) => a * b, 1);
  return new ort.Tensor('float32', Float32Array.from({ length: n }, () => r(lo, hi)), dims);
}

// Every output within atol of onnxruntime's (a NaN anywhere fails).
export function assertClose(got, want, atol) {
  for (const [name, { maxAbsDiff }] of Object.entries(compareOutputs(got, want))) {
    assert.ok(maxAbsDiff <= atol, `${name}: max abs diff ${maxAbsDiff} > ${atol}`);
  }
}

// A rejection with an OnnxModelError whose message matches and is one line.
export const modelError = (promise, pattern) => assert.rejects(promise, (e) => {
  assert.ok(e instanceof OnnxModelError, `an OnnxModelError, got ${e?.name}: ${e?.message}`);
  assert.match(e.message, pattern);
  assert.doesNotMatch(e.message, /[\r\n\u2028\u2029]/, 'one line');
  return true;
});

export const runsOn = (session) => session.plan().parts.map((p) => `${p.runsOn}:${Object.entries(p.ops).map(([op, n]) => `${op}${n > 1 ? `x${n}` : ''}`).join('+')}`);
