// Sampling mode and padding names, the one list of them in JavaScript: the spellings the API, the CLI and ONNX accept (opset 16's bilinear / bicubic, opset 20's linear / cubic), each mode's kind, and the taps each kind reads per output value. The C++ parser (ParseMode, ParsePadding) is the authority; tests/js/api_load.test.mjs checks these lists against it.

/** The kind of each mode spelling, in the order messages list them. */
export const MODE_KIND = Object.freeze({ linear: 'linear', bilinear: 'linear', nearest: 'nearest', cubic: 'cubic', bicubic: 'cubic' });
/** Every mode spelling the library accepts. */
export const MODE_NAMES = Object.freeze(Object.keys(MODE_KIND));
/** Every padding name the library accepts. */
export const PADDING_NAMES = Object.freeze(['zeros', 'border', 'reflection']);
/** The mode spellings of each GridSample version (ONNX operator pages), the default first. */
export const ONNX_MODE_NAMES = Object.freeze({
  16: Object.freeze(['bilinear', 'nearest', 'bicubic']),
  20: Object.freeze(['linear', 'nearest', 'cubic']),
  22: Object.freeze(['linear', 'nearest', 'cubic']),
});

/** Taps per output value by spatial rank (2: images, 3: volumes) and kind; 3-D has no cubic here. */
export const TAPS = Object.freeze({
  2: Object.freeze({ linear: 4, nearest: 1, cubic: 16 }),
  3: Object.freeze({ linear: 8, nearest: 1 }),
});

/** Taps per output value of `mode` at spatial rank `rank`, or undefined for a pair not listed. */
export const tapsOf = (rank, mode) => TAPS[rank]?.[MODE_KIND[mode]];
