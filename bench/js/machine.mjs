// The machine a benchmark run describes in its report: CPU, memory, Node.js, commit and peer versions, and the native binary's view of it.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

import { BENCH_DIR, ROOT } from './settings.mjs';

export function machine() {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = (cpuinfo.match(/^model name\s*:\s*(.*)$/m) || [])[1] || os.cpus()[0]?.model || 'unknown';
  const flags = (cpuinfo.match(/^flags\s*:\s*(.*)$/m) || [])[1] || '';
  const isa = ['sse4_2', 'avx2', 'fma', 'avx512f'].filter((f) => flags.split(' ').includes(f));
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src', 'js', 'CMakeLists.txt'], { encoding: 'utf8' }).trim();
    if (dirty) commit += ' + uncommitted changes in src/js';
  } catch { /* not a git checkout */ }
  // Read from node_modules: onnxruntime-web does not export its package.json.
  const version = (pkg) => JSON.parse(readFileSync(join(BENCH_DIR, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  return {
    cpu: model,
    isa: isa.join(' '),
    cores: os.cpus().length,
    memoryGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    v8: process.versions.v8,
    date: new Date().toISOString(),
    loadStart: os.loadavg()[0].toFixed(2),
    commit,
    versions: {
      'onnxruntime-web': version('onnxruntime-web'),
      'onnxruntime-node': version('onnxruntime-node'),
      'OpenCV.js 5 (@techstark/opencv-js)': version('@techstark/opencv-js'),
      'OpenCV.js 4 (@techstark/opencv-js)': version('opencv-js-v4'),
    },
  };
}

/** The machine as the native binary's Google Benchmark context describes it, or null. */
export function nativeEnv(context) {
  return context ? {
    target: context.gridsample_active_target,
    // Best first, as gridsample::AvailableTargets() lists them.
    targets: (context.gridsample_available_targets || '').split(' ').filter(Boolean),
    mhz: context.mhz_per_cpu,
    scaling: context.cpu_scaling_enabled,
    caches: (context.caches || []).map((c) => `L${c.level} ${c.type === 'Unified' ? '' : c.type[0]}${c.size / 1024} KiB`.replace('  ', ' ')).join(', '),
  } : null;
}
