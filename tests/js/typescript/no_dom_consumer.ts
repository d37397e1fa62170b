// A consumer without the DOM lib (packaging_node.test.mjs compiles it with lib es2022 alone, with Node's types, and with the webworker lib): the declarations must name no DOM type (issue 27: TS2503 "Cannot find namespace 'WebAssembly'").
import { createPool, load } from 'gridsample';
import type { LoadOptions, PoolOptions } from 'gridsample';
import { InferenceSession } from 'gridsample/onnx';
import type { OrtModule } from 'gridsample/onnx';

export async function warp(bytes: Uint8Array, ort: OrtModule): Promise<number> {
  const gs = await load({ variant: 'scalar', wasmBinary: bytes, warmUp: false });
  const y = gs.warpAffine({ data: new Uint8ClampedArray(64), width: 4, height: 4 }, [1, 0, 0, 0, 1, 0]);
  const pool = await createPool({ workers: 1, wasmBinary: bytes });
  const z = await pool.warpPerspective(y, [1, 0, 0, 0, 1, 0, 0, 0, 1], { space: 'pixel', onProgress: (f) => void f });
  await pool.terminate();
  const session = await InferenceSession.create(bytes, { ort, externalData: [{ path: 'w.bin', data: new Uint8Array(4) }, 'x.bin'] });
  await session.release();
  return z.width;
}

// @ts-expect-error: wasmUrl is a string or the host's URL, never a number
export const notAUrl: LoadOptions = { wasmUrl: 42 };
// @ts-expect-error: nor is a pool's
export const notAPoolUrl: PoolOptions = { wasmUrl: ['a.wasm'] };
