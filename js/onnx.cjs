// CommonJS entry point of gridsample/onnx: InferenceSession.create is asynchronous anyway, so it imports the ES module.
'use strict';

/** The ES module's InferenceSession (its create() is the way in; see onnx.d.cts). */
const InferenceSession = {
  /**
   * @param {Uint8Array | ArrayBuffer | URL | string} model
   * @param {import('./onnx.cjs').SessionOptions} options
   */
  create(model, options) {
    return import('./onnx.mjs').then((m) => m.InferenceSession.create(model, options));
  },
};

module.exports = { InferenceSession };
