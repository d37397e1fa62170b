// The .wasm bytes per feature (make bench's "Size by feature" table): the core module against the full one, and what each feature adds, from modules linked with one feature's bindings more or less (cmake/wasm.cmake's size modules).
//
//   node bench/js/wasm_size.mjs    (after make wasm: it links the table's modules in
//                                   build/wasm-simd and build/wasm-simd-threads, no compile)
//
// A feature's bytes are the difference of two links: the linker keeps what the registered
// functions reach, so a module without a feature's bindings holds none of its kernels. Two
// features no link separates, the uint8 fixed-point blend and float16 conversions (the dtype is
// chosen per call), are the bytes of the functions named for them in the full module
// (a lower bound: what the compiler inlined into shared functions is not counted).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SIMD = join(ROOT, 'build', 'wasm-simd');
const THREADS = join(ROOT, 'build', 'wasm-simd-threads');

// The linked modules: key -> [build folder, output name, target] (built as TARGET_web).
const size = (file) => [SIMD, `gridsample-size-core_${file}_bindings`, `gridsample_size_core_${file}_bindings`];
const MODULES = {
  full: [SIMD, 'gridsample-simd', 'gridsample_wasm'],
  core: [SIMD, 'gridsample-core-simd', 'gridsample_core_wasm'],
  utilities: [SIMD, 'gridsample-size-utilities', 'gridsample_size_utilities'],
  gridSample: [SIMD, 'gridsample-size-grid_sample', 'gridsample_size_grid_sample'],
  affineGrid: [SIMD, 'gridsample-size-affine_grid', 'gridsample_size_affine_grid'],
  channelsLast: size('channels_last'),
  affineWarp: size('affine_warp'),
  perspectiveWarp: size('perspective_warp'),
  remap: size('remap'),
  flow: size('flow'),
  attention: size('deformable_attention'),
  locationSteps: size('location_steps'),
  coreThreads: [THREADS, 'gridsample-core-simd-threads', 'gridsample_core_wasm'],
  named: [SIMD, 'gridsample-size-named', 'gridsample_size_named'],
};

// The table's rows: a module, a feature as the difference of two modules, or functions of the
// full module by name (mangled names hold the type and function names).
const ROWS = [
  { what: 'full module (gridsample-simd.wasm)', module: 'full' },
  { what: 'core module (gridsample-core-simd.wasm): GridSample, AffineGrid, utilities', module: 'core' },
  { what: 'utilities alone (heap, errors, names, target, calls by block; embind and malloc)', module: 'utilities' },
  { what: 'GridSample (NCHW, ranks 1-5, every dtype)', module: 'gridSample', over: 'utilities' },
  { what: 'AffineGrid', module: 'affineGrid', over: 'utilities' },
  { what: 'channels-last GridSample (grid source)', module: 'channelsLast', over: 'core' },
  { what: 'warpAffine (affine source)', module: 'affineWarp', over: 'core' },
  { what: 'warpPerspective (perspective source)', module: 'perspectiveWarp', over: 'core' },
  { what: 'remap (map sources: pairs, planes)', module: 'remap', over: 'core' },
  { what: 'warpFlow (flow source: NCHW and images)', module: 'flow', over: 'core' },
  { what: 'multi-scale deformable attention', module: 'attention', over: 'core' },
  { what: "the fused attention's locations' arithmetic (gridsample/onnx)", module: 'locationSteps', over: 'core' },
  { what: 'threads (the core with -pthread)', module: 'coreThreads', over: 'core' },
  { what: 'uint8 fixed-point blend (image warps)', named: /Fixed/ },
  { what: 'float16 conversions', named: /Float16|Half/ },
];

// emcc 3.1.6 from Debian finds its node modules (acorn) only through NODE_PATH (DESIGN.md 4).
const ENV = { ...process.env, NODE_PATH: process.env.NODE_PATH ?? '/usr/share/nodejs' };

