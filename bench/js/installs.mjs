// What an npm install and a Vite page cost, for the standalone package measurements (package_size.mjs, onnx_readers.mjs): npm in a folder, the bytes and packages under node_modules, and a page built with tests/js's Vite.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

const run = promisify(execFile);
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs npm with `argv` in `cwd`; resolves to {stdout, stderr}. */
export const npm = (argv, cwd) => run('npm', argv, { cwd, maxBuffer: 64 << 20 });

/** `npm install ...packages` from the npm cache where it can, as a user's second install would. */
export const npmInstall = (packages, cwd) => npm(['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages], cwd);

/** npm's warning lines in an install's stderr. */
export const npmWarnings = (stderr) => stderr.split('\n').filter((l) => /warn/i.test(l));

/** Bytes of every file under `dir`. */
export function treeBytes(dir) {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  }
  return total;
}

/** The packages installed under a node_modules folder (nested ones too, scoped ones each), by name. */
export function installedPackages(modules) {
  const names = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      if (e.name.startsWith('@')) {
        for (const s of readdirSync(join(dir, e.name), { withFileTypes: true })) {
          if (s.isDirectory()) visit(join(dir, e.name, s.name), `${e.name}/${s.name}`);
        }
      } else {
        visit(join(dir, e.name), e.name);
      }
    }
  };
  const visit = (dir, name) => {
    names.push(name);
    try {
      walk(join(dir, 'node_modules'));
    } catch {
      // no nested node_modules
    }
  };
  walk(modules);
  return names.sort();
}

/**
 * Builds a page whose module script is `code` (written to DIR/NAME.js beside DIR/NAME.html) with
 * tests/js's Vite (scripts/npm_ci.sh tests/js) into DIR/dist-NAME, leaving `external` modules
 * out; resolves to the bytes it ships: {js, jsGzip, wasm, wasmGzip, files} (gzip -9, HTML aside).
 */
export async function viteBuiltPage(dir, name, code, { external = [] } = {}) {
  const { build } = await import(pathToFileURL(join(ROOT, 'tests', 'js', 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  writeFileSync(join(dir, `${name}.js`), code);
  writeFileSync(join(dir, `${name}.html`), `<!doctype html><html><body><script type="module" src="./${name}.js"></script></body></html>`);
  const outDir = join(dir, `dist-${name}`);
  await build({
    root: dir,
    configFile: false,
    logLevel: 'error',
    base: './',
    build: { outDir, emptyOutDir: true, rollupOptions: { input: join(dir, `${name}.html`), external } },
    worker: { format: 'es' },
  });
  delete process.env.NODE_ENV; // set by Vite's build()
  const sizes = { js: 0, jsGzip: 0, wasm: 0, wasmGzip: 0, files: 0 };
  for (const e of readdirSync(outDir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || e.name.endsWith('.html')) continue;
    const bytes = readFileSync(join(e.parentPath, e.name));
    const kind = e.name.endsWith('.wasm') ? 'wasm' : 'js';
    sizes[kind] += bytes.length;
    sizes[`${kind}Gzip`] += gzipSync(bytes, { level: 9 }).length;
    sizes.files++;
  }
  return sizes;
}
