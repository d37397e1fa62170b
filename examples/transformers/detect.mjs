// Object detection in Node.js with transformers.js, its GridSample nodes (a deformable attention's fused into one) on gridsample: node detect.mjs IMAGE [MODEL] [LOCAL_MODELS_DIR]
//
// MODEL defaults to RT-DETR (onnx-community/rtdetr_r18vd, from the Hugging Face hub); with
// LOCAL_MODELS_DIR, MODEL is a folder there and nothing is downloaded.
import 'gridsample/transformers'; // first: transformers.js reads the onnxruntime it uses once, when imported
import { env, pipeline } from '@huggingface/transformers';

const [image, model = 'onnx-community/rtdetr_r18vd', localModels] = process.argv.slice(2);
if (!image) {
  console.error('usage: node detect.mjs IMAGE [MODEL] [LOCAL_MODELS_DIR]');
  process.exit(2);
}
if (localModels) {
  env.localModelPath = localModels;
  env.allowRemoteModels = false;
}

// device 'auto': with the hook set, transformers.js refuses its Node default, 'cpu'.
const detector = await pipeline('object-detection', model, { device: 'auto', dtype: 'fp32' });
const session = detector.model.sessions.model;
const { counts } = session.plan();
console.log(`${model}: ${counts.gridsampleNodes} of its nodes on gridsample, ${counts.onnxruntimeNodes} nodes in ${counts.onnxruntimeSessions} onnxruntime sessions`);
for (const { label, score, box } of await detector(image, { threshold: 0.5 })) {
  console.log(`${label.padEnd(12)} ${score.toFixed(3)}  (${box.xmin}, ${box.ymin}) to (${box.xmax}, ${box.ymax})`);
}
// Where each GridSample node (or fused attention) runs, and why: the first call timed whole runs
// of the split and of onnxruntime alone on its inputs and kept the faster.
for (const node of session.plan().parts.flatMap((part) => part.nodes).filter((n) => n.placement)) {
  console.log(`${node.name}: ${node.placement.runsOn}, ${node.placement.why}`);
}
await detector.dispose();
