// Compares ONNX protobuf readers for gridsample/onnx (issue 27): onnx-proto (protobufjs 6 static code), protobufjs 8 static code on its minimal runtime, and @bufbuild/protobuf 2 with protoc-gen-es code, on install size, bundle bytes, decode and encode times; standalone, not part of make bench.
//
//   node bench/js/onnx_readers.mjs [--json FILE]
//
// Needs protoc (Debian protobuf-compiler) and onnx.proto from Debian libonnx-dev
// (/usr/include/onnx/onnx.proto, ONNX 1.12), and the npm registry or cache: it installs each
// reader's exact version into a temporary folder, generates the two schemas there, and writes a
// ~100 MB GridSample model (one 25M-float initializer in raw_data) into it. Decode and encode
// times are the median of 5 in this process; bundle bytes come from tests/js's Vite (a page that
// decodes a model with the reader and nothing else).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const jsonAt = process.argv.indexOf('--json');
const jsonOut = jsonAt >= 0 ? process.argv[jsonAt + 1] : null;
const ONNX_PROTO = '/usr/include/onnx/onnx.proto';
const MODEL = join(ROOT, 'web', 'demo', 'models', 'deformable_attention.onnx');
const npm = (argv, cwd) => run('npm', [...argv, '--prefer-offline', '--no-audit', '--no-fund'], { cwd, maxBuffer: 64 << 20 });

const treeBytes = (dir) => readdirSync(dir, { withFileTypes: true, recursive: true })
  .filter((e) => e.isFile()).reduce((sum, e) => sum + statSync(join(e.parentPath, e.name)).size, 0);
// Packages in a fresh install's node_modules (hoisted: none nested here), scoped ones counted each.
const countPackages = (dir) => readdirSync(dir).filter((n) => !n.startsWith('.'))
  .reduce((sum, n) => sum + (n.startsWith('@') ? readdirSync(join(dir, n)).length : 1), 0);

// What a user installs to read ONNX with each: the runtime package (and its dependencies).
const READERS = {
  'onnx-proto 8.0.1 (protobufjs 6)': { install: 'onnx-proto@8.0.1' },
  'protobufjs 7.6.6, static code': { install: 'protobufjs@7.6.6', installOnly: true },
  'protobufjs 8.8.1, static code': { install: 'protobufjs@8.8.1' },
  '@bufbuild/protobuf 2.17.0, protoc-gen-es code': { install: '@bufbuild/protobuf@2.17.0' },
};

