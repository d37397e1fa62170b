// The element types gridsample/onnx gives a model's undeclared values (js/onnx/value_types.mjs) against onnxruntime's own inference (the outputMetadata of a model whose every value is an untyped graph output), and where a split on WebGPU leaves them: integer shapes on the CPU.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { splitModel } from '../../js/onnx/graph.mjs';
import { decodeModel, loadOnnxReader } from '../../js/onnx/model_proto.mjs';
import { outputLocations } from '../../js/onnx/values.mjs';
import { dynamicShapeAttention } from './lib/onnx_webgpu_sizes.mjs';
import { encodeModel } from './lib/onnx_model.mjs';

const i64 = (name, dims, values) => ({ name, dtype: 'int64', dims, data: BigInt64Array.from(values, BigInt) });

// Operators whose output type is not their first input's, and some that keep it, on float32 X and int64 I.
const NODES = [
  { op: 'Shape', inputs: ['X'], outputs: ['shape'] },
  { op: 'Size', inputs: ['X'], outputs: ['size'] },
  { op: 'ArgMax', inputs: ['X'], outputs: ['argmax'] },
  { op: 'NonZero', inputs: ['I'], outputs: ['nonzero'] },
  { op: 'Cast', inputs: ['X'], outputs: ['cast'], attrs: { to: 6 } },
  { op: 'Equal', inputs: ['I', 'I'], outputs: ['equal'] },
  { op: 'Not', inputs: ['equal'], outputs: ['not'] },
  { op: 'Where', inputs: ['equal', 'X', 'X'], outputs: ['where'] },
  { op: 'CastLike', inputs: ['I', 'X'], outputs: ['castlike'] },
  { op: 'TopK', inputs: ['X', 'k'], outputs: ['topk_values', 'topk_indices'] },
  { op: 'ConstantOfShape', inputs: ['shape'], outputs: ['zeros'] },
  { op: 'Constant', inputs: [], outputs: ['ints'], attrs: { value_ints: { ints: [1, 2] } } },
  { op: 'Constant', inputs: [], outputs: ['float'], attrs: { value_float: { f: 0.5 } } },
  { op: 'Gather', inputs: ['shape', 'k'], outputs: ['gathered'], attrs: { axis: 0 } },
  { op: 'Concat', inputs: ['shape', 'ints'], outputs: ['concat'], attrs: { axis: 0 } },
  { op: 'Unsqueeze', inputs: ['size', 'axes'], outputs: ['unsqueezed'] },
  { op: 'Range', inputs: ['start', 'size', 'one'], outputs: ['range'] },
  { op: 'Mul', inputs: ['gathered', 'one'], outputs: ['product'] },
  { op: 'Relu', inputs: ['X'], outputs: ['relu'] },
  { op: 'Split', inputs: ['I'], outputs: ['half0', 'half1'], attrs: { axis: 1, num_outputs: 2 } },
  { op: 'MaxPool', inputs: ['X4'], outputs: ['pooled', 'pool_indices'], attrs: { kernel_shape: { ints: [1, 1] } } },
];
const OUTPUTS = NODES.flatMap((n) => n.outputs);

describe('the types of undeclared values', () => {
  let proto;
  before(async () => {
    await loadOnnxReader();
    proto = (bytes) => decodeModel(bytes, 'types');
  });

  test("every operator's output type is onnxruntime's", async () => {
    const bytes = encodeModel({
      opset: 18, nodes: NODES,
      inputs: [{ name: 'X', dtype: 'float32', dims: [2, 4] }, { name: 'I', dtype: 'int64', dims: [2, 4] }, { name: 'X4', dtype: 'float32', dims: [1, 1, 2, 2] }],
      outputs: OUTPUTS.map((name) => ({ name })),
      initializers: [i64('k', [1], [1]), i64('axes', [1], [0]), i64('start', [], [0]), i64('one', [], [1])],
    });
    const session = await ort.InferenceSession.create(bytes);
    const theirs = Object.fromEntries(session.outputMetadata.map((m) => [m.name, m.type]));
    await session.release();
    assert.equal(Object.keys(theirs).length, OUTPUTS.length);
    const ours = splitModel(proto(bytes), 'types').types;
    assert.deepEqual(Object.fromEntries(OUTPUTS.map((name) => [name, ours.get(name)])), theirs);
  });

  test('nodes out of topological order are typed all the same; an operator of another domain, and what it feeds, is left unknown', () => {
    const bytes = encodeModel({
      opset: 18,
      nodes: [
        { op: 'Unsqueeze', inputs: ['s', 'axes'], outputs: ['late'] },
        { op: 'Shape', inputs: ['X'], outputs: ['s'] },
        { op: 'Relu', inputs: ['X'], outputs: ['custom'], domain: 'com.example' },
        { op: 'Relu', inputs: ['custom'], outputs: ['after_custom'] },
      ],
      inputs: [{ name: 'X', dtype: 'float32', dims: [2] }],
      outputs: [{ name: 'late' }, { name: 'after_custom' }],
      initializers: [i64('axes', [1], [0])],
      opsetImports: [{ domain: 'com.example', version: 1 }],
    });
    const types = splitModel(proto(bytes), 'types').types;
    assert.deepEqual(['late', 's', 'custom', 'after_custom'].map((name) => types.get(name)), ['int64', 'int64', undefined, undefined]);
  });

  test('a split on WebGPU leaves an undeclared int64 shape on the CPU and float values on the GPU', () => {
    const split = splitModel(proto(dynamicShapeAttention()), 'attention');
    const first = split.parts[0];
    const { preferredOutputLocation: where } = outputLocations({ executionProviders: ['webgpu'] }, split, first, 'webgpu');
    assert.equal(where.dynamic_shape, 'cpu');
    const floats = first.outputs.filter((name) => split.types.get(name) === 'float32');
    assert.ok(floats.length >= 3);
    for (const name of floats) assert.equal(where[name], 'gpu-buffer', name);
  });
});
