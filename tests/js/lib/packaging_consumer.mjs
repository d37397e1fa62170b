// The packaging tests' consumer project: the packed package installed with the optional peers its entry points use, the ONNX documentation example beside it (as a script and as a model), and running and checking that example.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { BASIC, PRINTED_ATOL } from './onnx_examples.mjs';
import { encodeModel } from './onnx_model.mjs';
import { installPacked, removeInBackground } from './packed.mjs';

export const run = promisify(execFile);

export async function sh(file, args, options = {}) {
  try {
    return await run(file, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  } catch (e) {
    throw new Error(`${file} ${args.join(' ')} failed (${e.code}):\n${e.stdout || ''}\n${e.stderr || ''}`, { cause: e });
  }
}

export function assertExampleRow(result, where) {
  assert.ok(!result.error, `${where}: ${result.error}`);
  assert.deepEqual(result.shape, BASIC.yShape, where);
  for (let i = 0; i < BASIC.y.length; ++i) {
    assert.ok(Math.abs(result.data[i] - BASIC.y[i]) <= PRINTED_ATOL, `${where}: element ${i} is ${result.data[i]}, expected ${BASIC.y[i]}`);
  }
}

// The ONNX documentation example, written out for the consumer project (no test imports there).
const EXAMPLE_JS = `// Runs the ONNX GridSample documentation example with a loaded gridsample module.
export function example(gs) {
  const axis = [-1, -0.6, -0.2, 0.2, 0.6, 1];
  const x = { data: Float32Array.from({ length: 16 }, (_, i) => i), shape: [1, 1, 4, 4] };
  const grid = { data: Float32Array.from(axis.flatMap((y) => axis.flatMap((x) => [x, y]))), shape: [1, 6, 6, 2] };
  const y = gs.gridSample(x, grid, { mode: 'bilinear', paddingMode: 'zeros', alignCorners: false });
  return { backend: gs.backend, shape: y.shape, data: Array.from(y.data) };
}
`;

// The ONNX documentation example as a GridSample-16 model.
export const BASIC_MODEL = encodeModel({
  opset: 16,
  nodes: [{ op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Y'], attrs: { mode: 'bilinear' } }],
  inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }, { name: 'grid', dtype: 'float32', dims: [1, 6, 6, 2] }],
  outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 6, 6] }],
});

/**
 * The packed package installed in a new consumer project (a temporary folder named from
 * `prefix`), the ONNX example written beside it: installPacked's {work, app, tarball, pack}.
 */
export async function installConsumer(prefix) {
  // The package installs nothing else (dependencies.test.mjs); what its entry points use here
  // are the user's own optional peers: onnxruntime-web and the ONNX reader for gridsample/onnx,
  // the CLI's JPEG codec.
  const installed = await installPacked(prefix, { peers: ['onnxruntime-web', '@bufbuild/protobuf', 'jpeg-js'] });
  writeFileSync(join(installed.app, 'example.js'), EXAMPLE_JS);
  return installed;
}

/** Removes the consumer project `work`. */
export function removeConsumer(work) {
  // GRIDSAMPLE_KEEP_TMP=1 keeps the consumer project for a look after a failure.
  if (work && !process.env.GRIDSAMPLE_KEEP_TMP) removeInBackground(work);
  else if (work) console.log(`# kept ${work}`);
}
