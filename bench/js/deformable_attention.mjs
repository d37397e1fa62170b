// Multi-scale deformable attention's sampling alone (issue 45): gs.multiScaleDeformableAttention (wasm SIMD, 1 and 2 threads) against the chain exporters write (per-level GridSample, Concat, Mul, ReduceSum) on onnxruntime-web and onnxruntime-node, at an RT-DETR decoder's and a Deformable-DETR encoder's sizes, and its section of bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import * as ortWeb from 'onnxruntime-web';

import { load } from '../../js/node.mjs';
import { threadControl } from '../../js/core/api.mjs';
import { argumentsOf } from '../../tests/js/lib/deformable_attention_chain.mjs';
import { chainModel } from '../../tests/js/lib/deformable_chain_model.mjs';
import { floorCopyBytes, wasmCopier } from './copy_floor.mjs';
import { BLOCKS, blockCase, heapCall } from './frame_calls.mjs';
import { ms, ratio } from './report_format.mjs';
import { calibrate, stats, timeInRounds } from './timing.mjs';

const require = createRequire(import.meta.url);

// Rows in the table's order; `vs` rows get a ratio column each.
const IMPLS = [
  { id: 'ours', label: 'gridsample wasm SIMD, heap tensors, 1 thread' },
  { id: 'ours-copying', label: 'gridsample wasm SIMD, copying API, 1 thread' },
  { id: 'ours-t1', label: 'gridsample wasm SIMD with threads, heap tensors, set to 1 thread' },
  { id: 'ours-t2', label: 'gridsample wasm SIMD with threads, heap tensors, 2 threads' },
  { id: 'ort-web', label: "onnxruntime-web (wasm, 1 thread), the exporters' chain" },
  { id: 'ort-node', label: "onnxruntime-node (CPU, 1 thread), the exporters' chain" },
  { id: 'floor', label: 'copy floor: the bytes read and written, memory.copy in wasm' },
];

// An onnxruntime session of the chain for case `c`, one thread, fed c's tensors.
async function chainSession(ort, c, options) {
  const session = await ort.InferenceSession.create(chainModel(c.sizes), { graphOptimizationLevel: 'all', ...options });
  const feeds = {
    value: new ort.Tensor('float32', c.value.data, c.value.dims),
    sampling_locations: new ort.Tensor('float32', c.samplingLocations.data, c.samplingLocations.dims),
    attention_weights: new ort.Tensor('float32', c.attentionWeights.data, c.attentionWeights.dims),
  };
  let last;
  return { run: async () => { last = (await session.run(feeds)).output.data; }, output: () => last, dispose: () => session.release() };
}

// `call` with `gs` (the threaded build) set to `count` threads before each run.
function onThreads(gs, count, call) {
  const set = threadControl(gs);
  return { ...call, run: () => { set(count); return call.run(); } };
}

function copyingCall(gs, c) {
  const out = new Float32Array(c.sizes.N * c.sizes.Lq * c.sizes.M * c.sizes.D);
  return { run: () => gs.multiScaleDeformableAttention(...argumentsOf(c), { out }), output: () => out, dispose: () => {} };
}

const maxAbsDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

/**
 * Times every implementation on each block, side by side in rounds (timing.mjs); returns one
 * row per block: {block, bytes, results: {id: stats or {error}}, diffs: {id: max |ours - it|}}.
 */
