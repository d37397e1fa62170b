// The example models through gridsample/onnx with onnxruntime-web's WebGPU provider in Node (SwiftShader): our nodes on gridsample/webgpu on onnxruntime's device, equal to the same session on wasm within the models' tolerances, and nothing read back between parts (GPUBuffer.mapAsync counted).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { compareOutputs, randomFeeds } from '../../js/onnx/timing.mjs';
import { countReadbacks, ortWebGpu } from './lib/ort_webgpu.mjs';
import { encodeModel } from './lib/onnx_model.mjs';

const MODELS = new URL('../../web/demo/models/', import.meta.url);
const INDEX = JSON.parse(readFileSync(new URL('index.json', MODELS), 'utf8')).models;
const bytesOf = (file) => new Uint8Array(readFileSync(new URL(file, MODELS)));

const { setup, skip, ort } = await ortWebGpu('ort.webgpu.mjs');
const gs = await load({ variant: 'simd' });

// Within the models' tolerances (onnx_models.test.mjs): 1e-4 of the scale after convolutions or
// matrix products (onnxruntime's GPU kernels round their own way), float16 half an ulp.
function tolerance(model, scale) {
  if (model.file === 'gridsample_f16.onnx') return scale * 2 ** -11 + 1e-6;
  return (/Conv|MatMul|Gemm/.test(model.ops) ? 1e-4 : 1e-5) * Math.max(1, scale);
}