const work = mkdtempSync(join(tmpdir(), 'gridsample-readers-'));
try {
  const results = {};
  for (const [name, r] of Object.entries(READERS)) {
    const dir = join(work, `install-${Object.keys(results).length}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{"name":"x","private":true}');
    const t = performance.now();
    const { stderr } = await npm(['install', r.install], dir);
    const ms = performance.now() - t;
    results[name] = {
      installBytes: treeBytes(join(dir, 'node_modules')),
      packages: countPackages(join(dir, 'node_modules')),
      installMs: Math.round(ms),
      warnings: stderr.split('\n').filter((l) => /warn/i.test(l)).length,
    };
  }

  // The generators and runtimes, side by side, and the two generated schemas.
  const gen = join(work, 'gen');
  mkdirSync(gen);
  writeFileSync(join(gen, 'package.json'), '{"name":"gen","private":true,"type":"module"}');
  await npm(['install', '--ignore-scripts', 'onnx-proto@8.0.1', 'protobufjs@8.8.1', 'protobufjs-cli@2.7.1', '@bufbuild/protobuf@2.17.0', '@bufbuild/protoc-gen-es@2.17.0'], gen);
  const bin = join(gen, 'node_modules', '.bin');
  await run('protoc', [`--plugin=protoc-gen-es=${join(bin, 'protoc-gen-es')}`, `--es_out=${gen}`, '--es_opt=target=js', `-I${dirname(ONNX_PROTO)}`, ONNX_PROTO]);
  await run(join(bin, 'pbjs'), ['-t', 'static-module', '-w', 'es6', '--force-number', '--no-verify', '--no-convert', '--no-delimited', '--no-comments', '-o', join(gen, 'onnx_pbjs.js'), ONNX_PROTO]);

  // decode(bytes) -> message, encode(message) -> bytes, and a page's source, for each reader.
  const codecs = {
    'onnx-proto 8.0.1 (protobufjs 6)': {
      page: "import p from 'onnx-proto'; globalThis.m = p.onnx.ModelProto.decode(new Uint8Array(globalThis.bytes));",
      load: async () => {
        const { onnx } = (await import(pathToFileURL(join(gen, 'node_modules', 'onnx-proto', 'dist', 'onnx.js')).href)).default;
        return { decode: (b) => onnx.ModelProto.decode(b), encode: (m) => onnx.ModelProto.encode(m).finish() };
      },
    },
    'protobufjs 8.8.1, static code': {
      page: "import { onnx } from './onnx_pbjs.js'; globalThis.m = onnx.ModelProto.decode(new Uint8Array(globalThis.bytes));",
      load: async () => {
        const { onnx } = await import(pathToFileURL(join(gen, 'onnx_pbjs.js')).href);
        return { decode: (b) => onnx.ModelProto.decode(b), encode: (m) => onnx.ModelProto.encode(m).finish() };
      },
    },
    '@bufbuild/protobuf 2.17.0, protoc-gen-es code': {
      page: "import { fromBinary } from '@bufbuild/protobuf'; import { ModelProtoSchema } from './onnx_pb.js'; globalThis.m = fromBinary(ModelProtoSchema, new Uint8Array(globalThis.bytes));",
      load: async () => {
        const { fromBinary, toBinary } = await import(pathToFileURL(join(gen, 'node_modules', '@bufbuild', 'protobuf', 'dist', 'esm', 'index.js')).href);
        const { ModelProtoSchema } = await import(pathToFileURL(join(gen, 'onnx_pb.js')).href);
        return { decode: (b) => fromBinary(ModelProtoSchema, b), encode: (m) => toBinary(ModelProtoSchema, m) };
      },
    },
  };

  // The ~100 MB model: GridSample of a [1, 100, 500, 500] float32 initializer (raw_data).
  const big = await (async () => {
    const { create, toBinary } = await import(pathToFileURL(join(gen, 'node_modules', '@bufbuild', 'protobuf', 'dist', 'esm', 'index.js')).href);
    const s = await import(pathToFileURL(join(gen, 'onnx_pb.js')).href);
    const dims = [1n, 100n, 500n, 500n];
    const raw = new Uint8Array(new Float32Array(100 * 500 * 500).map((_, i) => i % 1000).buffer);
    const f32 = (name, shape) => ({ name, type: { value: { case: 'tensorType', value: { elemType: 1, shape: { dim: shape.map((d) => ({ value: typeof d === 'string' ? { case: 'dimParam', value: d } : { case: 'dimValue', value: BigInt(d) } })) } } } } });
    const model = create(s.ModelProtoSchema, {
      irVersion: 8n,
      opsetImport: [{ domain: '', version: 20n }],
      graph: {
        name: 'big',
        node: [{ opType: 'GridSample', input: ['X', 'grid'], output: ['Y'], attribute: [{ name: 'mode', type: 3, s: new TextEncoder().encode('linear') }] }],
        initializer: [{ name: 'X', dims, dataType: 1, rawData: raw }],
        input: [f32('grid', [1, 'h', 'w', 2])],
        output: [f32('Y', [1, 100, 'h', 'w'])],
      },
    });
    const bytes = toBinary(s.ModelProtoSchema, model);
    writeFileSync(join(gen, 'big.onnx'), bytes);
    return bytes;
  })();
  const small = new Uint8Array(readFileSync(MODEL));

  const median = (f) => {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      f();
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b)[2];
  };
  const { build } = await import(pathToFileURL(join(ROOT, 'tests', 'js', 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  for (const [name, c] of Object.entries(codecs)) {
    const codec = await c.load();
    for (const [label, bytes] of [['small', small], ['big', big]]) {
      codec.decode(bytes); // warm-up
      const m = codec.decode(bytes);
      if ((m.graph.node.length === 0)) throw new Error(`${name}: decoded no nodes`);
      results[name][`decode_${label}_ms`] = median(() => codec.decode(bytes));
      results[name][`encode_${label}_ms`] = median(() => codec.encode(m));
    }
    const page = join(gen, `page-${Object.keys(codecs).indexOf(name)}`);
    writeFileSync(`${page}.js`, c.page);
    writeFileSync(`${page}.html`, `<!doctype html><script type="module" src="./${page.split('/').pop()}.js"></script>`);
    await build({ root: gen, configFile: false, logLevel: 'error', base: './', build: { outDir: `${page}-dist`, emptyOutDir: true, rollupOptions: { input: `${page}.html` } } });
    const js = readdirSync(`${page}-dist`, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && e.name.endsWith('.js'))
      .map((e) => readFileSync(join(e.parentPath, e.name)));
    results[name].bundleBytes = js.reduce((s, b) => s + b.length, 0);
    results[name].bundleGzip = js.reduce((s, b) => s + gzipSync(b, { level: 9 }).length, 0);
  }
  delete process.env.NODE_ENV; // set by Vite's build()

  const kb = (b) => (b === undefined ? '-' : `${(b / 1024).toFixed(1)} KB`);
  const ms = (v) => (v === undefined ? '-' : `${v.toFixed(v < 10 ? 2 : 1)} ms`);
  console.log(`models: ${MODEL} (${(small.length / 1e6).toFixed(2)} MB), generated GridSample model (${(big.length / 1e6).toFixed(1)} MB)

| reader | install | packages | npm warnings | page JS (gzip) | decode ${(small.length / 1e6).toFixed(2)} MB | decode ${(big.length / 1e6).toFixed(0)} MB | encode ${(small.length / 1e6).toFixed(2)} MB | encode ${(big.length / 1e6).toFixed(0)} MB |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`| ${name} | ${(r.installBytes / 1048576).toFixed(2)} MB | ${r.packages} | ${r.warnings} | ${kb(r.bundleBytes)} (${kb(r.bundleGzip)}) | ${ms(r.decode_small_ms)} | ${ms(r.decode_big_ms)} | ${ms(r.encode_small_ms)} | ${ms(r.encode_big_ms)} |`);
  }
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2));
} finally {
  rmSync(work, { recursive: true, force: true });
}
