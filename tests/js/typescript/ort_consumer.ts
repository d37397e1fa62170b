// A TypeScript consumer of gridsample/ort and gridsample/transformers, the onnxruntime-shaped modules (packaging_node.test.mjs compiles it as an ES module).
import ort, { env, InferenceSession, Tensor } from 'gridsample/ort';
import type { OrtShapedSession } from 'gridsample/ort';
import transformersOrt from 'gridsample/transformers';
import type * as onnxruntimeWeb from 'onnxruntime-web';

/** True when A and B are the same type: being assignable is not enough. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
function assert<T extends true>(): void {}

export async function consumeOrt(bytes: Uint8Array): Promise<void> {
  // No options.ort: the module is onnxruntime-web's, and results are its tensors.
  const session = await InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  assert<Equal<typeof session, OrtShapedSession<onnxruntimeWeb.Tensor>>>();
  const results = await session.run({ X: new Tensor('float32', new Float32Array(4), [1, 1, 2, 2]) });
  assert<Equal<typeof results, Record<string, onnxruntimeWeb.Tensor>>>();
  await session.handler.dispose();
  // Everything else is onnxruntime-web's own, the default export too.
  const tensorClass: typeof onnxruntimeWeb.Tensor = ort.Tensor;
  env.wasm.numThreads = 1;
  const fromBuffer = await ort.InferenceSession.create(bytes.buffer as ArrayBuffer, 0, bytes.byteLength, { gridsampleBackend: 'wasm' });
  await fromBuffer.release();
  void tensorClass;
  // @ts-expect-error: subgraphs is 'error' or 'onnxruntime'
  await InferenceSession.create(bytes, { subgraphs: 'skip' });

  // gridsample/transformers: onnxruntime-node's module, typed by what gridsample uses of it.
  const nodeSession = await transformersOrt.InferenceSession.create(bytes);
  await nodeSession.handler.dispose();
}
