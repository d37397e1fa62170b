#!/usr/bin/env node
// Wasm conformance runner: replays every golden case of DIR through the npm package and prints the failures.
import { existsSync, statSync } from 'node:fs';

import { load } from '../../js/node.mjs';
import { checkCase, describeResult, listCases } from './lib/cases.mjs';

const USAGE = `usage: node tests/js/conformance.mjs DIR [--variant simd|scalar] [--filter SUBSTR] [--verbose]
  DIR          directory of golden cases (<name>.json + <name>.*.bin)
  --variant V  wasm variant to load (default: simd where the engine supports it)
  --filter S   only cases whose name contains S
  --verbose    also print passing cases
Prints every failure, pass counts per category and a last line "N passed, M failed";
exits 1 on any failure or when no case runs, 2 on a usage error.`;

function usage(message) {
  if (message) process.stderr.write(`conformance.mjs: ${message}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

let dir;
let variant = 'auto';
let filter = '';
let verbose = false;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; ++i) {
  const a = args[i];
  if (a === '--help' || a === '-h') {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  } else if (a === '--verbose' || a === '-v') {
    verbose = true;
  } else if (a === '--variant' || a === '--filter') {
    if (i + 1 >= args.length) usage(`${a} needs a value`);
    if (a === '--variant') variant = args[++i];
    else filter = args[++i];
  } else if (a.startsWith('--variant=')) {
    variant = a.slice('--variant='.length);
  } else if (a.startsWith('--filter=')) {
    filter = a.slice('--filter='.length);
  } else if (a.startsWith('-')) {
    usage(`unknown option ${a}`);
  } else if (dir === undefined) {
    dir = a;
  } else {
    usage(`more than one DIR (${dir}, ${a})`);
  }
}
if (dir === undefined) usage();
if (!['simd', 'scalar', 'auto'].includes(variant)) usage(`--variant must be simd or scalar, got ${variant}`);
if (!existsSync(dir) || !statSync(dir).isDirectory()) {
  process.stderr.write(`conformance.mjs: ${dir} is not a directory\n`);
  process.exit(1);
}

const names = listCases(dir);
if (names.length === 0) {
  process.stderr.write(`conformance.mjs: no cases (*.json other than index.json) in ${dir}\n`);
  process.exit(1);
}
const selected = names.filter((n) => n.includes(filter));
// A mistyped filter must not look like a clean run.
if (selected.length === 0) {
  process.stderr.write(`conformance.mjs: no case in ${dir} matches --filter ${filter}\n`);
  process.exit(1);
}

const gs = await load({ variant });
console.log(`conformance.mjs: ${selected.length} cases from ${dir} through ${gs.backend} (target ${gs.target})`);
const categories = new Map();
let passed = 0;
let failed = 0;
for (const name of selected) {
  const r = checkCase(gs, dir, name, 'heap');
  const key = r.category || '(none)';
  const count = categories.get(key) || { passed: 0, failed: 0 };
  if (r.passed) { ++passed; ++count.passed; } else { ++failed; ++count.failed; }
  categories.set(key, count);
  if (!r.passed || verbose) console.log(describeResult(r, gs.backend));
}
for (const [category, count] of [...categories].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
  console.log(`category ${category}: ${count.passed}/${count.passed + count.failed} passed`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
