// Vite config of the browser example: the one line that puts transformers.js's sessions on gridsample.
export default {
  resolve: {
    // transformers.js 4.x imports 'onnxruntime-web/webgpu' (3.x: find /^onnxruntime-web$/).
    alias: [{ find: /^onnxruntime-web\/webgpu$/, replacement: 'gridsample/ort' }],
  },
};