/** Links the modules (cmake --build: up to date ones cost nothing) and returns their bytes. */
function linkModules(log) {
  const byDir = new Map();
  for (const [dir, , target] of Object.values(MODULES)) byDir.set(dir, [...byDir.get(dir) ?? [], `${target}_web`]);
  for (const [dir, targets] of byDir) {
    log(`  cmake --build ${dir} --target ${targets.join(' ')}`);
    const r = spawnSync('cmake', ['--build', dir, '-j2', '--target', ...targets], { env: ENV, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`wasm_size: building ${targets.join(' ')} in ${dir} failed (run make wasm first):\n${r.stdout}${r.stderr}`);
  }
  const bytes = {};
  for (const [key, [dir, output]] of Object.entries(MODULES)) bytes[key] = readFileSync(join(dir, `${output}.wasm`));
  return bytes;
}

/** A wasm binary's function bodies: [{name, bytes}] (names from its name section, where it has one). */
export function functionSizes(wasm) {
  let p = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = wasm[p++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const name = () => {
    const length = leb();
    p += length;
    return wasm.toString('utf8', p - length, p);
  };
  const imported = WebAssembly.Module.imports(new WebAssembly.Module(wasm)).filter((i) => i.kind === 'function').length;
  const sizes = [];
  const names = new Map();
  while (p < wasm.length) {
    const id = wasm[p++];
    const end = leb() + p;
    if (id === 10) {
      for (let i = leb(); i > 0; i--) {
        const size = leb();
        sizes.push(size);
        p += size;
      }
    } else if (id === 0 && name() === 'name') {
      while (p < end) {
        const sub = wasm[p++];
        const subEnd = leb() + p;
        if (sub === 1) for (let i = leb(); i > 0; i--) names.set(leb(), name());
        p = subEnd;
      }
    }
    p = end;
  }
  return sizes.map((size, i) => ({ name: names.get(imported + i) ?? '', bytes: size }));
}

// gzip -9's bytes, as the issue and README measure them (zlib's level 9 gives about 1% more).
function gzip(bytes) {
  const r = spawnSync('gzip', ['-9', '-c'], { input: bytes, maxBuffer: 64 << 20 });
  return r.status === 0 ? r.stdout.length : gzipSync(bytes, { level: 9 }).length;
}

/**
 * Links the modules and measures every row: {rows: [{what, bytes, gzip?, over?, named?}]}, or
 * {skipped} where they cannot be linked (no build folders: make bench goes on without them).
 */
export function measureWasmSizes({ log = console.error } = {}) {
  let wasm;
  try {
    wasm = linkModules(log);
  } catch (e) {
    log(`  ${e.message}`);
    return { rows: [], skipped: e.message.split('\n')[0] };
  }
  const functions = functionSizes(wasm.named);
  const rows = ROWS.map((row) => {
    if (row.named) {
      const matched = functions.filter((f) => row.named.test(f.name));
      return { what: row.what, bytes: matched.reduce((sum, f) => sum + f.bytes, 0), functions: matched.length, named: String(row.named) };
    }
    const size = { bytes: wasm[row.module].length, gzip: gzip(wasm[row.module]) };
    if (!row.over) return { what: row.what, ...size };
    return { what: row.what, bytes: size.bytes - wasm[row.over].length, gzip: size.gzip - gzip(wasm[row.over]), over: row.over };
  });
  return { rows };
}

const kb = (bytes) => (bytes / 1024).toFixed(1);

export function renderWasmSizes({ rows, skipped }) {
  const lines = [
    '## Size by feature (wasm SIMD)',
    '',
    'Bytes of `.wasm` (and gzip -9) per feature, from modules linked with one feature\'s embind file more or less (`bench/js/wasm_size.mjs`, cmake/wasm.cmake): the linker keeps what the registered functions reach, so a feature\'s bytes are the difference of two links ("+" rows: over the utilities or over the core). Each channels-last row includes the planner and blends those rows share, so they overlap (the full module is less than their sum). Rows marked "named" sum the functions of the full module whose names hold the type or function (no link separates them: the dtype is chosen per call); what the compiler inlined into shared functions is not counted. `gridsample/core` loads the core module.',
    '',
  ];
  if (skipped) return `${lines.join('\n')}\nNot measured: ${skipped}.\n`;
  lines.push(
    '| module or feature | measured as | .wasm KB | gzip KB |',
    '| --- | --- | ---: | ---: |',
  );
  for (const r of rows) {
    const how = r.named ? `named ${r.named.replaceAll('|', '\\|')} (${r.functions} functions)` : r.over ? `+ over ${r.over}` : 'module';
    lines.push(`| ${r.what} | ${how} | ${kb(r.bytes)} | ${r.gzip === undefined ? '' : kb(r.gzip)} |`);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const r = measureWasmSizes();
  console.error(`  ${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log(renderWasmSizes(r));
}
