// A Node-only consumer (lib es2022 and @types/node, no DOM lib; packaging_node.test.mjs): Node's URL, AbortSignal and Blob are what the declarations take where they take the host's classes.
import { createPool, load } from 'gridsample';
import { InferenceSession } from 'gridsample/onnx';
import type { OrtModule } from 'gridsample/onnx';

export async function fromUrls(ort: OrtModule): Promise<void> {
  await load({ variant: 'simd', wasmUrl: new URL('file:///opt/gridsample-simd.wasm') });
  await load({ wasmUrl: (variant) => new URL(`file:///opt/gridsample-${variant}.wasm`) });
  const pool = await createPool({ wasmUrl: new URL('file:///opt/gridsample-simd.wasm') });
  const controller = new AbortController();
  await pool.warpAffine({ data: new Uint8Array(64), width: 4, height: 4 }, [1, 0, 0, 0, 1, 0], { signal: controller.signal });
  await pool.terminate();
  const session = await InferenceSession.create(new URL('file:///opt/model.onnx'), {
    ort, externalData: [{ path: 'a.bin', data: new Blob([new Uint8Array(4)]) }, { path: 'b.bin', data: new URL('file:///opt/b.bin') }],
  });
  await session.release();
}
