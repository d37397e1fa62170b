// Compares two runs of transformers.js's object-detection pipeline detection by detection (transformers.test.mjs, transformers_detr.test.mjs): the same count and labels, boxes equal or within `boxTolerance` pixels, scores within `scoreTolerance`.
import assert from 'node:assert/strict';

/**
 * Asserts `ours` finds what `theirs` (onnxruntime alone) finds; returns a one-line summary for
 * t.diagnostic. Scores are softmax outputs: equal to the last bits float32 allows for the same
 * logits, so the default tolerance (1e-5) covers sums taken in another order; boxes are whole
 * pixels, equal unless `boxTolerance` says otherwise.
 */
export function assertSameDetections(ours, theirs, where, { scoreTolerance = 1e-5, boxTolerance = 0 } = {}) {
  assert.equal(ours.length, theirs.length, `${where}: ${ours.length} detections against onnxruntime's ${theirs.length}`);
  let worst = 0;
  ours.forEach((d, i) => {
    const t = theirs[i];
    assert.equal(d.label, t.label, `${where}: detection ${i}`);
    if (boxTolerance === 0) {
      assert.deepEqual(d.box, t.box, `${where}: detection ${i}'s box`);
    } else {
      for (const k of ['xmin', 'ymin', 'xmax', 'ymax']) assert.ok(Math.abs(d.box[k] - t.box[k]) <= boxTolerance, `${where}: detection ${i}'s ${k} ${d.box[k]}, onnxruntime ${t.box[k]}`);
    }
    assert.ok(Math.abs(d.score - t.score) <= scoreTolerance, `${where}: detection ${i} scores ${d.score}, onnxruntime ${t.score}`);
    worst = Math.max(worst, Math.abs(d.score - t.score));
  });
  const boxes = boxTolerance === 0 ? 'boxes equal' : `boxes within ${boxTolerance} px`;
  return `${where}: ${ours.length} detections (${[...new Set(ours.map((d) => d.label))].join(', ')}), labels equal, ${boxes}, scores within ${worst.toExponential(2)}`;
}
