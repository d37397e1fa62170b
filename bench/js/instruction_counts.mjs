// Machine instructions per output element of our wasm SIMD kernels in V8 (make bench's "Instructions" table), counted by valgrind, for both of V8's tiers.
//
// Wall time on a shared machine drifts by 10-20%; an instruction count does not, so it shows
// what a kernel change did even when the timings cannot. Each count is a fresh Node process
// run under `valgrind --tool=cachegrind --cache-sim=no` (every executed instruction, JIT code
// included): the process makes its inputs, loads the module and makes FEW_CALLS or FEW_CALLS + `extra`
// calls (after warm calls on tiny inputs); the difference of the two totals, divided by the extra calls and the output
// elements, is the per-element count of the calls alone (start-up, compilation and input
// making cancel out). V8 runs with one tier only: TurboFan (`--no-liftoff`, what steady calls
// run) or Liftoff (`--liftoff --no-wasm-tier-up --no-wasm-dynamic-tiering`, what the first calls after load() run), with
// lazy compilation off and no background threads, so every call runs the same code.
// Without valgrind (`apt-get install valgrind`) the table says so and make bench goes on.
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { makeCase } from '../../tests/js/lib/deformable_attention_chain.mjs';
import { BLOCKS, blockCase, heapCall, img2dCall, rgba8Call } from './frame_calls.mjs';

const FEW_CALLS = 2;
const WARM_CALLS = 500;
const TIERS = {
  TurboFan: ['--no-liftoff'],
  Liftoff: ['--liftoff', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering'],
};
const V8_FLAGS = ['--no-wasm-lazy-compilation', '--single-threaded'];

// The workloads, as the other tables make them: img2d and its nearest and bicubic modes
// (1x3x512x512 float32 NCHW, heap tensors and `out`), rgba8 (a 1024x1024 RGBA warpAffine,
// copying API into one `out` array), and a decoder layer's deformable attention (its tiny warm
// calls on makeCase's default case).
// `extra`: the calls counted (MANY_CALLS - FEW_CALLS), fewer for the slow cubic ones.
const WORKLOADS = {
  img2d: { mode: 'linear', elements: 3 * 512 * 512, extra: 20 },
  nearest2d: { mode: 'nearest', elements: 3 * 512 * 512, extra: 20 },
  cubic2d: { mode: 'cubic', elements: 3 * 512 * 512, extra: 8 },
  rgba8: { elements: 4 * 1024 * 1024, extra: 8 },
  // The deformable attention of an RT-DETR decoder layer (frame_calls.mjs's BLOCKS[0], heap
  // tensors and `out`): 300 x 256 outputs of 12 points' 4 taps each.
  attention_decoder: { elements: 300 * 256, extra: 20 },
};

async function child(workload, calls) {
  const { load } = await import('../../js/node.mjs');
  const gs = await load({ variant: 'simd', warmUp: false });
  const make = (side) => {
    if (workload === 'rgba8') return rgba8Call(gs, side);
    if (workload === 'attention_decoder') return heapCall(gs, side > 8 ? blockCase(BLOCKS[0]) : makeCase()).run;
    return img2dCall(gs, { side, mode: WORKLOADS[workload].mode });
  };
  // V8 optimises our JavaScript glue only after many calls, and until then each call runs
  // about a million more instructions: tiny calls first, so that the counted ones are steady.
  const tiny = make(8);
  for (let i = 0; i < WARM_CALLS; ++i) tiny();
  const call = make(workload === 'rgba8' ? 1024 : 512);
  for (let i = 0; i < calls; ++i) call();
}

/** Instructions executed by one process (valgrind's "I refs"); rejects with valgrind's words. */
function countProcess(workload, tier, calls) {
  const script = fileURLToPath(import.meta.url);
  const child = spawn('valgrind', ['--tool=cachegrind', '--cache-sim=no', '--smc-check=all-non-file',
    '--cachegrind-out-file=/dev/null', process.execPath, ...TIERS[tier], ...V8_FLAGS, script,
    '--child', workload, String(calls)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => { stderr += chunk; });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => {
      const m = /I\s+refs:\s+([\d,]+)/.exec(stderr);
      if (status === 0 && m) resolve(Number(m[1].replaceAll(',', '')));
      else reject(new Error(`valgrind on ${workload} (${tier}, ${calls} calls) failed: ${stderr.trim().split('\n').slice(-3).join(' / ')}`));
    });
  });
}

/**
 * Rows {workload, elements, calls, perElement: {TurboFan, Liftoff}}, or {skipped: reason} when
 * valgrind is not installed. The processes run a few at a time (one per core): counts do
 * not depend on timing.
 */
export async function measureInstructionCounts(log = () => {}) {
  if (spawnSync('valgrind', ['--version']).error) {
    return { skipped: 'valgrind is not installed (`apt-get install valgrind`)' };
  }
  const jobs = [];
  for (const [workload, { extra }] of Object.entries(WORKLOADS)) {
    for (const tier of Object.keys(TIERS)) {
      for (const calls of [FEW_CALLS, FEW_CALLS + extra]) jobs.push({ workload, tier, calls });
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      job.count = await countProcess(job.workload, job.tier, job.calls);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, os.availableParallelism?.() ?? os.cpus().length) }, worker));
  const rows = [];
  for (const [workload, { elements, extra }] of Object.entries(WORKLOADS)) {
    const row = { workload, elements, calls: extra, perElement: {} };
    for (const tier of Object.keys(TIERS)) {
      const [few, many] = jobs.filter((j) => j.workload === workload && j.tier === tier).map((j) => j.count);
      row.perElement[tier] = (many - few) / extra / elements;
    }
    log(`  ${workload}: ${Object.entries(row.perElement).map(([t, v]) => `${t} ${v.toFixed(1)}`).join(', ')} instructions per output element`);
    rows.push(row);
  }
  return { rows };
}

/** The report's section for measureInstructionCounts' result. */
export function renderInstructionCounts({ rows, skipped }) {
  const lines = [
    '## Instructions per output element (wasm SIMD in V8)',
    '',
    `x86-64 instructions executed per output element by one call of our wasm SIMD build, counted by valgrind (cachegrind) in fresh Node processes: ${FEW_CALLS} + "calls" calls minus ${FEW_CALLS}, after ${WARM_CALLS} calls on 8x8 inputs (the attention: on 5 queries of 2 heads) (\`bench/js/instruction_counts.mjs\`). TurboFan is the code steady calls run; Liftoff, V8's baseline tier, is what the first calls after \`load()\` run before V8 optimises the module (the "First calls" table). Repeatable to about 3% (0.4 per element over 10 img2d calls), unlike the times.`,
    '',
  ];
  if (skipped) return `${lines.join('\n')}Not measured: ${skipped}.\n`;
  lines.push('| workload | output elements | calls | TurboFan | Liftoff | Liftoff / TurboFan |', '| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const { TurboFan, Liftoff } = r.perElement;
    lines.push(`| ${r.workload} | ${r.elements.toLocaleString('en-US')} | ${r.calls} | ${TurboFan.toFixed(1)} | ${Liftoff.toFixed(1)} | ${(Liftoff / TurboFan).toFixed(2)}x |`);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], Number(process.argv[4]));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(renderInstructionCounts(await measureInstructionCounts(console.error)));
}
