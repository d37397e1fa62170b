// onnxruntime-web on several wasm threads, in a child process that bench.mjs samples in its rounds: the row `ort-web-t2`.
//
// `ort.env.wasm.numThreads` is per process and read once, at the first session; the bench
// process runs onnxruntime-web on 1 thread, so the threaded one lives here, in a child Node
// process started by startOrtWebThreads() (node --expose-gc, IPC with structured clone). The
// child reads the workloads' inputs from the directory bench.mjs writes for the native binary
// (native_binary.mjs, writeNativeInputs: manifest.json and raw little-endian files, the same
// bytes every implementation gets), sets each up with peers.mjs' onnxruntimeWeb adapter and
// times it with timing.mjs' calibrate() and sample(), one sample per request, so that its
// samples are taken in the parent's rounds (timing.mjs, timeInRounds with a `remote` entry)
// while the parent waits.
//
// Checks that the threads really run: onnxruntime-web falls back to one thread with a console
// warning where wasm threads are missing (no SharedArrayBuffer); the child records that, the
// numThreads onnxruntime-web kept, and, from /proc/self/task, the CPU time each of its
// threads spent during the samples (a second thread near the main thread's busy time means the
// work was split).
//
// onnxruntime's worker threads spin for tens of ms after a run (measured: about 60-100 ms of
// one core after each img2d run on this machine), which would slow whatever the parent times
// next; after each sample the child waits until its threads are quiet (SPIN_QUIET_MS with
// under 10% of a core busy, at most SPIN_MAX_MS), outside the timed batch.
//
// Usage (parent): const child = await startOrtWebThreads({ threads: 2, dir });
//   const impl = await child.setup(name);   // peers.mjs' adapter shape, plus `remote`
//   ... child.close();

import { fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const SELF = fileURLToPath(import.meta.url);
// After a sample: quiet for this long (5 ms windows under 10% of a core) before replying...
const SPIN_QUIET_MS = 20;
// ...but never waiting longer than this.
const SPIN_MAX_MS = 300;

// --- parent side ------------------------------------------------------------------------------

/**
 * Starts the child process with onnxruntime-web on `threads` threads, reading inputs from
 * `dir`. Returns { setup(name), info(), close() }: setup() resolves to peers.mjs' adapter shape
 * ({ unavailable } or { run, output, dispose }) plus `remote`, whose calibrate(timing) resolves
 * to a timing entry for timeInRounds (`remote` sampler, `maxReps` cap) and whose usage()
 * resolves to the thread check of the samples taken so far.
 */
export async function startOrtWebThreads({ threads, dir, maxReps }) {
  // stdout of the child goes to our stderr: our stdout is the report.
  const child = fork(SELF, [String(threads), dir], {
    serialization: 'advanced', execArgv: ['--expose-gc'], stdio: ['ignore', 2, 2, 'ipc'],
  });
  const pending = new Map();
  let nextId = 0;
  let exited = null;
  child.on('message', ({ id, reply, error }) => {
    const p = pending.get(id);
    pending.delete(id);
    if (error) p.reject(new Error(error));
    else p.resolve(reply);
  });
  child.on('exit', (code, signal) => {
    exited = new Error(`onnxruntime-web child process exited (${code ?? signal})`);
    for (const p of pending.values()) p.reject(exited);
    pending.clear();
  });
  const request = (op, args = {}) => {
    if (exited) return Promise.reject(exited);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.send({ id, op, ...args });
    });
  };
  await request('ping');
  return {
    async setup(name) {
      const r = await request('setup', { name });
      if (r.unavailable) return { unavailable: r.unavailable };
      let output = null;
      return {
        run: async () => { output = (await request('run')).output; },
        output: () => output,
        dispose: () => request('dispose').catch(() => {}),
        remote: {
          async calibrate(timing) {
            const { batch, error } = await request('calibrate', { timing });
            return {
              batch, samples: [], error: error ? new Error(error) : null, maxReps,
              remote: async () => (await request('sample')).ms,
            };
          },
          usage: () => request('usage'),
        },
      };
    },
    info: () => request('info'),
    close() {
      if (!exited) child.kill();
    },
  };
}

// --- child side ---------------------------------------------------------------------------------

/**
 * CPU ms of each thread of this process so far ({tid: ms}), from /proc (Linux): the scheduler's
 * run time in ns (schedstat), else utime + stime in clock ticks (10 ms: too coarse for short
 * samples); {} elsewhere.
 */
function threadCpuMs() {
  if (!existsSync('/proc/self/task')) return {};
  const out = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      out[tid] = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out[tid] = (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, USER_HZ 100
      } catch { /* the thread ended */ }
    }
  }
  return out;
}

