// Two wasm SIMD builds side by side in one process, the figures bench/README.md gives as "the two builds alternating": a workload of make bench's (heap tensors, peers.mjs's oursHeap, and its NCHW baseline where it has one) or a deformable-attention block of deformable_attention.mjs, the builds' calls alternating sample by sample; medians, and whether both give the same bytes.
//
//   cp js/dist/gridsample-simd.wasm /tmp/before.wasm     # then change the kernels, make wasm
//   node bench/js/ab_wasm.mjs /tmp/before.wasm js/dist/gridsample-simd.wasm cl5 attention:2
//
// A name is a workload of workloads.mjs (cl5, img2d, ...) or attention:I, block I of
// deformable_attention.mjs's BLOCKS (0 the decoder, 1 the 640x640 encoder, 2 the 800x1333 one).
// Two builds in one process meet the same machine state, which on a shared machine moves
// timings between processes by up to 2x; run it a few times all the same.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import { load } from '../../js/node.mjs';
import { argumentsOf, makeCase } from '../../tests/js/lib/deformable_attention_chain.mjs';
import { BLOCKS } from './deformable_attention.mjs';
import { oursHeap } from './peers.mjs';
import { baselineWorkload, makeWorkloads } from './workloads.mjs';

const SAMPLE_MS = 20;
const ROUNDS = 21;

// A deformable-attention block's call on heap tensors (as deformable_attention.mjs times it).
function attentionCall(gs, block) {
  const c = makeCase({ M: 8, D: 32, P: 4, levels: block.levels, Lq: block.Lq, seed: 45, locations: [-0.05, 1.05] });
  const [value, shapes, starts, loc, weights] = argumentsOf(c);
  const [V, S, W] = [value, loc, weights].map((t) => gs.tensorFrom({ data: t.data, shape: t.dims }));
  const out = gs.tensor('float32', [1, block.Lq, 8 * 32]);
  return { run: () => gs.multiScaleDeformableAttention(V, shapes, starts, S, W, { out }), output: () => out.data };
}

// {name: {run, output}} for `name` on each module of `mods` (plus A's call of the baseline).
function calls(name, mods, workloads) {
  if (name.startsWith('attention:')) {
    const block = BLOCKS[Number(name.slice('attention:'.length))];
    if (!block) throw new RangeError(`${name}: expected attention:0 to attention:${BLOCKS.length - 1}`);
    return { A: attentionCall(mods.A, block), B: attentionCall(mods.B, block) };
  }
  const w = workloads.find((x) => x.name === name);
  if (!w) throw new RangeError(`${name}: not a workload of workloads.mjs`);
  const base = baselineWorkload(w);
  return { A: oursHeap(mods.A, w), B: oursHeap(mods.B, w), ...(base && { baseline: oursHeap(mods.A, base) }) };
}

const median = (x) => [...x].sort((a, b) => a - b)[x.length >> 1];

async function main() {
  const [a, b, ...names] = process.argv.slice(2);
  if (!a || !b || !names.length) {
    console.error('usage: node bench/js/ab_wasm.mjs A.wasm B.wasm NAME [NAME ...]');
    process.exit(2);
  }
  const mods = {
    A: await load({ variant: 'simd', wasmBinary: readFileSync(a) }),
    B: await load({ variant: 'simd', wasmBinary: readFileSync(b) }),
  };
  const workloads = makeWorkloads();
  for (const name of names) {
    const impls = calls(name, mods, workloads);
    for (const impl of Object.values(impls)) impl.run();
    const t0 = performance.now();
    impls.A.run();
    const reps = Math.max(1, Math.ceil(SAMPLE_MS / Math.max(performance.now() - t0, 1e-3)));
    const times = Object.fromEntries(Object.keys(impls).map((k) => [k, []]));
    for (let r = 0; r < ROUNDS; ++r) {
      for (const [k, impl] of Object.entries(impls)) {
        const t = performance.now();
        for (let i = 0; i < reps; ++i) impl.run();
        times[k].push((performance.now() - t) / reps);
      }
    }
    const [ma, mb] = [median(times.A), median(times.B)];
    const out = [impls.A.output(), impls.B.output()];
    const same = out[0].length === out[1].length && out[0].every((v, i) => Object.is(v, out[1][i]));
    const base = times.baseline ? `; its baseline ${median(times.baseline).toFixed(4)} ms (A ${(ma / median(times.baseline)).toFixed(3)}x, B ${(mb / median(times.baseline)).toFixed(3)}x)` : '';
    console.log(`${name}: A ${ma.toFixed(4)} ms, B ${mb.toFixed(4)} ms, B/A ${(mb / ma).toFixed(3)}${base}; the same bytes: ${same}`);
  }
}

await main();
