// A TypeScript consumer of gridsample/core: its module type has GridSample and AffineGrid alone (packaging_node.test.mjs compiles it as ESM and as CommonJS).
import * as core from 'gridsample/core';
import type { GridSampleCore, Tensor } from 'gridsample/core';

/** True when A and B are the same type: being assignable is not enough. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
function assert<T extends true>(): void {}

export async function consume(): Promise<void> {
  const gs = await core.load();
  assert<Equal<typeof gs, GridSampleCore>>();
  assert<Equal<typeof gs.backend, 'wasm-simd128' | 'wasm-scalar'>>();
  assert<Equal<typeof gs.variant, 'simd' | 'scalar'>>();
  assert<Equal<typeof gs.threads, 1>>();
  assert<Equal<ReturnType<typeof core.simdSupported>, boolean>>();
  const y = gs.gridSample({ data: new Float32Array(16), shape: [1, 1, 4, 4] }, { data: new Float32Array(8), shape: [1, 2, 2, 2] });
  assert<Equal<typeof y, Tensor<'float32', Float32Array<ArrayBuffer>>>>();
  const g = gs.affineGrid({ data: new Float64Array(6), shape: [1, 2, 3] }, [1, 1, 2, 2], { alignCorners: true });
  assert<Equal<typeof g, Tensor<'float64', Float64Array<ArrayBuffer>>>>();
  const h = gs.tensor('float32', [1, 1, 4, 4]);
  h.dispose();
  core.load({ variant: 'scalar', wasmUrl: (v) => `/assets/gridsample-core-${v}.wasm`, warmUp: false });

  // What the core does not have is not there, in the types as in the object.
  // @ts-expect-error: no warps in gridsample/core
  gs.warpAffine({ data: new Uint8ClampedArray(4), width: 1, height: 1 }, [1, 0, 0, 0, 1, 0]);
  // @ts-expect-error: nor WarpFlow
  void gs.warpFlow;
  // @ts-expect-error: nor deformable attention
  void gs.multiScaleDeformableAttention;
  // @ts-expect-error: one thread, no 'simd-threads' build
  core.load({ variant: 'simd-threads' });
  // @ts-expect-error: one thread
  core.load({ numThreads: 4 });
}
