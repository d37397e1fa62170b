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
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

import { installedPackages, npmInstall, npmWarnings, ROOT, treeBytes, viteBuiltPage } from './installs.mjs';
import { medianOfRuns } from './timing.mjs';

const run = promisify(execFile);
const jsonAt = process.argv.indexOf('--json');
const jsonOut = jsonAt >= 0 ? process.argv[jsonAt + 1] : null;
const ONNX_PROTO = '/usr/include/onnx/onnx.proto';
const MODEL = join(ROOT, 'web', 'demo', 'models', 'deformable_attention.onnx');

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
    const { stderr } = await npmInstall([r.install], dir);
    const ms = performance.now() - t;
    results[name] = {
      installBytes: treeBytes(join(dir, 'node_modules')),
      packages: installedPackages(join(dir, 'node_modules')).length,
      installMs: Math.round(ms),
      warnings: npmWarnings(stderr).length,
    };
  }

  // The generators and runtimes, side by side, and the two generated schemas.
  const gen = join(work, 'gen');
  mkdirSync(gen);
  writeFileSync(join(gen, 'package.json'), '{"name":"gen","private":true,"type":"module"}');
  await npmInstall(['--ignore-scripts', 'onnx-proto@8.0.1', 'protobufjs@8.8.1', 'protobufjs-cli@2.7.1', '@bufbuild/protobuf@2.17.0', '@bufbuild/protoc-gen-es@2.17.0'], gen);
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

  for (const [name, c] of Object.entries(codecs)) {
    const codec = await c.load();
    for (const [label, bytes] of [['small', small], ['big', big]]) {
      const [decodeMs, m] = await medianOfRuns(5, () => codec.decode(bytes));
      if ((m.graph.node.length === 0)) throw new Error(`${name}: decoded no nodes`);
      results[name][`decode_${label}_ms`] = decodeMs;
      [results[name][`encode_${label}_ms`]] = await medianOfRuns(5, () => codec.encode(m));
    }
    const page = await viteBuiltPage(gen, `page-${Object.keys(codecs).indexOf(name)}`, c.page);
    results[name].bundleBytes = page.js;
    results[name].bundleGzip = page.jsGzip;
  }

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
