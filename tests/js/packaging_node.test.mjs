// Packaging for Node: npm pack ships exactly the package files; the installed tarball used from Node (ESM, CJS, the README's example, gridsample/core, gridsample/onnx and gridsample/webgpu) and from strict TypeScript consumers (ESM and CommonJS, with and without the DOM lib).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { assertExampleRow, BASIC_MODEL, installConsumer, removeConsumer, run, sh } from './lib/packaging_consumer.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const BIN = join(HERE, 'node_modules', '.bin');

// The files `npm pack` must ship, and nothing else.
const SHIPPED = [
  'LICENSE', 'README.md', 'api.d.cts', 'core_node.mjs', 'core_browser.mjs', 'core.cjs', 'core.d.ts', 'core.d.cts', 'core_api.d.cts', 'tensor_api.d.cts', 'image_api.d.cts', 'load_api.d.cts', 'pool_api.d.cts', 'prepared_api.d.cts', 'core/prepared.mjs', 'browser.mjs', 'core/load_browser.mjs', 'cli.mjs', 'core/api.mjs', 'core/deformable_levels.mjs', 'core/deformable_block.mjs', 'index.cjs', 'index.d.cts', 'index.d.ts', 'node.mjs', 'package.json', 'cli/onnx_commands.mjs', 'cli/npy.mjs',
  'cli/args.mjs', 'cli/files.mjs', 'cli/png.mjs', 'cli/png_codec.mjs', 'cli/jpeg.mjs', 'cli/flow_file.mjs', 'cli/progress.mjs', 'core/load_wasm.mjs', 'core/warm_up.mjs', 'core/dtypes.mjs', 'core/messages.mjs', 'core/plain_args.mjs', 'core/tensor_args.mjs', 'core/heap_tensor.mjs',
  'core/wasm_heap.mjs', 'core/library_rules.mjs', 'core/optional_package.mjs', 'images/warps.mjs', 'images/matrices.mjs',
  'images/flows.mjs', 'images/pixel_space.mjs', 'images/axis_line.mjs', 'images/fixed_maps.mjs', 'core/resource_node.mjs', 'core/resource_browser.mjs',
  'pool/create_pool.mjs', 'pool/bands.mjs', 'pool/transfer.mjs', 'pool/serve.mjs', 'pool/pool_worker.mjs', 'pool/pool_worker_node.mjs',
  'onnx.mjs', 'onnx.cjs', 'onnx/graph.mjs', 'onnx/errors.mjs', 'onnx/model_proto.mjs', 'onnx/our_nodes.mjs', 'onnx/values.mjs', 'onnx/placement.mjs', 'onnx/stats.mjs', 'onnx/value_types.mjs', 'core/modes.mjs', 'onnx/external_data.mjs', 'onnx/timing.mjs', 'onnx/gpu_nodes.mjs', 'onnx/session.mjs', 'onnx/create.mjs', 'onnx/tensor_types.mjs', 'onnx/plan.mjs', 'onnx/fuse_attention.mjs', 'onnx/attention_steps.mjs', 'onnx/attention_points.mjs', 'onnx/attention_discrete.mjs', 'onnx/layout_views.mjs', 'onnx/graph_reading.mjs', 'onnx/fused_arguments.mjs', 'onnx/attention_prologue.mjs', 'onnx.d.ts', 'onnx.d.cts', 'onnx_api.d.cts',
  'ort.mjs', 'onnx/ort_module.mjs', 'ort.d.ts', 'transformers.mjs', 'transformers.d.ts',
  'webgpu.cjs', 'webgpu.d.ts', 'webgpu.d.cts', 'webgpu_api.d.cts', 'webgpu/index.mjs', 'webgpu/tensors.mjs', 'webgpu/dispatch.mjs', 'webgpu/batch.mjs', 'webgpu/grid_sample_wgsl.mjs', 'webgpu/affine_grid_wgsl.mjs', 'webgpu/wgsl_rules.mjs', 'webgpu/warps.mjs', 'webgpu/warp_wgsl.mjs', 'webgpu/gpu_images.mjs',
  'webgpu/deformable_attention.mjs', 'webgpu/deformable_attention_wgsl.mjs',
  'dist/gridsample-scalar.cjs', 'dist/gridsample-scalar.mjs', 'dist/gridsample-scalar.wasm',
  'dist/gridsample-simd.cjs', 'dist/gridsample-simd.mjs', 'dist/gridsample-simd.wasm',
  'dist/gridsample-simd-threads.cjs', 'dist/gridsample-simd-threads.mjs', 'dist/gridsample-simd-threads.wasm',
  'dist/gridsample-simd-threads.worker.cjs', 'dist/gridsample-simd-threads.worker.js', 'dist/onnx_pb.mjs',
  'dist/gridsample-core-simd.cjs', 'dist/gridsample-core-simd.mjs', 'dist/gridsample-core-simd.wasm',
];

