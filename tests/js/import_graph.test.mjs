// The library's import graph: what node.mjs, browser.mjs, gridsample/onnx and gridsample/webgpu (ESM and CommonJS entries) load, statically or dynamically, reaches no CLI module and no image codec; gridsample/ort reaches onnxruntime-web through its 'all' subpath alone; no module imports pngjs (the CLI's PNG codec is its own), and only cli/jpeg.mjs imports jpeg-js.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

const JS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'js');
const PACKAGE = JSON.parse(readFileSync(join(JS, 'package.json'), 'utf8'));
const ENTRIES = ['node.mjs', 'browser.mjs', 'index.cjs', 'onnx.mjs', 'onnx.cjs', 'webgpu/index.mjs', 'webgpu.cjs'];

// Specifiers of `import ... from`, `export ... from`, bare `import '...'` and `import('...')`,
// with comments removed first (JSDoc types say import('./index.js') too).
function specifiers(file) {
  const text = readFileSync(join(JS, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
  const statements = /^\s*(?:import|export)\s[^;'"`]*?\bfrom\s*(['"])([^'"]+)\1|^\s*import\s*(['"])([^'"]+)\3|\bimport\s*\(\s*(['"])([^'"]+)\5/gm;
  return [...text.matchAll(statements)].map((m) => m[2] ?? m[4] ?? m[6]);
}

// The package files a specifier in `file` names: relative paths, and package.json "imports"
// (#gridsample) under every condition; anything else is another package (or a node: module).
function targets(file, specifier) {
  if (specifier.startsWith('./') || specifier.startsWith('../')) return [normalize(join(dirname(file), specifier))];
  const mapped = PACKAGE.imports[specifier];
  if (mapped) return Object.values(mapped).map((f) => f.slice(2));
  return null;
}

function reach(entries) {
  const files = new Set();
  const packages = new Set();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop();
    if (files.has(file)) continue;
    files.add(file);
    for (const s of specifiers(file)) {
      const t = targets(file, s);
      if (t) queue.push(...t.filter((f) => !f.startsWith('dist/')));
      else packages.add(s.startsWith('node:') ? 'node:' : s);
    }
  }
  return { files, packages };
}

describe('import graph', () => {
  test('the library loads @bufbuild/protobuf and node: modules only: no image codec, no CLI module', () => {
    const { files, packages } = reach(ENTRIES);
    assert.ok(files.has('core/api.mjs') && files.has('core/wasm_heap.mjs') && files.has('onnx/graph.mjs') && files.has('webgpu/wgsl_rules.mjs'), `walked ${[...files].join(', ')}`);
    assert.deepEqual([...packages].sort(), ['@bufbuild/protobuf', 'node:']);
    assert.deepEqual([...files].filter((f) => f.startsWith('cli')), []);
  });

  test('the generated ONNX schema (make wasm) imports the protobuf runtime alone, and gridsample/onnx loads it', () => {
    assert.ok(specifiers('onnx/model_proto.mjs').includes('../dist/onnx_pb.mjs'));
    const imports = specifiers('dist/onnx_pb.mjs');
    assert.ok(imports.length > 0 && imports.every((s) => s === '@bufbuild/protobuf' || s.startsWith('@bufbuild/protobuf/')), imports.join(', '));
  });

  test("gridsample/ort reaches onnxruntime-web through its 'all' subpath alone: transformers.js's alias keys ('onnxruntime-web', 'onnxruntime-web/webgpu') cannot point it at itself", () => {
    assert.deepEqual([...reach(['ort.mjs']).packages].sort(), ['@bufbuild/protobuf', 'node:', 'onnxruntime-web/all']);
    // gridsample/transformers requires onnxruntime-node at run time (createRequire), nothing else.
    assert.deepEqual([...reach(['transformers.mjs']).packages].sort(), ['@bufbuild/protobuf', 'node:']);
  });

  test('no module imports pngjs: the CLI reads and writes PNG with cli/png_codec.mjs and node:zlib', () => {
    const importers = readdirSync(JS, { recursive: true })
      .filter((f) => /\.(mjs|cjs)$/.test(f) && !/^(node_modules|dist)\//.test(f) && specifiers(f).includes('pngjs'));
    assert.deepEqual(importers, []);
    assert.ok(!reach(['cli.mjs']).packages.has('pngjs'));
  });

  for (const [codec, module] of [['jpeg-js', 'cli/jpeg.mjs']]) {
    test(`${codec} is imported by ${module} alone, which the CLI reaches`, () => {
      const importers = readdirSync(JS, { recursive: true })
        .filter((f) => /\.(mjs|cjs)$/.test(f) && !/^(node_modules|dist)\//.test(f) && specifiers(f).includes(codec));
      assert.deepEqual(importers, [module]);
      assert.ok(reach(['cli.mjs']).packages.has(codec));
    });
  }
});
