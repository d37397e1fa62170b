// The WebGPU hand-over suite of gridsample/onnx, run once per onnxruntime-web WebGPU bundle: our GridSample / AffineGrid results of every element count modulo 4 read by onnxruntime's WebGPU nodes (and onnxruntime's results read by ours), every element against the wasm split and onnxruntime's wasm provider alone, and a deformable-attention model's readbacks against onnxruntime alone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../../js/node.mjs';
import { InferenceSession } from '../../../js/onnx.mjs';
import { randomFeeds } from '../../../js/onnx/timing.mjs';
import { deformableAttention, graph, lcg, uniform } from './model_graph.mjs';
import { encodeModel } from './onnx_model.mjs';
import { countReadbacks, ortWebGpu } from './ort_webgpu.mjs';

// Within 1e-5 of the scale: onnxruntime's GPU kernels (Sigmoid) and our shaders round their own
// way; a value read past a buffer's end is off by the data's own size.
const close = (a, b) => Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b));

// onnxruntime's WebGPU nodes that read a value `v` of dims `dims` (4-D or 5-D), each writing a graph output.
function consumers(v, dims, prefix) {
  const rank = dims.length;
  const perm = Array.from({ length: rank }, (_, i) => rank - 1 - i);
  return [
    { op: 'Add', inputs: [v, `${prefix}_addend`], outputs: [`${prefix}_add`] },
    { op: 'Mul', inputs: [v, 'two'], outputs: [`${prefix}_mul`] },
    { op: 'Relu', inputs: [v], outputs: [`${prefix}_relu`] },
    { op: 'Sigmoid', inputs: [v], outputs: [`${prefix}_sigmoid`] },
    { op: 'Concat', inputs: [v, `${prefix}_addend`], outputs: [`${prefix}_concat`], attrs: { axis: rank - 1 } },
    { op: 'Transpose', inputs: [v], outputs: [`${prefix}_transpose`], attrs: { perm: { ints: perm } } },
    // Broadcast along every axis but the second.
    { op: 'Add', inputs: [v, `${prefix}_bias`], outputs: [`${prefix}_broadcast`] },
  ];
}

const outputsOf = (nodes) => nodes.map((n) => ({ name: n.outputs[0], dtype: 'float32' }));

/** GridSample X (1, C, 3, 4) at grid (1, H, W, 2) -> (1, C, H, W), C*H*W elements, read by onnxruntime's nodes. */
function gridSampleModel([C, H, W]) {
  const y = [1, C, H, W];
  const nodes = [{ op: 'GridSample', inputs: ['X', 'grid'], outputs: ['y'], attrs: { mode: 'linear', padding_mode: 'zeros', align_corners: 0 } }, ...consumers('y', y, 'y')];
  return {
    bytes: encodeModel({
      opset: 20, irVersion: 9, nodes,
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, C, 3, 4] }, { name: 'grid', dtype: 'float32', dims: [1, H, W, 2] }, { name: 'y_addend', dtype: 'float32', dims: y }],
      outputs: outputsOf(nodes.slice(1)),
      initializers: [{ name: 'two', dtype: 'float32', dims: [], data: Float32Array.of(2) }, { name: 'y_bias', dtype: 'float32', dims: [1, C, 1, 1], data: uniform(lcg(C), C, 1) }],
    }),
    ranges: { grid: [-1.2, 1.2] },
  };
}

/** AffineGrid of `size` (2-D or 3-D) -> grid, read by onnxruntime's nodes, and by our GridSample, whose result they read too. */
function affineGridModel(size) {
  const spatial = size.length - 2;
  const grid = [size[0], ...size.slice(2), spatial];
  const y = [size[0], size[1], ...size.slice(2)];
  const nodes = [
    { op: 'AffineGrid', inputs: ['theta', 'size'], outputs: ['grid'], attrs: { align_corners: 0 } },
    { op: 'GridSample', inputs: ['X', 'grid'], outputs: ['y'], attrs: { mode: 'nearest', padding_mode: 'border', align_corners: 0 } },
    ...consumers('grid', grid, 'grid').map((n) => (n.outputs[0] === 'grid_broadcast' ? { ...n, inputs: ['grid', 'grid_bias'] } : n)),
    { op: 'Add', inputs: ['y', 'y_addend'], outputs: ['y_add'] },
  ];
  const biasDims = grid.map((d, i) => (i === 1 ? d : 1));
  const count = biasDims.reduce((a, b) => a * b, 1);
  return {
    bytes: encodeModel({
      opset: 20, irVersion: 9, nodes,
      inputs: [
        { name: 'theta', dtype: 'float32', dims: [size[0], spatial, spatial + 1] },
        { name: 'X', dtype: 'float32', dims: [size[0], size[1], ...size.slice(2).map(() => 3)] },
        { name: 'grid_addend', dtype: 'float32', dims: grid }, { name: 'y_addend', dtype: 'float32', dims: y },
      ],
      outputs: outputsOf(nodes.slice(2)),
      initializers: [
        { name: 'size', dtype: 'int64', dims: [size.length], data: BigInt64Array.from(size, BigInt) },
        { name: 'two', dtype: 'float32', dims: [], data: Float32Array.of(2) },
        { name: 'grid_bias', dtype: 'float32', dims: biasDims, data: uniform(lcg(count), count, 1) },
      ],
    }),
    ranges: { theta: [-1.5, 1.5] },
  };
}

