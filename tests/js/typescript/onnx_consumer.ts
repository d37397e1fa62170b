// A TypeScript consumer of gridsample/onnx with onnxruntime-web's own types (packaging_node.test.mjs compiles it as ESM and as CommonJS).
import * as ort from 'onnxruntime-web';
import { InferenceSession } from 'gridsample/onnx';
import type { PlacementDecision, Plan, Profile } from 'gridsample/onnx';

/** True when A and B are the same type: being assignable is not enough. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
function assert<T extends true>(): void {}

export async function consume(bytes: Uint8Array): Promise<void> {
  // The session is typed by the onnxruntime module it is given: feeds and results are its tensors.
  const session = await InferenceSession.create(bytes, { ort, executionProviders: ['wasm'] });
  assert<Equal<typeof session, InferenceSession<ort.Tensor>>>();
  const results = await session.run({ X: new ort.Tensor('float32', new Float32Array(4), [1, 1, 2, 2]) }, { profile: true });
  assert<Equal<typeof results, Record<string, ort.Tensor>>>();
  const y: ort.Tensor | undefined = results.Y;
  const only = await session.run({}, ['Y']);
  assert<Equal<typeof only, Record<string, ort.Tensor>>>();
  assert<Equal<ReturnType<typeof session.plan>, Plan>>();
  assert<Equal<typeof session.lastProfile, Profile | null>>();
  const names: readonly string[] = [...session.inputNames, ...session.outputNames];
  const part = session.plan().parts[0];
  const where: 'onnxruntime' | 'gridsample' | undefined = part?.runsOn;
  // What placement 'auto' measured: whole-run medians of both placements, or null.
  const decision: PlacementDecision | undefined = session.plan().placement;
  const splitMs: number | undefined = decision?.measured?.split.median;
  await session.release();
  void y; void names; void where; void splitMs;

  // @ts-expect-error: the onnxruntime module is required
  await InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  // @ts-expect-error: feeds are tensors, not typed arrays
  await session.run({ X: new Float32Array(4) });
  // @ts-expect-error: subgraphs is 'error' or 'onnxruntime'
  await InferenceSession.create(bytes, { ort, subgraphs: 'skip' });
  // External data as onnxruntime-web takes it: bytes, a Blob, a path or URL, or a path alone.
  await InferenceSession.create('model.onnx', { ort, externalData: [{ path: 'model.onnx_data', data: new Uint8Array(8) }, { path: 'b.bin', data: new Blob([]) }, 'c.bin'] });
  // @ts-expect-error: external data is a file, not a number
  await InferenceSession.create(bytes, { ort, externalData: [{ path: 'model.onnx_data', data: 8 }] });
  // @ts-expect-error: the session is made by create(), not new
  new InferenceSession();
}