let work;
let app;
let packInfo;

before(async () => {
  ({ work, app, pack: packInfo } = await installConsumer('gridsample-pack-node-'));
});

after(() => removeConsumer(work));

describe('npm pack', () => {
  test('the tarball ships exactly the package files; no dependencies, optional peers: onnxruntime, the ONNX protobuf and the CLI\'s JPEG codec', () => {
    const files = packInfo.files.map((f) => f.path).sort();
    assert.deepEqual(files, [...SHIPPED].sort());
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'gridsample', 'package.json'), 'utf8'));
    assert.equal(manifest.name, 'gridsample');
    assert.equal(manifest.license, 'MIT');
    const licence = readFileSync(join(app, 'node_modules', 'gridsample', 'LICENSE'), 'utf8');
    assert.equal(licence, readFileSync(join(HERE, '..', '..', 'LICENSE'), 'utf8'), 'the shipped LICENSE is the repository\'s');
    assert.match(licence, /^MIT License\n/);
    assert.equal(manifest.dependencies, undefined);
    // onnxruntime is the caller's own copy (gridsample/onnx takes it as options.ort), the ONNX
    // reader is gridsample/onnx's alone, the JPEG codec the CLI's: optional peers (PNG is built in).
    assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), ['@bufbuild/protobuf', 'jpeg-js', 'onnxruntime-node', 'onnxruntime-web']);
    for (const name of Object.keys(manifest.peerDependencies)) assert.equal(manifest.peerDependenciesMeta[name].optional, true, name);
    assert.ok(!packInfo.files.some((f) => /onnxruntime/.test(f.path)), 'gridsample ships no onnxruntime');
    console.log(`# tarball ${packInfo.filename}: ${packInfo.size} bytes packed, ${packInfo.unpackedSize} unpacked`);
  });
});

