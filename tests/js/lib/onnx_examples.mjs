// The GridSample-16 examples of the ONNX operator documentation (/work/shared/spec/001_*.txt), as expected values.

const AXIS = [-1, -0.6, -0.2, 0.2, 0.6, 1];

/** `gridsample`: X = 0..15 (1,1,4,4), a 6x6 grid over AXIS, bilinear, zeros, align 0. */
export const BASIC = {
  x: { data: Float32Array.from({ length: 16 }, (_, i) => i), shape: [1, 1, 4, 4] },
  grid: { data: Float32Array.from(AXIS.flatMap((y) => AXIS.flatMap((x) => [x, y]))), shape: [1, 6, 6, 2] },
  y: [
    0.0, 0.15, 0.55, 0.95, 1.35, 0.75,
    0.6, 1.5, 2.3, 3.1, 3.9, 2.1,
    2.2, 4.7, 5.5, 6.3, 7.1, 3.7,
    3.8, 7.9, 8.7, 9.5, 10.3, 5.3,
    5.4, 11.1, 11.9, 12.7, 13.5, 6.9,
    3.0, 6.15, 6.55, 6.95, 7.35, 3.75,
  ],
  yShape: [1, 1, 6, 6],
};

const X32 = { data: Float32Array.from([0, 1, 2, 3, 4, 5]), shape: [1, 1, 3, 2] };

/** `gridsample_paddingmode`: bilinear, align 0, three paddings. */
export const PADDING = {
  x: X32,
  grid: {
    data: Float32Array.from([-10, -10, -5, -5, -0.2, -0.2, 10, 10, 10, 10, -0.2, -0.2, 5, 5, 10, 10]),
    shape: [1, 2, 4, 2],
  },
  y: {
    zeros: [0, 0, 1.7, 0, 0, 1.7, 0, 0],
    border: [0, 0, 1.7, 5, 5, 1.7, 5, 5],
    reflection: [2.5, 0, 1.7, 2.5, 2.5, 1.7, 5, 2.5],
  },
  yShape: [1, 1, 2, 4],
};

/** `gridsample_mode_aligncorners`: zeros padding; bilinear (align 0 and 1), nearest, bicubic. */
export const MODES = {
  x: X32,
  grid: {
    data: Float32Array.from([-1, -1, -0.5, -0.5, -0.2, -0.2, 0, 0, 0, 0, -0.2, -0.2, 0.5, 0.5, 1, 1]),
    shape: [1, 2, 4, 2],
  },
  y: {
    bilinear: [0, 0.5, 1.7, 2.5, 2.5, 1.7, 4.5, 1.25],
    bilinearAlign: [0, 1.25, 2, 2.5, 2.5, 2, 3.75, 5],
    nearest: [0, 0, 2, 2, 2, 2, 5, 0],
    bicubic: [-0.1406, 0.3828, 1.7556, 2.9688, 2.9688, 1.7556, 5.1445, 1.3906],
  },
  yShape: [1, 1, 2, 4],
};

/** Digits the documentation prints (4 decimals): the tolerance its values support. */
export const PRINTED_ATOL = 1e-4;
