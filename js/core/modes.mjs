// Sampling modes by kind: the spellings the API and ONNX accept (opset 16's bilinear / bicubic, opset 20's linear / cubic) and the taps each kind reads per output value.

/** The kind of each mode spelling. */
export const MODE_KIND = Object.freeze({ linear: 'linear', bilinear: 'linear', nearest: 'nearest', cubic: 'cubic', bicubic: 'cubic' });

/** Taps per output value by spatial rank (2: images, 3: volumes) and kind; 3-D has no cubic here. */
export const TAPS = Object.freeze({
  2: Object.freeze({ linear: 4, nearest: 1, cubic: 16 }),
  3: Object.freeze({ linear: 8, nearest: 1 }),
});

/** Taps per output value of `mode` at spatial rank `rank`, or undefined for a pair not listed. */
export const tapsOf = (rank, mode) => TAPS[rank]?.[MODE_KIND[mode]];