describe('Node.js consumer', () => {
  test('ESM import resolves node.mjs and computes the ONNX example', async () => {
    const script = `import { load } from 'gridsample';
import { example } from './example.js';
console.log(JSON.stringify({ resolved: import.meta.resolve('gridsample'), ...example(await load()) }));`;
    writeFileSync(join(app, 'esm.mjs'), script);
    const { stdout } = await sh(process.execPath, ['esm.mjs'], { cwd: app });
    const r = JSON.parse(stdout);
    assert.match(r.resolved, /node_modules\/gridsample\/node\.mjs$/);
    assertExampleRow(r, 'ESM');
  });

  test('the .wasm files are subpath exports (gridsample/gridsample-simd.wasm), loadable as wasmBinary', async () => {
    const script = `import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'gridsample';
import { example } from './example.js';
const out = {};
for (const variant of ['simd', 'scalar']) {
  const url = import.meta.resolve(\`gridsample/gridsample-\${variant}.wasm\`);
  const gs = await load({ variant, wasmBinary: readFileSync(fileURLToPath(url)) });
  out[variant] = { url, ...example(gs) };
}
console.log(JSON.stringify(out));`;
    writeFileSync(join(app, 'wasm-subpath.mjs'), script);
    const { stdout } = await sh(process.execPath, ['wasm-subpath.mjs'], { cwd: app });
    const r = JSON.parse(stdout);
    for (const variant of ['simd', 'scalar']) {
      assert.match(r[variant].url, new RegExp(`node_modules/gridsample/dist/gridsample-${variant}\\.wasm$`));
      assert.equal(r[variant].backend, variant === 'simd' ? 'wasm-simd128' : 'wasm-scalar');
      assertExampleRow(r[variant], `wasm subpath ${variant}`);
    }
  });

  for (const [format, file, script] of [
    ['ESM', 'core-esm.mjs', `import { load } from 'gridsample/core';
import { example } from './example.js';
const gs = await load();
console.log(JSON.stringify({ resolved: import.meta.resolve('gridsample/core'), warps: 'warpAffine' in gs, ...example(gs) }));`],
    ['CommonJS', 'core-cjs.cjs', `const { load } = require('gridsample/core');
import('./example.js').then(async ({ example }) => {
  const gs = await load();
  console.log(JSON.stringify({ resolved: require.resolve('gridsample/core'), warps: 'warpAffine' in gs, ...example(gs) }));
});`],
  ]) {
    test(`gridsample/core (${format}) resolves its entry, computes the ONNX example and has no warps`, async () => {
      writeFileSync(join(app, file), script);
      const { stdout } = await sh(process.execPath, [file], { cwd: app });
      const r = JSON.parse(stdout);
      assert.match(r.resolved, format === 'ESM' ? /node_modules\/gridsample\/core_node\.mjs$/ : /node_modules\/gridsample\/core\.cjs$/);
      assert.equal(r.backend, 'wasm-simd128');
      assert.equal(r.warps, false);
      assertExampleRow(r, `gridsample/core ${format}`);
    });
  }

  test("the README's Node.js example runs as written", async () => {
    const readme = readFileSync(join(app, 'node_modules', 'gridsample', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Node.js'));
    const code = section.slice(section.indexOf('```js\n') + 6, section.indexOf('\n```', section.indexOf('```js\n')));
    assert.match(code, /gs\.gridSample/);
    writeFileSync(join(app, 'readme-example.mjs'), code);
    const { stdout } = await sh(process.execPath, ['readme-example.mjs'], { cwd: app });
    assert.match(stdout, /wasm-simd128|wasm-scalar/);
    assert.match(stdout, /\[ 1, 1, 6, 6 \]/);
    assert.match(stdout, /\[ 0, 0\.15, 0\.55, 0\.95, 1\.35, 0\.75 \]/);
  });

  // The example as a one-node model through gridsample/onnx, with the app's onnxruntime-web.
  const ONNX_SCRIPT = (importLine) => `${importLine}
const ort = await import('onnxruntime-web');
ort.env.wasm.numThreads = 1;
const model = Uint8Array.from(${JSON.stringify([...BASIC_MODEL])});
const axis = [-1, -0.6, -0.2, 0.2, 0.6, 1];
// placement 'gridsample': the node runs on the installed package, whichever placement is faster.
const session = await InferenceSession.create(model, { ort, placement: 'gridsample' });
const { Y } = await session.run({
  X: new ort.Tensor('float32', Float32Array.from({ length: 16 }, (_, i) => i), [1, 1, 4, 4]),
  grid: new ort.Tensor('float32', Float32Array.from(axis.flatMap((y) => axis.flatMap((x) => [x, y]))), [1, 6, 6, 2]),
});
console.log(JSON.stringify({ runsOn: session.plan().parts.map((p) => p.runsOn), shape: Y.dims, data: Array.from(Y.data), isOrt: Y instanceof ort.Tensor }));
await session.release();`;

  for (const [format, importLine, file] of [
    ['ESM', "import { InferenceSession } from 'gridsample/onnx';", 'onnx-esm.mjs'],
    ['CommonJS', "const { InferenceSession } = require('gridsample/onnx');", 'onnx-cjs.cjs'],
  ]) {
    test(`gridsample/onnx (${format}) runs a GridSample model with onnxruntime-web`, async () => {
      const body = ONNX_SCRIPT(importLine);
      // CommonJS has no top-level await: the same script inside an async function.
      writeFileSync(join(app, file), format === 'ESM' ? body : `${importLine}\n(async () => {\n${body.slice(importLine.length)}\n})();`);
      const { stdout } = await sh(process.execPath, [file], { cwd: app });
      const r = JSON.parse(stdout);
      assert.deepEqual(r.runsOn, ['gridsample']);
      assert.equal(r.isOrt, true, 'results are the caller\'s onnxruntime tensors');
      assertExampleRow(r, `gridsample/onnx ${format}`);
    });
  }

  for (const [format, file, script] of [
    ['ESM', 'webgpu-esm.mjs', "import { createGpu } from 'gridsample/webgpu';\ncreateGpu().catch((e) => console.log(JSON.stringify({ type: typeof createGpu, name: e.name, message: e.message })));"],
    ['CommonJS', 'webgpu-cjs.cjs', "const { createGpu } = require('gridsample/webgpu');\ncreateGpu().catch((e) => console.log(JSON.stringify({ type: typeof createGpu, name: e.name, message: e.message })));"],
  ]) {
    test(`gridsample/webgpu (${format}) resolves; where WebGPU is missing, createGpu() says so`, async () => {
      writeFileSync(join(app, file), script);
      const { stdout } = await sh(process.execPath, [file], { cwd: app });
      const r = JSON.parse(stdout);
      assert.equal(r.type, 'function');
      assert.equal(r.name, 'Error');
      assert.match(r.message, /^createGpu: WebGPU is not available here \(no navigator\.gpu\); pass options\.device/);
    });
  }

  test('CommonJS require resolves index.cjs and computes the ONNX example', async () => {
    const script = `const { load, simdSupported } = require('gridsample');
import('./example.js').then(async ({ example }) => {
  const r = example(await load({ variant: 'scalar' }));
  console.log(JSON.stringify({ resolved: require.resolve('gridsample'), simd: simdSupported(), ...r }));
});`;
    writeFileSync(join(app, 'cjs.cjs'), script);
    const { stdout } = await sh(process.execPath, ['cjs.cjs'], { cwd: app });
    const r = JSON.parse(stdout);
    assert.match(r.resolved, /node_modules\/gridsample\/index\.cjs$/);
    assert.equal(r.backend, 'wasm-scalar');
    assertExampleRow(r, 'CJS');
  });
});

// TypeScript consumers: typescript/consumer.ts compiled as an ES module (.mts) and as CommonJS
// (.cts, `import = require`), strict and with the package's declarations checked too (no skipLibCheck).
const TS_MODULES = {
  node16: { module: 'node16', moduleResolution: 'node16' },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'preserve', moduleResolution: 'bundler' },
};
const TS_IMPORTS = { esm: "import * as gridsample from 'gridsample';", cjs: "import gridsample = require('gridsample');" };
// The one difference: node.mjs and browser.mjs export the HeapTensor class, index.cjs only its type.
const TS_FORMAT_CHECKS = {
  esm: `export const isHeapTensor = (v: unknown): boolean => v instanceof gridsample.HeapTensor;
// @ts-expect-error: HeapTensor is not constructible
new gridsample.HeapTensor();
`,
  cjs: `// @ts-expect-error: index.cjs exports no HeapTensor class
export const isHeapTensor = (v: unknown): boolean => v instanceof gridsample.HeapTensor;
`,
};

// tsc's errors, each followed by the line it points at (the assertion that failed).
function withSourceLines(dir, output) {
  return output.replace(/^(\S+?)\((\d+),\d+\): .*$/gm, (error, file, line) => {
    try {
      return `${error}\n    ${readFileSync(join(dir, file), 'utf8').split('\n')[line - 1].trim()}`;
    } catch {
      return error;
    }
  });
}

describe('TypeScript consumer (strict, no skipLibCheck): exact result types', { concurrency: true }, () => {
  let dir;

  before(() => {
    dir = join(app, 'ts');
    mkdirSync(dir);
    const source = readFileSync(join(HERE, 'typescript', 'consumer.ts'), 'utf8');
    assert.ok(source.includes(TS_IMPORTS.esm), 'consumer.ts imports gridsample as an ES module');
    writeFileSync(join(dir, 'esm.mts'), source + TS_FORMAT_CHECKS.esm);
    writeFileSync(join(dir, 'cjs.cts'), source.replace(TS_IMPORTS.esm, TS_IMPORTS.cjs) + TS_FORMAT_CHECKS.cjs);
    // gridsample/onnx with onnxruntime-web's types: the same source as ESM and CommonJS (a .cts
    // file's import declarations compile to require()).
    const onnxSource = readFileSync(join(HERE, 'typescript', 'onnx_consumer.ts'), 'utf8');
    writeFileSync(join(dir, 'onnx_esm.mts'), onnxSource);
    writeFileSync(join(dir, 'onnx_cjs.cts'), onnxSource);
    // gridsample/ort and gridsample/transformers: ES modules only.
    writeFileSync(join(dir, 'ort_esm.mts'), readFileSync(join(HERE, 'typescript', 'ort_consumer.ts'), 'utf8'));
    // Without the DOM lib: the same source as ESM and CommonJS, and Node's own classes.
    const noDomSource = readFileSync(join(HERE, 'typescript', 'no_dom_consumer.ts'), 'utf8');
    writeFileSync(join(dir, 'no_dom_esm.mts'), noDomSource);
    writeFileSync(join(dir, 'no_dom_cjs.cts'), noDomSource);
    writeFileSync(join(dir, 'node_esm.mts'), readFileSync(join(HERE, 'typescript', 'node_consumer.ts'), 'utf8'));
    // gridsample/core: the same source as ESM and CommonJS.
    const coreSource = readFileSync(join(HERE, 'typescript', 'core_consumer.ts'), 'utf8');
    writeFileSync(join(dir, 'core_esm.mts'), coreSource);
    writeFileSync(join(dir, 'core_cjs.cts'), coreSource);
  });

  for (const [name, modules] of Object.entries(TS_MODULES)) {
    test(`${name}: ESM (index.d.ts, core.d.ts, onnx.d.ts, ort.d.ts, transformers.d.ts) and CommonJS (index.d.cts, core.d.cts, onnx.d.cts) consumers`, async () => {
      const config = `tsconfig.${name}.json`;
      writeFileSync(join(dir, config), JSON.stringify({
        compilerOptions: {
          ...modules, strict: true, skipLibCheck: false, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: [],
        },
        files: ['esm.mts', 'cjs.cts', 'core_esm.mts', 'core_cjs.cts', 'onnx_esm.mts', 'onnx_cjs.cts', 'ort_esm.mts'],
      }, null, 2));
      try {
        await run(join(BIN, 'tsc'), ['-p', config], { cwd: dir, encoding: 'utf8' });
      } catch (e) {
        assert.fail(`tsc -p ${config} (${modules.module}, ${modules.moduleResolution}):\n${withSourceLines(dir, `${e.stdout}${e.stderr}`)}`);
      }
    });
  }

  // Projects without the DOM lib (issue 27: a Node-only `lib: ["es2022"]` failed with TS2503
  // "Cannot find namespace 'WebAssembly'"): es2022 alone, with Node's types (the tests' copy of
  // @types/node), and a worker's lib.
  const NO_DOM = {
    es2022: { lib: ['es2022'], types: [], files: ['no_dom_esm.mts', 'no_dom_cjs.cts'] },
    'es2022-node': { lib: ['es2022'], types: ['node'], files: ['no_dom_esm.mts', 'no_dom_cjs.cts', 'node_esm.mts'] },
    'es2022-webworker': { lib: ['es2022', 'webworker'], types: [], files: ['no_dom_esm.mts', 'no_dom_cjs.cts'] },
  };
  for (const [name, { lib, types, files }] of Object.entries(NO_DOM)) {
    test(`no DOM lib: lib ${lib.join(' + ')}, types [${types.join(', ')}] (nodenext)`, async () => {
      const config = `tsconfig.${name}.json`;
      writeFileSync(join(dir, config), JSON.stringify({
        compilerOptions: {
          ...TS_MODULES.nodenext, strict: true, skipLibCheck: false, noEmit: true, target: 'es2022', lib, types,
          typeRoots: [join(HERE, 'node_modules', '@types')],
        },
        files,
      }, null, 2));
      try {
        await run(join(BIN, 'tsc'), ['-p', config], { cwd: dir, encoding: 'utf8' });
      } catch (e) {
        assert.fail(`tsc -p ${config}:\n${withSourceLines(dir, `${e.stdout}${e.stderr}`)}`);
      }
    });
  }
});