/** The workload `name` of the manifest in `dir`, as workloads.mjs describes it (the fields the adapters read). */
function loadWorkload(dir, manifest, name) {
  const e = manifest.workloads.find((x) => x.name === name);
  if (!e) throw new Error(`no workload ${name} in ${dir}/manifest.json`);
  const f32 = (t) => {
    const bytes = readFileSync(join(dir, t.file));
    return { data: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), shape: t.shape };
  };
  if (e.op === 'GridSample') {
    return { name, op: e.op, x: f32(e.x), grid: f32(e.grid), yShape: e.y_shape, mode: e.mode, paddingMode: e.padding, alignCorners: e.align_corners, layout: e.layout };
  }
  if (e.op === 'AffineGrid') {
    return { name, op: e.op, theta: f32(e.theta), size: e.size, gridShape: e.grid_shape, alignCorners: e.align_corners };
  }
  return { name, op: e.op };
}

async function childMain(threads, dir) {
  const ort = await import('onnxruntime-web');
  const peers = await import('./peers.mjs');
  const timing = await import('./timing.mjs');
  const warnings = [];
  const warn = console.warn;
  console.warn = (...m) => {
    warnings.push(m.join(' '));
    warn(...m);
  };
  ort.env.wasm.numThreads = threads;
  ort.env.logLevel = 'error';
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  let impl = null;
  let entry = null;
  let usage = null; // the current workload's samples: wall ms, process CPU ms, CPU ms per thread

  const quiet = async () => {
    const start = performance.now();
    let quietSince = start;
    while (performance.now() - start < SPIN_MAX_MS && performance.now() - quietSince < SPIN_QUIET_MS) {
      const c = process.cpuUsage();
      const t = performance.now();
      await sleep(5);
      const cpu = process.cpuUsage(c);
      if ((cpu.user + cpu.system) / 1000 > 0.1 * (performance.now() - t)) quietSince = performance.now();
    }
    return performance.now() - start;
  };

  const ops = {
    ping: () => ({}),
    info: () => ({
      requested: threads,
      numThreads: ort.env.wasm.numThreads, // onnxruntime-web sets 1 when it falls back
      fellBack: warnings.some((m) => /Falling back to single-thread/i.test(m)),
      warnings,
      threadsInProcess: Object.keys(threadCpuMs()).length,
    }),
    async setup({ name }) {
      const w = loadWorkload(dir, manifest, name);
      impl = await peers.onnxruntimeWeb(ort, w);
      usage = { wallMs: 0, cpuMs: 0, threadMs: {}, pauseMs: 0, samples: 0 };
      return impl.unavailable ? { unavailable: impl.unavailable } : {};
    },
    async run() {
      await impl.run();
      return { output: impl.output() };
    },
    async calibrate({ timing: options }) {
      entry = await timing.calibrate(impl.run, options);
      await quiet();
      return { batch: entry.batch, error: entry.error ? String(entry.error.message ?? entry.error) : null };
    },
    async sample() {
      if (globalThis.gc) globalThis.gc(); // as the parent does once per round
      const before = threadCpuMs();
      const c = process.cpuUsage();
      const t = performance.now();
      await timing.sample(entry);
      const wall = performance.now() - t;
      const cpu = process.cpuUsage(c);
      const after = threadCpuMs();
      if (entry.error) throw entry.error;
      usage.wallMs += wall;
      usage.cpuMs += (cpu.user + cpu.system) / 1000;
      for (const [tid, ms] of Object.entries(after)) usage.threadMs[tid] = (usage.threadMs[tid] ?? 0) + ms - (before[tid] ?? 0);
      usage.samples += 1;
      usage.pauseMs += await quiet();
      return { ms: entry.samples.at(-1) };
    },
    usage: () => ({
      ...usage,
      // Busy threads, busiest first: CPU ms of each thread that worked during the samples.
      threadMs: Object.values(usage.threadMs).filter((ms) => ms > 0).sort((a, b) => b - a),
    }),
    dispose() {
      impl?.dispose?.();
      impl = null;
      entry = null;
      return {};
    },
  };

  // One request at a time, in order (each may await).
  let queue = Promise.resolve();
  process.on('message', (msg) => {
    queue = queue.then(async () => {
      try {
        process.send({ id: msg.id, reply: await ops[msg.op](msg) });
      } catch (e) {
        process.send({ id: msg.id, error: String(e?.message ?? e).split('\n')[0] });
      }
    });
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[1] === SELF) {
  childMain(Number(process.argv[2]), process.argv[3]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
