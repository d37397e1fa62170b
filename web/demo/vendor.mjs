#!/usr/bin/env node
// Builds web/demo/vendor/ for the ONNX page (`make demo`, tests/js/demo_onnx.test.mjs): the page's module worker with its bare imports resolved by the page's import map.
//
// Chromium's module workers do not see a document's import map, so onnx_worker.mjs is bundled:
// every bare specifier stays an import of the file the import map names (rewritten relative to
// vendor/, so the package's .wasm files are still found next to their loaders), and every
// relative import (the package's onnx.mjs, its generated ONNX schema, the page's helpers) is
// inlined, dynamic ones too (one file).
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const DEMO = dirname(fileURLToPath(import.meta.url));
const VENDOR = join(DEMO, 'vendor');

/** The `imports` of onnx.html's import map, the one place the page's bare specifiers are mapped. */
export function pageImportMap() {
  const html = readFileSync(join(DEMO, 'onnx.html'), 'utf8');
  const json = html.match(/<script type="importmap">([\s\S]*?)<\/script>/)?.[1];
  if (!json) throw new Error('vendor.mjs: onnx.html has no <script type="importmap">');
  return JSON.parse(json).imports;
}

// An import map target (relative to the page) as an import from a module in vendor/.
function fromVendor(target) {
  const path = relative(VENDOR, normalize(resolve(DEMO, target))).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

async function bundle(rolldown, input, file, paths = {}) {
  await rolldown.build({
    input: join(DEMO, input),
    cwd: DEMO,
    platform: 'browser',
    logLevel: 'warn',
    external: Object.keys(paths),
    output: { file: join(VENDOR, file), format: 'esm', paths, codeSplitting: false, comments: { legal: true, annotation: false, jsdoc: false } },
  });
}

/** Writes vendor/onnx_worker.mjs. */
export async function buildVendor() {
  const rolldown = await import('rolldown');
  const paths = Object.fromEntries(Object.entries(pageImportMap()).map(([name, target]) => [name, fromVendor(target)]));
  await bundle(rolldown, 'onnx_worker.mjs', 'onnx_worker.mjs', paths);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) {
  buildVendor().then(
    () => console.log(`vendor.mjs: wrote ${relative(process.cwd(), VENDOR) || '.'}/onnx_worker.mjs`),
    (e) => {
      console.error(`vendor.mjs: ${e.message}${e.code === 'ERR_MODULE_NOT_FOUND' ? ' (install first: scripts/npm_ci.sh web/demo)' : ''}`);
      process.exit(1);
    },
  );
}