/** onnxruntime's Relu(X) and Sub(grid, 0.1), X of (1, C, H, W), read by our GridSample, whose result onnxruntime reads. */
function ortToOursModel([C, H, W], k) {
  const nodes = [
    { op: 'Relu', inputs: ['X'], outputs: ['xr'] },
    { op: 'Sub', inputs: ['grid', 'shift'], outputs: ['g'] },
    { op: 'GridSample', inputs: ['xr', 'g'], outputs: ['y'], attrs: { mode: 'linear', padding_mode: 'reflection', align_corners: 1 } },
    { op: 'Mul', inputs: ['y', 'two'], outputs: ['y_mul'] },
  ];
  return {
    bytes: encodeModel({
      opset: 20, irVersion: 9, nodes,
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, C, H, W] }, { name: 'grid', dtype: 'float32', dims: [1, 1, k, 2] }],
      outputs: [{ name: 'y_mul', dtype: 'float32' }],
      initializers: [{ name: 'two', dtype: 'float32', dims: [], data: Float32Array.of(2) }, { name: 'shift', dtype: 'float32', dims: [], data: Float32Array.of(0.1) }],
    }),
    ranges: { grid: [-1.5, 1.5] },
  };
}

/**
 * RT-DETR's deformable attention over three levels, its merged-heads shape computed at run time
 * from Shape(query) as exporters write it for dynamic axes, and no value_info: the int64 shape
 * crosses from the first onnxruntime part to the last.
 */
export function dynamicShapeAttention() {
  const g = graph();
  const levels = [[8, 8], [4, 4], [2, 2]];
  const [Q, D] = [10, 32];
  deformableAttention(g, lcg(3), { levels, heads: 2, points: 2, dim: D, queries: Q });
  const reshape = g.nodes.find((n) => n.inputs.includes('heads_merged_shape'));
  reshape.inputs = reshape.inputs.map((v) => (v === 'heads_merged_shape' ? 'dynamic_shape' : v));
  g.initializers.splice(g.initializers.findIndex((t) => t.name === 'heads_merged_shape'), 1);
  g.i64('axis0', [1], [0]);
  g.i64('axis1', [1], [1]);
  g.i64('width', [1], [D]);
  g.nodes.unshift(
    { op: 'Shape', inputs: ['query'], outputs: ['query_shape'], attrs: {} },
    { op: 'Gather', inputs: ['query_shape', 'axis0'], outputs: ['batch'], attrs: { axis: 0 } },
    { op: 'Gather', inputs: ['query_shape', 'axis1'], outputs: ['queries'], attrs: { axis: 0 } },
    { op: 'Concat', inputs: ['batch', 'width', 'queries'], outputs: ['dynamic_shape'], attrs: { axis: 0 } },
  );
  const length = levels.reduce((a, [h, w]) => a + h * w, 0);
  return encodeModel({
    opset: 16, nodes: g.nodes, initializers: g.initializers,
    inputs: [{ name: 'query', dtype: 'float32', dims: [1, Q, D] }, { name: 'reference_points', dtype: 'float32', dims: [1, Q, 1, 2] }, { name: 'value', dtype: 'float32', dims: [1, length, D] }],
    outputs: [{ name: 'output', dtype: 'float32', dims: [1, Q, D] }],
  });
}

