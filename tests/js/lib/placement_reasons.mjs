// The reason placement 'auto' gives for a node it placed from timed runs (js/onnx/placement.mjs), as a regular expression's source for the tests that read it in plan(), the CLI and the demo.

/**
 * "placement 'auto' timed whole runs on the first feeds: A ms split[ (timed again after
 * onnxruntime's runs; B ms in its first)], C ms with it on onnxruntime (medians of n and m)",
 * unanchored; for `new RegExp`.
 */
export const TIMED_REASON = "placement 'auto' timed whole runs on the first feeds: \\S+ ms split( \\(timed again after onnxruntime's runs; \\S+ ms in its first\\))?, \\S+ ms with it on onnxruntime \\(medians of \\d+ and \\d+\\)";