export async function measureDeformableAttention({ log = () => {}, blocks = BLOCKS } = {}) {
  ortWeb.env.wasm.numThreads = 1;
  const ortNode = require('onnxruntime-node');
  const one = await load({ variant: 'simd' });
  const two = await load({ numThreads: 2 });
  const copier = await wasmCopier();
  const rows = [];
  for (const block of blocks) {
    const c = blockCase(block);
    const outBytes = 4 * c.sizes.N * c.sizes.Lq * c.sizes.M * c.sizes.D;
    const inBytes = 4 * (c.value.data.length + c.samplingLocations.data.length + c.attentionWeights.data.length);
    const setups = {
      ours: () => heapCall(one, c),
      'ours-copying': () => copyingCall(one, c),
      // One module set to 1 or 2 threads before each call, as the Threads tables time them: two
      // modules' ratio carries their own difference (bench/README.md, "Threads").
      'ours-t1': () => onThreads(two, 1, heapCall(two, c)),
      'ours-t2': () => onThreads(two, 2, heapCall(two, c)),
      'ort-web': () => chainSession(ortWeb, c, { executionProviders: ['wasm'] }),
      'ort-node': () => chainSession(ortNode, c, { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' }),
      floor: () => ({ run: copier.prepare(floorCopyBytes(inBytes, outBytes)), output: () => null, dispose: () => {} }),
    };
    const made = {};
    for (const impl of IMPLS) {
      try {
        made[impl.id] = await setups[impl.id]();
      } catch (e) {
        made[impl.id] = { error: String(e?.message ?? e).split('\n')[0] };
      }
    }
    const entries = {};
    for (const impl of IMPLS.filter((i) => !made[i.id].error)) entries[impl.id] = await calibrate(made[impl.id].run);
    // Each output against ours (the chain sums in another order: float32 rounding apart).
    const diffs = {};
    const ours = made.ours.output();
    for (const impl of IMPLS.filter((i) => i.id !== 'ours' && i.id !== 'floor' && !made[i.id].error && !entries[i.id].error)) {
      diffs[impl.id] = maxAbsDiff(made[impl.id].output(), ours);
    }
    await timeInRounds(Object.values(entries).filter((e) => !e.error), { budgetMs: 1500 });
    const results = {};
    for (const impl of IMPLS) {
      const e = entries[impl.id];
      results[impl.id] = made[impl.id].error ? { error: made[impl.id].error } : e.error ? { error: String(e.error.message).split('\n')[0] } : stats(e.samples, e.batch);
      await made[impl.id].dispose?.();
    }
    rows.push({ block: block.name, bytes: inBytes + outBytes, results, diffs });
    log(`  ${block.name}: ${IMPLS.map((i) => `${i.id} ${results[i.id].error ? 'error' : `${ms(results[i.id].median)} ms`}`).join(', ')}`);
  }
  return rows;
}

const cell = (r) => (r.error ? `error: ${r.error}` : `${ms(r.median)} (${ms(r.p90)})`);
const speedup = (ours, other) => (ours.error || other.error ? 'n/a' : ratio(other.median / ours.median));

/** The section "Multi-scale deformable attention": one table per block. */
export function renderDeformableAttention(rows) {
  const out = [
    '## Multi-scale deformable attention, the sampling alone (wasm and onnxruntime, Node)',
    '',
    '`gs.multiScaleDeformableAttention` (value [1, S, 8, 32], 4 points per level; one fused pass over the value in',
    'its own layout) against the chain PyTorch\'s `multi_scale_deformable_attn` exports (Split, per-level Transpose and',
    'Reshape, GridSample at 2 * loc - 1, Concat, Mul, ReduceSum; opset 16; tests/js/lib/deformable_chain_model.mjs)',
    'on onnxruntime, every implementation timed in the same rounds; median ms (p90). "max |diff|" is each output',
    'against ours (float32 rounding: the chain sums in another order). The copy floor moves half the bytes read and',
    'written (value, locations, weights, output) within wasm memory. `bench/js/deformable_attention.mjs`;',
    '`node bench/js/deformable_attention.mjs` prints this section alone.',
    '',
  ];
  for (const { block, bytes, results, diffs } of rows) {
    out.push(`### ${block}`, '', `${(bytes / 2 ** 20).toFixed(1)} MiB read and written.`, '');
    out.push('| implementation | ms (p90) | ours (1 thread) faster by | max \\|diff\\| |', '| --- | ---: | ---: | ---: |');
    for (const impl of IMPLS) {
      const r = results[impl.id];
      const faster = impl.id === 'ours' ? '' : impl.id === 'ours-t2' ? `${speedup(r, results['ours-t1'])} (2 threads over 1, one module)` : speedup(results.ours, r);
      const diff = diffs[impl.id] === undefined ? '' : diffs[impl.id].toExponential(1);
      out.push(`| ${impl.label} | ${cell(r)} | ${faster} | ${diff} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** Where bench/run.sh builds the native program (bench/native/attention.cc). */
export const NATIVE_ATTENTION = fileURLToPath(new URL('../../build/bench/gridsample_attention', import.meta.url));

/**
 * The native program's measurements (bench/native/attention.cc: the fused call, the split's
 * per-level GridSample calls and a memcpy floor, interleaved, 1 thread): its JSON, or {error}.
 */
export function measureNativeAttention(binary = NATIVE_ATTENTION, { reps = 15, log = () => {} } = {}) {
  if (!existsSync(binary)) return { error: `${binary} not found (bench/run.sh builds it)` };
  const r = spawnSync(binary, [`--reps=${reps}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) return { error: `${binary} exited with ${r.status ?? r.signal}: ${(r.stderr ?? '').trim()}` };
  try {
    const result = JSON.parse(r.stdout);
    for (const b of result.blocks) log(`  native ${b.block}: fused ${ms(b.fused[0])} ms, per-level GridSample ${ms(b.gridsample[0])} ms, floor ${ms(b.floor[0])} ms`);
    return result;
  } catch (e) {
    return { error: `cannot read ${binary}'s output: ${e.message}` };
  }
}

// Issue 45's target: the fused call natively within 1.5x of the copy floor plus our own
// GridSample time on the same points, on the 640x640 encoder's block.
const NATIVE_TARGET = { block: 'encoder_640', x: 1.5 };

/** The native table of the attention section (after renderDeformableAttention's). */
export function renderNativeAttention(native) {
  const out = [
    '### Natively (C++, 1 thread)',
    '',
    '`gridsample::MultiScaleDeformableAttention` against the same sampling as the split session runs it (our',
    '`gridsample::GridSample` once per level on the value transposed to (M, D, H_l, W_l), grids 2 * loc - 1; the',
    'transposes are made once, not timed) and a memcpy of half the bytes the fused call reads and writes, the three',
    'interleaved in each repetition; median ms (p90). "max |diff|" compares the fused output with the per-level samples',
    'weighted and summed in float64. `bench/native/attention.cc`; `build/bench/gridsample_attention` prints the',
    'measurements as JSON.',
    '',
  ];
  if (native.error) return [...out, `Not measured: ${native.error}`, ''].join('\n');
  out.push(`SIMD target ${native.target}, ${native.reps} repetitions.`, '');
  out.push('| block | fused ms (p90) | per-level GridSample ms (p90) | copy floor ms | fused / (floor + GridSample) | max \\|diff\\| |',
    '| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const b of native.blocks) {
    const share = b.fused[0] / (b.floor[0] + b.gridsample[0]);
    out.push(`| ${b.block} | ${ms(b.fused[0])} (${ms(b.fused[1])}) | ${ms(b.gridsample[0])} (${ms(b.gridsample[1])}) | ${ms(b.floor[0])} | ${share.toFixed(2)}x | ${b.max_abs_diff.toExponential(1)} |`);
  }
  const t = native.blocks.find((b) => b.block === NATIVE_TARGET.block);
  if (t) {
    const share = t.fused[0] / (t.floor[0] + t.gridsample[0]);
    out.push('', `Target: ${t.block} fused within ${NATIVE_TARGET.x}x of the copy floor plus the per-level GridSample time: ${share <= NATIVE_TARGET.x ? 'met' : '**missed**'} (${share.toFixed(2)}x).`);
  }
  out.push('');
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderDeformableAttention(await measureDeformableAttention({ log: console.error })));
  console.log(renderNativeAttention(measureNativeAttention(NATIVE_ATTENTION, { log: console.error })));
  process.exit(0);
}