/** The suite on onnxruntime-web's bundle `bundle` (a file of its dist/: lib/ort_webgpu.mjs). */
export async function webgpuSizesSuite(bundle) {
  const { skip, ort } = await ortWebGpu(bundle);
  const gs = await load({ variant: 'simd' });
  const base = { ort, gridsample: gs };

  // Every output of the model on WebGPU (split), against the wasm split and onnxruntime's wasm provider alone.
  async function checkAllWays({ bytes, ranges }, label) {
    const gpu = await InferenceSession.create(bytes, { ...base, executionProviders: ['webgpu'] });
    const wasm = await InferenceSession.create(bytes, { ...base, executionProviders: ['wasm'] });
    const alone = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
    try {
      assert.ok(gpu.plan().parts.some((p) => p.runsOn === 'gridsample' && p.backend === 'webgpu'), `${label}: no part of ours on WebGPU`);
      const feeds = randomFeeds(ort, gpu.inputMetadata, { ranges, seed: 7 });
      const results = [await gpu.run(feeds), await wasm.run(feeds), await alone.run(feeds)];
      for (const name of alone.outputNames) {
        const [got, split, want] = results.map((r) => r[name]);
        assert.deepEqual(got.dims, want.dims, `${label} ${name}: dims`);
        for (const [other, what] of [[split, 'the wasm split'], [want, "onnxruntime's wasm provider alone"]]) {
          const bad = [...got.data.keys()].filter((i) => !close(got.data[i], other.data[i]));
          assert.equal(bad.length, 0, `${label} ${name} (${got.data.length} values): ${bad.length} differ from ${what}, first at ${bad[0]}: ${got.data[bad[0]]} vs ${other.data[bad[0]]}`);
        }
      }
    } finally {
      await Promise.all([gpu.release(), wasm.release(), alone.release()]);
    }
  }

  async function readbacksPerRun(session, feeds) {
    await session.run(feeds);
    const [out, count] = await countReadbacks(() => session.run(feeds));
    for (const t of Object.values(out)) t.dispose?.();
    return count;
  }

  describe(`gridsample/onnx and onnxruntime-web's WebGPU nodes (${bundle}) hand each other tensors of every size`, { skip }, () => {
    // (C, H, W) of the results: 1, 2, 3, 4, 5, 6, 7, 15 and 18 elements.
    for (const dims of [[1, 1, 1], [1, 1, 2], [3, 1, 1], [1, 2, 2], [1, 1, 5], [3, 2, 1], [1, 1, 7], [3, 1, 5], [2, 3, 3]]) {
      const count = dims.reduce((a, b) => a * b, 1);
      test(`GridSample's ${count} values (${count % 4} past a vec4) read by Add, Mul, Relu, Sigmoid, Concat, Transpose and a broadcasting Add`, () => checkAllWays(gridSampleModel(dims), `GridSample ${dims}`));
    }
    // 2-D grids of 2, 4 and 6 values; 3-D of 3, 6, 9 and 12.
    for (const size of [[1, 1, 1, 1], [1, 2, 1, 2], [1, 1, 1, 3], [1, 1, 1, 1, 1], [1, 1, 1, 1, 2], [1, 2, 1, 1, 3], [2, 1, 1, 2, 1]]) {
      const count = size[0] * size.slice(2).reduce((a, b) => a * b, 1) * (size.length - 2);
      test(`AffineGrid's ${count} values (${count % 4} past a vec4) read by onnxruntime's nodes and our GridSample (size ${size})`, () => checkAllWays(affineGridModel(size), `AffineGrid ${size}`));
    }
    for (const [dims, k] of [[[1, 1, 1], 1], [[1, 1, 2], 1], [[1, 1, 3], 3], [[1, 1, 5], 2], [[3, 2, 1], 3]]) {
      test(`onnxruntime's Relu of ${dims.reduce((a, b) => a * b, 1)} values and grid of ${2 * k} read by our GridSample`, () => checkAllWays(ortToOursModel(dims, k), `Relu ${dims}, grid ${k}`));
    }
    test('deformable attention over three levels with a shape made at run time: no more readbacks than onnxruntime alone', async () => {
      const bytes = dynamicShapeAttention();
      for (const location of ['gpu-buffer', 'cpu']) {
        const options = { executionProviders: ['webgpu'], preferredOutputLocation: location };
        const split = await InferenceSession.create(bytes, { ...base, ...options });
        const alone = await ort.InferenceSession.create(bytes, options);
        try {
          assert.deepEqual(split.plan().parts.map((p) => p.runsOn), ['onnxruntime', 'gridsample', 'onnxruntime']);
          const feeds = randomFeeds(ort, split.inputMetadata, { ranges: { reference_points: [0, 1] }, seed: 3 });
          const [ours, theirs] = [await readbacksPerRun(split, feeds), await readbacksPerRun(alone, feeds)];
          assert.ok(ours <= theirs, `outputs on '${location}': ${ours} readbacks per run split, ${theirs} with onnxruntime alone`);
        } finally {
          await Promise.all([split.release(), alone.release()]);
        }
      }
    });
  });
}
