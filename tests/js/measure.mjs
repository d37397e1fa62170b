#!/usr/bin/env node
// Prints the package's size and start-up figures: .wasm raw/gzip, npm tarball, import-to-first-result time in Node.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const PACKAGE = fileURLToPath(new URL('../../js/', import.meta.url));
const RUNS = Number(process.env.RUNS || 15);

for (const v of ['simd', 'scalar']) {
  const bytes = readFileSync(join(PACKAGE, 'dist', `gridsample-${v}.wasm`));
  const glue = readFileSync(join(PACKAGE, 'dist', `gridsample-${v}.mjs`));
  console.log(`gridsample-${v}.wasm: ${bytes.length} bytes raw, ${gzipSync(bytes, { level: 9 }).length} gzip -9; ` +
    `ES glue ${glue.length} raw, ${gzipSync(glue, { level: 9 }).length} gzip -9`);
}

const dir = mkdtempSync(join(tmpdir(), 'gridsample-measure-'));
try {
  const [info] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  console.log(`npm tarball ${info.filename}: ${info.size} bytes, ${info.unpackedSize} unpacked, ${info.files.length} files`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// A fresh Node process per run; the clock starts just before import() of the package and
// stops when the first gridSample (the ONNX example) has returned.
const probe = `
const t0 = performance.now();
const { load } = await import(${JSON.stringify(join(PACKAGE, 'node.mjs'))});
const gs = await load(VARIANT);
const axis = [-1, -0.6, -0.2, 0.2, 0.6, 1];
const y = gs.gridSample({ data: Float32Array.from({ length: 16 }, (_, i) => i), shape: [1, 1, 4, 4] },
  { data: Float32Array.from(axis.flatMap((b) => axis.flatMap((a) => [a, b]))), shape: [1, 6, 6, 2] });
const t1 = performance.now();
if (Math.abs(y.data[1] - 0.15) > 1e-4) throw new Error('wrong result');
console.log(t1 - t0);`;
for (const variant of ['auto', 'scalar']) {
  const times = [];
  for (let i = 0; i < RUNS; ++i) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe.replace('VARIANT', JSON.stringify({ variant }))], { encoding: 'utf8' });
    times.push(Number(out.trim()));
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(`import -> first gridSample done (Node ${process.version}, variant ${variant}): median ${median.toFixed(1)} ms, min ${times[0].toFixed(1)}, max ${times[times.length - 1].toFixed(1)} over ${RUNS} fresh processes`);
}
