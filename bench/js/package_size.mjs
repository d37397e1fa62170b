// What a user of the npm package gets (issue 27): the tarball, what `npm install` of it brings (size, packages, time), and the bytes a Vite build ships for a page using the core API, gridsample/core, the pool, or gridsample/onnx; standalone, not part of make bench.
//
//   node bench/js/package_size.mjs [PACKAGE_DIR] [--json FILE]
//
// PACKAGE_DIR is the package folder (default: this checkout's js/, built by `make wasm`), e.g. an
// older checkout's `git archive HEAD js LICENSE` with its js/dist, to compare before and after.
// The install comes from the npm cache where it can (--prefer-offline), as a user's second
// install would; its time is the median of 3 installs into fresh folders. Vite is tests/js's
// (scripts/npm_ci.sh tests/js). The onnx page leaves onnxruntime-web out of the bundle
// (external: the user's own copy, megabytes of its own) and installs the package's other
// optional peers the onnx entry reads models with, if it declares any.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { installedPackages, npm, npmInstall, npmWarnings, ROOT, treeBytes, viteBuiltPage } from './installs.mjs';

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : null;
const PACKAGE = resolve(args[0] ?? join(ROOT, 'js'));

const work = mkdtempSync(join(tmpdir(), 'gridsample-size-'));
try {
  const { stdout } = await npm(['pack', '--json', '--pack-destination', work], PACKAGE);
  const pack = JSON.parse(stdout)[0];
  const tarball = join(work, pack.filename);

  // Three installs into fresh folders: the first fills the cache if needed, the median is shown.
  const times = [];
  let app;
  let warnings = [];
  for (let i = 0; i < 3; i++) {
    app = join(work, `app${i}`);
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
    const t = performance.now();
    const r = await npmInstall([tarball], app);
    times.push(performance.now() - t);
    warnings = npmWarnings(r.stderr);
  }
  times.sort((a, b) => a - b);
  const modules = join(app, 'node_modules');
  const installed = installedPackages(modules);
  const install = {
    bytes: treeBytes(modules),
    packages: installed.length,
    names: installed,
    ms: Math.round(times[1]),
    warnings,
  };

  // The onnx page's protobuf reader, where the package makes it an optional peer.
  const manifest = JSON.parse(readFileSync(join(modules, 'gridsample', 'package.json'), 'utf8'));
  const onnxPeers = Object.keys(manifest.peerDependencies ?? {})
    .filter((n) => !/^onnxruntime-|^pngjs$|^jpeg-js$/.test(n))
    .map((n) => `${n}@${manifest.peerDependencies[n]}`);
  if (onnxPeers.length) await npmInstall(['--no-save', ...onnxPeers], app);

  const PAGES = {
    core: `import { load } from 'gridsample';
load().then((gs) => { document.body.textContent = typeof gs.gridSample; });`,
    'gridsample-core': `import { load } from 'gridsample/core';
load().then((gs) => { document.body.textContent = typeof gs.gridSample; });`,
    pool: `import { createPool } from 'gridsample';
createPool({ workers: 2 }).then((pool) => { document.body.textContent = typeof pool.warpAffine; });`,
    onnx: `import { InferenceSession } from 'gridsample/onnx';
import * as ort from 'onnxruntime-web';
InferenceSession.create(new URL('model.onnx', location.href), { ort }).then((s) => { document.body.textContent = s.inputNames.join(); });`,
  };
  const pages = {};
  for (const [name, code] of Object.entries(PAGES)) pages[name] = await viteBuiltPage(app, name, code, { external: ['onnxruntime-web'] });

  const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
  const mb = (b) => `${(b / 1048576).toFixed(2)} MB`;
  console.log(`package: ${PACKAGE}
tarball ${pack.filename}: ${kb(pack.size)} packed, ${kb(pack.unpackedSize)} unpacked, ${pack.entryCount} files
npm install (median of 3, --prefer-offline): ${mb(install.bytes)} in node_modules, ${install.packages} packages, ${(install.ms / 1000).toFixed(1)} s
  packages: ${install.names.join(', ')}
  npm warnings: ${install.warnings.length ? install.warnings.join(' | ') : 'none'}
${onnxPeers.length ? `onnx page also installs: ${onnxPeers.join(', ')}\n` : ''}
| Vite page | JS | JS gzip | wasm | wasm gzip | files |
| --- | ---: | ---: | ---: | ---: | ---: |`);
  for (const [name, s] of Object.entries(pages)) {
    console.log(`| ${name} | ${kb(s.js)} | ${kb(s.jsGzip)} | ${kb(s.wasm)} | ${kb(s.wasmGzip)} | ${s.files} |`);
  }
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ package: PACKAGE, tarball: pack, install, onnxPeers, pages }, null, 2));
} finally {
  rmSync(work, { recursive: true, force: true });
}
