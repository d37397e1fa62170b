// Two wasm SIMD builds side by side in one process, the figures bench/README.md gives as "the two builds alternating": a workload of make bench's (heap tensors, peers.mjs's oursHeap, and its NCHW baseline where it has one) or a deformable-attention block (frame_calls.mjs's, which deformable_attention.mjs times), timed in timing.mjs's rounds; medians, and whether both give the same bytes.
//
//   cp js/dist/gridsample-simd.wasm /tmp/before.wasm     # then change the kernels, make wasm
//   node --expose-gc bench/js/ab_wasm.mjs /tmp/before.wasm js/dist/gridsample-simd.wasm cl5 attention:2
//
// A name is a workload of workloads.mjs (cl5, img2d, ...) or attention:I, block I of
// frame_calls.mjs's BLOCKS (0 the decoder, 1 the 640x640 encoder, 2 the 800x1333 one).
// Two builds in one process meet the same machine state, which on a shared machine moves
// timings between processes by up to 2x; run it a few times all the same.
import { readFileSync } from 'node:fs';

import { load } from '../../js/node.mjs';
import { BLOCKS, blockCase, heapCall } from './frame_calls.mjs';
import { oursHeap } from './peers.mjs';
import { calibrate, stats, timeInRounds } from './timing.mjs';
import { baselineWorkload, makeWorkloads } from './workloads.mjs';

const ROUNDS = 21;

// {A, B[, baseline]}: `name`'s call on each module of `mods` (the baseline's on A's).
function calls(name, mods, workloads) {
  if (name.startsWith('attention:')) {
    const block = BLOCKS[Number(name.slice('attention:'.length))];
    if (!block) throw new RangeError(`${name}: expected attention:0 to attention:${BLOCKS.length - 1}`);
    const c = blockCase(block);
    return { A: heapCall(mods.A, c), B: heapCall(mods.B, c) };
  }
  const w = workloads.find((x) => x.name === name);
  if (!w) throw new RangeError(`${name}: not a workload of workloads.mjs`);
  const base = baselineWorkload(w);
  return { A: oursHeap(mods.A, w), B: oursHeap(mods.B, w), ...(base && { baseline: oursHeap(mods.A, base) }) };
}

async function main() {
  const [a, b, ...names] = process.argv.slice(2);
  if (!a || !b || !names.length) {
    console.error('usage: node --expose-gc bench/js/ab_wasm.mjs A.wasm B.wasm NAME [NAME ...]');
    process.exit(2);
  }
  const mods = {
    A: await load({ variant: 'simd', wasmBinary: readFileSync(a) }),
    B: await load({ variant: 'simd', wasmBinary: readFileSync(b) }),
  };
  const workloads = makeWorkloads();
  for (const name of names) {
    const impls = calls(name, mods, workloads);
    const entries = {};
    for (const [k, impl] of Object.entries(impls)) entries[k] = await calibrate(impl.run);
    const failed = Object.entries(entries).find(([, e]) => e.error);
    if (failed) throw failed[1].error;
    // One batch for all: each sample's first call finds the caches holding the other module's
    // data, and a smaller batch spreads that cost over fewer calls (the decoder block, 8.6 MB of
    // value read at random, same .wasm as A and B: A calibrated first got a smaller batch and
    // read B/A 0.50-0.77; with one batch 0.98-1.16, the run-to-run noise).
    const batch = Math.max(...Object.values(entries).map((e) => e.batch));
    for (const e of Object.values(entries)) e.batch = batch;
    await timeInRounds(Object.values(entries), { minReps: ROUNDS, maxReps: ROUNDS });
    const median = (k) => stats(entries[k].samples).median;
    const [ma, mb] = [median('A'), median('B')];
    const [ya, yb] = [impls.A.output(), impls.B.output()];
    const same = ya.length === yb.length && ya.every((v, i) => Object.is(v, yb[i]));
    const base = entries.baseline ? `; its baseline ${median('baseline').toFixed(4)} ms (A ${(ma / median('baseline')).toFixed(3)}x, B ${(mb / median('baseline')).toFixed(3)}x)` : '';
    console.log(`${name}: A ${ma.toFixed(4)} ms, B ${mb.toFixed(4)} ms, B/A ${(mb / ma).toFixed(3)}${base}; the same bytes: ${same}`);
    for (const impl of Object.values(impls)) impl.dispose?.();
  }
}

await main();