const table = [];
describe('gridsample/onnx on onnxruntime-web\'s WebGPU provider', { skip }, () => {
  for (const model of INDEX) {
    test(model.file, async () => {
      const bytes = bytesOf(model.file);
      const options = { ort, gridsample: gs, executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' };
      const gpu = await InferenceSession.create(bytes, options);
      // Our nodes on wasm, kept there: the comparison is of our two backends (placement 'auto'
      // would time whole runs of both placements, remaking onnxruntime's WebGPU sessions).
      const wasm = await InferenceSession.create(bytes, { ...options, gridsampleBackend: 'wasm', placement: 'gridsample' });
      const plan = gpu.plan();
      const ours = plan.parts.filter((p) => p.runsOn === 'gridsample');
      assert.ok(ours.length > 0 && ours.every((p) => p.backend === 'webgpu'), JSON.stringify(plan.parts.map((p) => [p.runsOn, p.backend, p.why])));
      assert.ok(wasm.plan().parts.filter((p) => p.runsOn === 'gridsample').every((p) => p.backend === 'wasm'));
      // The attention chains fused on WebGPU as on wasm (deformable_attention.onnx's, one).
      assert.deepEqual(plan.attention, wasm.plan().attention);
      const dims = Object.fromEntries(model.inputs.map((i) => [i.name, i.dims]));
      const ranges = Object.fromEntries(model.inputs.filter((i) => i.range).map((i) => [i.name, i.range]));
      const feeds = randomFeeds(ort, gpu.inputMetadata, { dims, ranges, seed: 28 });
      const f16 = /f16/.test(model.file) && !setup.adapter.features.has('shader-f16');
      if (f16) {
        // onnxruntime's own float16 kernels need the shader-f16 feature, which SwiftShader
        // lacks; ours do not (float16 storage computed in float32: webgpu.test.mjs).
        await assert.rejects(gpu.run(feeds), (e) => /onnxruntime failed in part \d+ .*requires f16 but the device does not support it/.test(e.message));
        table.push(`${model.file}: onnxruntime's own part needs shader-f16, which this adapter lacks`);
        await gpu.release();
        await wasm.release();
        return;
      }
      await gpu.run(feeds); // pipelines compiled
      const [got, onGpu] = await countReadbacks(() => gpu.run(feeds));
      const [want, onWasm] = await countReadbacks(() => wasm.run(feeds));
      for (const t of Object.values(got)) assert.equal(t.location, 'gpu-buffer');
      const cpu = async (out) => Object.fromEntries(await Promise.all(Object.entries(out).map(async ([k, t]) => [k, { type: t.type, dims: t.dims, data: await t.getData() }])));
      const [a, b] = [await cpu(got), await cpu(want)];
      for (const [name, { maxAbsDiff, scale }] of Object.entries(compareOutputs(a, b))) {
        assert.ok(maxAbsDiff <= tolerance(model, scale), `${name}: ${maxAbsDiff} (scale ${scale})`);
      }
      assert.equal(onGpu, 0, `${model.file}: ${onGpu} readbacks in a run with gridsample on WebGPU`);
      table.push(`${model.file}: readbacks per run ${onGpu} (gridsample/webgpu) vs ${onWasm} (gridsample on wasm)`);
      for (const out of [got, want]) for (const t of Object.values(out)) t.dispose();
      await gpu.release();
      await wasm.release();
    });
  }
  test("placement 'auto' with our nodes on wasm decides among onnxruntime WebGPU sessions; its GPU outputs read and dispose", async () => {
    // Deciding releases the placement it drops: a result of released sessions was a crash.
    const model = INDEX.find((m) => m.file === 'liveportrait_warp.onnx');
    const bytes = bytesOf(model.file);
    const options = { ort, gridsample: gs, executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' };
    const auto = await InferenceSession.create(bytes, { ...options, gridsampleBackend: 'wasm' });
    const gpu = await InferenceSession.create(bytes, options);
    const dims = Object.fromEntries(model.inputs.map((i) => [i.name, i.dims]));
    const ranges = Object.fromEntries(model.inputs.filter((i) => i.range).map((i) => [i.name, i.range]));
    const feeds = randomFeeds(ort, auto.inputMetadata, { dims, ranges, seed: 5 });
    const [got, want] = [await auto.run(feeds), await gpu.run(feeds)];
    assert.ok(auto.plan().placement.decided);
    const cpu = async (out) => Object.fromEntries(await Promise.all(Object.entries(out).map(async ([k, t]) => [k, { type: t.type, dims: t.dims, data: await t.getData() }])));
    for (const [name, { maxAbsDiff, scale }] of Object.entries(compareOutputs(await cpu(got), await cpu(want)))) {
      assert.ok(maxAbsDiff <= tolerance(model, scale), `${name}: ${maxAbsDiff} (scale ${scale})`);
    }
    for (const out of [got, want]) for (const t of Object.values(out)) t.dispose();
    await Promise.all([auto.release(), gpu.release()]);
  });

  test('a shape one onnxruntime part makes and a later one reads stays on the CPU: no readback', async () => {
    // Part 1: Relu(X) and Shape(Z) (an int64 shape); part 2: GridSample; part 3: Reshape(Y, shape).
    const model = encodeModel({
      opset: 16,
      nodes: [
        { op: 'Relu', inputs: ['X'], outputs: ['xr'] },
        { op: 'Shape', inputs: ['Z'], outputs: ['s'] },
        { op: 'GridSample', inputs: ['xr', 'grid'], outputs: ['y'] },
        { op: 'Reshape', inputs: ['y', 's'], outputs: ['out'] },
      ],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 2, 4, 4] }, { name: 'grid', dtype: 'float32', dims: [1, 3, 3, 2] }, { name: 'Z', dtype: 'float32', dims: [1, 3, 2, 3] }],
      outputs: [{ name: 'out', dtype: 'float32', dims: [1, 3, 2, 3] }],
      valueInfo: [{ name: 's', dtype: 'int64', dims: [4] }],
    });
    const session = await InferenceSession.create(model, { ort, gridsample: gs, executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' });
    assert.deepEqual(session.plan().parts.map((p) => p.runsOn), ['onnxruntime', 'gridsample', 'onnxruntime']);
    const feeds = {
      X: new ort.Tensor('float32', Float32Array.from({ length: 32 }, (_, i) => i - 9), [1, 2, 4, 4]),
      grid: new ort.Tensor('float32', Float32Array.from({ length: 18 }, (_, i) => i / 9 - 1), [1, 3, 3, 2]),
      Z: new ort.Tensor('float32', new Float32Array(18), [1, 3, 2, 3]),
    };
    await session.run(feeds);
    const [out, count] = await countReadbacks(() => session.run(feeds));
    assert.deepEqual(out.out.dims, [1, 3, 2, 3]);
    const y = gs.gridSample({ data: feeds.X.data.map((v) => Math.max(0, v)), shape: [1, 2, 4, 4] }, { data: feeds.grid.data, shape: [1, 3, 3, 2] });
    assert.deepEqual(Array.from(await out.out.getData()), Array.from(y.data));
    assert.equal(count, 0, 'readbacks in a run');
    out.out.dispose();
    await session.release();
  });

  test('readbacks per run, with and without gridsample/webgpu', () => {
    console.log(table.join('\n'));
    assert.equal(table.length, INDEX.length);
  });
});
