// `gridsample onnx inspect|bench` as a user runs it: the packed tarball installed beside onnxruntime-web, on the example models and on bad input.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { installPacked, removeInBackground } from './lib/packed.mjs';
import { TIMED_REASON } from './lib/placement_reasons.mjs';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const MODELS = join(HERE, '..', '..', 'web', 'demo', 'models');

let work;
let bin;

async function cli(args) {
  try {
    const { stdout, stderr } = await run(bin, args, { cwd: work, encoding: 'utf8', maxBuffer: 16 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

before(async () => {
  // onnxruntime-web and the ONNX reader are the user's own (optional peers).
  let app;
  ({ work, app } = await installPacked('gridsample-cli-onnx-', { peers: ['onnxruntime-web', '@bufbuild/protobuf'], manifest: { name: 'cli-onnx-consumer' } }));
  bin = join(app, 'node_modules', '.bin', 'gridsample');
});

after(() => {
  if (work && !process.env.GRIDSAMPLE_KEEP_TMP) removeInBackground(work);
});

describe('gridsample onnx inspect', () => {
  test('a spatial transformer: both nodes, their shapes, onnxruntime runs them; the split or one part, as the first run measured', async () => {
    const r = await cli(['onnx', 'inspect', join(MODELS, 'stn28.onnx')]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^"stn28\.onnx": opset 20, IR version \d+, 16 nodes$/m);
    assert.match(r.stdout, /AffineGrid-20 align_corners=0\n +theta float32 \[1, 2, 3\], size int64 \[4\] = \[1, 1, 28, 28\] -> grid float32 \[1, 28, 28, 2\]\n +onnxruntime: runs/);
    assert.match(r.stdout, /GridSample-20 mode=linear padding_mode=zeros align_corners=0\n +X float32 \[1, 1, 28, 28\], grid float32 \[1, 28, 28, 2\] -> Y float32 \[1, 1, 28, 28\]\n +onnxruntime: runs/);
    const why = TIMED_REASON;
    const nodes = `\\n +AffineGrid "grid\\/AffineGrid": ${why}\\n +GridSample "Y\\/GridSample": ${why}`;
    const merged = new RegExp(`Split into 1 part \\(1 onnxruntime session\\):\\n +1\\. onnxruntime 16 nodes: .*AffineGrid.*GridSample.*${nodes}`);
    const split = new RegExp(`Split into 3 parts \\(2 onnxruntime sessions\\):\\n +1\\. onnxruntime .*\\n +2\\. gridsample +2 nodes: AffineGrid, GridSample${nodes}\\n +3\\. onnxruntime`);
    assert.ok(merged.test(r.stdout) || split.test(r.stdout), r.stdout);
  });

  test("what onnxruntime cannot run, in its own words; --shape and --json", async () => {
    const r = await cli(['onnx', 'inspect', join(MODELS, 'gridsample_3d_cubic.onnx'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.onnxruntime, 'onnxruntime-web');
    const [node] = report.gridsampleNodes;
    assert.equal(node.attributes, 'mode=cubic padding_mode=border align_corners=1');
    assert.deepEqual(node.output.dims, [1, 8, 16, 32, 32]);
    assert.match(node.onnxruntime, /^fails: .*Cubic mode in 4-D/);
    const flow = await cli(['onnx', 'inspect', join(MODELS, 'flow_warp.onnx'), '--shape', 'image=2x3x20x30', '--shape=flow=2x2x20x30']);
    assert.equal(flow.code, 0, flow.stderr);
    assert.match(flow.stdout, /image float32 \[2, 3, 20, 30\], grid float32 \[2, 20, 30, 2\] -> \S+ float32 \[2, 3, 20, 30\]/);
  });

  test('a model without GridSample says it runs as one session; one node, one part', async () => {
    const { encodeModel } = await import('./lib/onnx_model.mjs');
    writeFileSync(join(work, 'relu.onnx'), encodeModel({
      opset: 20, nodes: [{ op: 'Relu', inputs: ['X'], outputs: ['Y'] }],
      inputs: [{ name: 'X', dtype: 'float32', dims: [2] }], outputs: [{ name: 'Y', dtype: 'float32', dims: [2] }],
    }));
    const r = await cli(['onnx', 'inspect', 'relu.onnx']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^"relu\.onnx": opset 20, IR version \d+, 1 node$/m);
    assert.match(r.stdout, /GridSample \/ AffineGrid nodes: 0 \(the model runs on onnxruntime alone, as one session\)/);
    assert.match(r.stdout, /^Split into 1 part \(1 onnxruntime session\):\n +1\. onnxruntime 1 node: Relu$/m);
  });

  test('the model is named one way: quoted in text, as it is in JSON', async () => {
    const text = await cli(['onnx', 'inspect', join(MODELS, 'stn28.onnx')]);
    assert.match(text.stdout, /^"stn28\.onnx": /);
    const json = JSON.parse((await cli(['onnx', 'inspect', join(MODELS, 'stn28.onnx'), '--json'])).stdout);
    assert.equal(json.model, 'stn28.onnx');
    const bench = JSON.parse((await cli(['onnx', 'bench', join(MODELS, 'stn28.onnx'), '--runs', '1', '--warmup', '0', '--json'])).stdout);
    assert.equal(bench.model, 'stn28.onnx');
  });
});

describe('gridsample onnx bench', () => {
  test('medians, ratio, parts and the difference from onnxruntime', async () => {
    const r = await cli(['onnx', 'bench', join(MODELS, 'flow_warp.onnx'), '--shape', 'image=1x3x64x96', '--shape', 'flow=1x2x64x96', '--runs', '4', '--warmup', '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^"flow_warp\.onnx" on onnxruntime-web, \d+ runs of each after warming up:$/m);
    assert.match(r.stdout, /onnxruntime alone: [\d.]+ ms median, p90 [\d.]+ ms/);
    assert.match(r.stdout, /split session: +[\d.]+ ms median, p90 [\d.]+ ms/);
    assert.match(r.stdout, /ratio: +[\d.]+x \(onnxruntime alone \/ split\)/);
    // The parts as placement kept them at the first run: the split (its GridSample part timed
    // against onnxruntime on the same part) or one onnxruntime part.
    assert.match(r.stdout, /2\. gridsample +[\d.]+ +GridSample +onnxruntime [\d.]+ \([\d.]+x\)|1\. onnxruntime +[\d.]+ +\S.*GridSample\n +output/);
    const diff = Number(/output \S+: max abs diff (\S+)/.exec(r.stdout)[1]);
    assert.ok(diff <= 1e-5, `max abs diff ${diff}`);
  });

  test('a model onnxruntime cannot run: its reason, and the split session alone (--json)', async () => {
    const r = await cli(['onnx', 'bench', join(MODELS, 'gridsample_1d.onnx'), '--runs', '2', '--warmup', '0', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '', 'onnxruntime logs nothing of its own');
    const result = JSON.parse(r.stdout);
    assert.match(result.onnxruntime.error, /Only 4-D or 5-D tensor is supported/);
    assert.ok(result.split.median > 0);
    assert.deepEqual(result.parts.map((p) => p.runsOn), ['onnxruntime', 'gridsample', 'onnxruntime']);
  });
});

// A NumPy .npy file (format 1.0) of a typed array, written here byte by byte from the format's
// description, so that the test needs no Python.
function npy(descr, dims, data, { fortran = false } = {}) {
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n'; // data starts at a multiple of 64
  const head = new Uint8Array(10 + header.length);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
  head.set(new TextEncoder().encode(header), 10);
  return Buffer.concat([head, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)]);
}

describe('gridsample onnx: scalar inputs and control flow', () => {
  before(async () => {
    const { encodeModel } = await import('./lib/onnx_model.mjs');
    // The grid scaled by a scalar (rank 0) input: Mul broadcasts it.
    writeFileSync(join(work, 'scalar.onnx'), encodeModel({
      opset: 20,
      nodes: [{ op: 'Mul', inputs: ['grid', 'strength'], outputs: ['scaled'] }, { op: 'GridSample', inputs: ['X', 'scaled'], outputs: ['Y'], name: 'warp' }],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }, { name: 'grid', dtype: 'float32', dims: [1, 2, 2, 2] }, { name: 'strength', dtype: 'float32', dims: [] }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 2, 2] }],
    }));
    // align_corners 2: onnxruntime reads any non-zero value as 1 (issue 44).
    writeFileSync(join(work, 'align2.onnx'), encodeModel({
      opset: 20,
      nodes: [{ op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Y'], name: 'warp', attrs: { align_corners: 2 } }],
      inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }, { name: 'grid', dtype: 'float32', dims: [1, 2, 2, 2] }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 2, 2] }],
    }));
    // A GridSample in each branch of an If, as in onnx_session_errors.test.mjs.
    const body = (name) => ({
      node: [{ opType: 'GridSample', input: ['X', 'grid'], output: [`${name}_y`], name: `${name}_gs` }],
      name,
      output: [{ name: `${name}_y`, type: { tensorType: { elemType: 1 } } }],
    });
    writeFileSync(join(work, 'if_gs.onnx'), encodeModel({
      opset: 20, name: 'if_model',
      nodes: [{ op: 'If', inputs: ['cond'], outputs: ['Y'], attrs: { then_branch: { g: body('then') }, else_branch: { g: body('else') } } }],
      inputs: [{ name: 'cond', dtype: 'bool', dims: [] }, { name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }, { name: 'grid', dtype: 'float32', dims: [1, 2, 2, 2] }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 2, 2] }],
    }));
  });

  test('a declared scalar input needs no --shape; NAME= gives rank 0; the split session matches onnxruntime', async () => {
    const inspect = await cli(['onnx', 'inspect', 'scalar.onnx']);
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.match(inspect.stdout, /inputs: +X float32 \[1, 1, 4, 4\]; grid float32 \[1, 2, 2, 2\]; strength float32 \[\]/);
    assert.match(inspect.stdout, /X float32 \[1, 1, 4, 4\], scaled float32 \[1, 2, 2, 2\] -> Y float32 \[1, 1, 2, 2\]\n +onnxruntime: runs/);
    for (const shape of [[], ['--shape', 'strength=']]) {
      const r = await cli(['onnx', 'bench', 'scalar.onnx', ...shape, '--runs', '2', '--warmup', '0', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const result = JSON.parse(r.stdout);
      assert.equal(result.onnxruntime.error, undefined);
      assert.ok(result.outputs.Y.maxAbsDiff <= 1e-6 && result.outputs.Y.scale > 0, JSON.stringify(result.outputs));
    }
    // A raw file of one float32 is the scalar's value.
    writeFileSync(join(work, 'strength.bin'), new Uint8Array(Float32Array.of(0.5).buffer));
    const raw = await cli(['onnx', 'bench', 'scalar.onnx', '--input', 'strength=strength.bin', '--runs', '1', '--warmup', '0', '--json']);
    assert.equal(raw.code, 0, raw.stderr);
  });

  test('align_corners 2 is read as onnxruntime reads it, as 1', async () => {
    const r = await cli(['onnx', 'inspect', 'align2.onnx']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /GridSample-20 mode=linear padding_mode=zeros align_corners=1\n.*\n +onnxruntime: runs/);
  });

  test('inspect says that InferenceSession.create() refuses a GridSample inside an If, and what --subgraphs onnxruntime does', async () => {
    const r = await cli(['onnx', 'inspect', 'if_gs.onnx']);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /^"if_gs\.onnx": opset 20, IR version \d+, 1 node\n/);
    assert.match(r.stdout, /GridSample \/ AffineGrid nodes: 0 in the main graph\n +and 2 inside If \/ Loop \/ Scan bodies:\n +node "then_gs" \(GridSample\) in the "then_branch" body of node "n0" \(If\)\n +node "else_gs" \(GridSample\) in the "else_branch" body of node "n0" \(If\)\n/);
    assert.match(r.stdout, /InferenceSession\.create\(\) refuses the model: "if_gs\.onnx": node "then_gs" \(GridSample\) .*gridsample\/onnx splits the main graph only; .* pass --subgraphs onnxruntime to leave it to onnxruntime\n$/);
    const json = JSON.parse((await cli(['onnx', 'inspect', 'if_gs.onnx', '--json'])).stdout);
    assert.equal(json.subgraphs, 'error');
    assert.equal(json.nestedNodes.length, 2);
    assert.match(json.createError, /splits the main graph only/);
    const left = await cli(['onnx', 'inspect', 'if_gs.onnx', '--subgraphs', 'onnxruntime']);
    assert.equal(left.code, 0, left.stderr);
    assert.match(left.stdout, /and 2 inside If \/ Loop \/ Scan bodies, left to onnxruntime \(--subgraphs onnxruntime\):/);
    assert.match(left.stdout, /Split into 1 part \(1 onnxruntime session\):\n +1\. onnxruntime 1 node: If\n/);
  });

  test('bench refuses the If model as create() does, and runs it with --subgraphs onnxruntime', async () => {
    const refused = await cli(['onnx', 'bench', 'if_gs.onnx', '--runs', '1', '--warmup', '0']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^gridsample: gridsample\/onnx: "if_gs\.onnx": node "then_gs" \(GridSample\) in the "then_branch" body of node "n0" \(If\): .*pass --subgraphs onnxruntime to leave it to onnxruntime\n$/);
    const r = await cli(['onnx', 'bench', 'if_gs.onnx', '--subgraphs', 'onnxruntime', '--runs', '2', '--warmup', '0', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.deepEqual(result.parts.map((p) => p.runsOn), ['onnxruntime']);
    assert.equal(result.outputs.Y.maxAbsDiff, 0);
  });
});

describe('gridsample onnx: inputs from files (--input)', () => {
  test('a .npy image and a raw flow file feed both sessions; zero flow gives the image back', async () => {
    const [h, w] = [8, 12];
    const image = Float32Array.from({ length: 3 * h * w }, (_, i) => Math.sin(i));
    writeFileSync(join(work, 'image.npy'), npy('<f4', [1, 3, h, w], image));
    writeFileSync(join(work, 'flow.bin'), new Uint8Array(new Float32Array(2 * h * w).buffer));
    const inspect = await cli(['onnx', 'inspect', join(MODELS, 'flow_warp.onnx'), '--input', 'image=image.npy', '--input=flow=flow.bin', '--shape', `flow=1x2x${h}x${w}`]);
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.match(inspect.stdout, new RegExp(`image float32 \\[1, 3, ${h}, ${w}\\], grid float32 \\[1, ${h}, ${w}, 2\\]`));
    const r = await cli(['onnx', 'bench', join(MODELS, 'flow_warp.onnx'), '--input', 'image=image.npy', '--input', 'flow=flow.bin', '--shape', `flow=1x2x${h}x${w}`, '--runs', '2', '--warmup', '0', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    const [output] = Object.values(result.outputs);
    assert.ok(output.maxAbsDiff <= 1e-6, `split vs onnxruntime: ${output.maxAbsDiff}`);
    // Zero flow and align_corners=1 sample every pixel centre: the output's scale is the image's.
    assert.ok(Math.abs(output.scale - Math.max(...image.map(Math.abs))) <= 1e-6, `scale ${output.scale}`);
  });

  const cases = [
    ['an input the model does not have', ['--input', 'picture=image.npy'], /^gridsample: --input picture: the model has no input "picture"; its inputs are "image", "flow"\n$/],
    ['a missing file', ['--input', 'image=nope.npy'], /^gridsample: --input image: cannot read nope\.npy: no such file\n$/],
    ['not a .npy file', ['--input', 'image=junk.npy'], /^gridsample: junk\.npy is not a usable \.npy file \(it does not start with \\x93NUMPY\)\n$/],
    ['a Fortran-order .npy', ['--input', 'image=fortran.npy'], /^gridsample: fortran\.npy is not a usable \.npy file \(it is in Fortran order; save it with np\.ascontiguousarray\)\n$/],
    ['a truncated .npy', ['--input', 'image=short.npy'], /^gridsample: short\.npy is not a usable \.npy file \(it is truncated: its shape \(1, 3, 4, 4\) needs 192 bytes of data, it has 8\)\n$/],
    ['a complex .npy', ['--input', 'image=complex.npy'], /element type '<c8' is not one of <f4, <f8, <f2/],
    ['raw data without a shape', ['--input', 'flow=flow.bin'], /^gridsample: --input flow: flow\.bin is raw data and the model leaves the input's shape open \(float32 \[N, 2, H, W\]\); give it with --shape flow=\.\.\.\n$/],
    ['raw data of the wrong size', ['--input', 'flow=flow.bin', '--shape', 'flow=1x2x3x3'], /^gridsample: --input flow: flow\.bin has 768 bytes; float32 \[1, 2, 3, 3\] needs 72\n$/],
    ['a bad --input', ['--input', 'image'], 2],
  ];
  before(() => {
    writeFileSync(join(work, 'fortran.npy'), npy('<f4', [1, 3, 4, 4], new Float32Array(48), { fortran: true }));
    writeFileSync(join(work, 'short.npy'), npy('<f4', [1, 3, 4, 4], new Float32Array(2)));
    writeFileSync(join(work, 'complex.npy'), npy('<c8', [2], new Float32Array(4)));
    writeFileSync(join(work, 'junk.npy'), Uint8Array.from({ length: 100 }, (_, i) => i));
  });
  for (const [what, args, expected] of cases) {
    test(what, async () => {
      const r = await cli(['onnx', 'bench', join(MODELS, 'flow_warp.onnx'), '--runs', '1', ...args]);
      if (typeof expected === 'number') {
        assert.equal(r.code, expected);
        assert.match(r.stderr, /^gridsample: --input: expected NAME=FILE, e\.g\. image=image\.npy; got "image"\n/);
        return;
      }
      assert.equal(r.code, 1, `${r.stdout}${r.stderr}`);
      assert.match(r.stderr, expected);
      assert.equal(r.stdout, '');
    });
  }
});

describe('gridsample onnx: bad input is one line and an exit status', () => {
  const cases = [
    ['no command', ['onnx', 'frobnicate', 'm.onnx'], 2, /^gridsample: onnx: unknown command "frobnicate"; the commands are inspect and bench\n/],
    ['no model', ['onnx', 'inspect'], 2, /^gridsample: onnx inspect: expected one MODEL\.onnx, got none\n/],
    ['a bad --shape', ['onnx', 'bench', 'm.onnx', '--shape', 'X=1x-3'], 2, /^gridsample: --shape: expected NAME=D1xD2x\.\.\., e\.g\. image=1x3x224x224 \(NAME= for a scalar\); got "X=1x-3"\n/],
    ['a bad --runs', ['onnx', 'bench', 'm.onnx', '--runs', '0'], 2, /^gridsample: --runs: expected a whole number from 1, got "0"\n/],
    ['a bad --subgraphs', ['onnx', 'inspect', 'm.onnx', '--subgraphs', 'skip'], 2, /^gridsample: --subgraphs: expected error or onnxruntime, got "skip"\n/],
    ['an unknown option', ['onnx', 'bench', 'm.onnx', '--fast'], 2, /^gridsample: onnx bench: unknown option --fast\n/],
    ['a missing file', ['onnx', 'inspect', 'missing.onnx'], 1, /^gridsample: cannot read missing\.onnx: no such file\n$/],
    ['a file that is not a model', ['onnx', 'inspect', 'junk.onnx'], 1, /^gridsample: gridsample\/onnx: "junk\.onnx": not a valid ONNX model \(.*\)\n$/],
    ['onnxruntime-node not installed', ['onnx', 'bench', join(MODELS, 'stn28.onnx'), '--ort', 'node'], 1, /^gridsample: bench needs onnxruntime: onnxruntime-node \(not installed\); npm install onnxruntime-node \(or onnxruntime-web\)\n$/],
    ['a wrong --shape rank', ['onnx', 'bench', join(MODELS, 'stn28.onnx'), '--shape', 'X=1x28x28'], 1, /^gridsample: input "X": the model declares 4 dimensions \[N, 1, 28, 28\], got 3: \[1, 28, 28\]\n$/],
  ];
  before(() => writeFileSync(join(work, 'junk.onnx'), Uint8Array.from({ length: 300 }, (_, i) => (i * 7919) % 251)));
  for (const [what, args, code, stderr] of cases) {
    test(what, async () => {
      const r = await cli(args);
      assert.equal(r.code, code, `${r.stdout}${r.stderr}`);
      assert.match(r.stderr, stderr);
      assert.equal(r.stdout, '');
    });
  }
});
