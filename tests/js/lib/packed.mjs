// The npm package as a user installs it: js/ packed (npm pack, its prepack checks included) into a fresh temporary folder, and the tarball installed with the optional peers a test names into a new project there.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HERE = dirname(dirname(fileURLToPath(import.meta.url)));
export const PACKAGE = join(HERE, '..', '..', 'js');

// The versions the peers install at: js/'s devDependencies (its optional peers, pinned there),
// then tests/js's (onnxruntime-web): the same versions those folders' installs put in the npm
// cache, so that the install needs the registry only when the cache was cleared.
const VERSIONS = {
  ...JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8')).devDependencies,
  ...JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).devDependencies,
};

/** `name` at the version the tests install it at ('name@version' as given). */
export function pinned(name) {
  if (name.lastIndexOf('@') > 0) return name; // a version of its own: 'name@version'
  if (!VERSIONS[name]) throw new Error(`installPacked: no version of ${name} in js/ or tests/js devDependencies`);
  return `${name}@${VERSIONS[name]}`;
}

/** Packs js/ (npm pack, its prepack checks included) into the folder `work`: npm pack's JSON entry and the tarball's path. */
export async function packTarball(work) {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: PACKAGE, encoding: 'utf8' });
  const pack = JSON.parse(stdout)[0];
  return { pack, tarball: join(work, pack.filename) };
}

/** Runs npm install of `specs` in the project `app`, from the npm cache where it can. */
export async function npmInstall(app, specs) {
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...specs], { cwd: app, maxBuffer: 16 << 20 });
}

/**
 * Packs js/ into a new temporary folder (named from `prefix`) and installs the tarball there
 * into app/, a project whose package.json is `manifest` (name, version and private given), with
 * `peers` (package names) at the versions above, or at their own ('name@version'). Resolves to {work, app, tarball, pack}: `pack`
 * is npm pack's JSON entry. The caller removes `work`.
 */
export async function installPacked(prefix, { peers = [], manifest = {} } = {}) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const { pack, tarball } = await packTarball(work);
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, ...manifest }, null, 2));
  await npmInstall(app, [tarball, ...peers.map(pinned)]);
  return { work, app, tarball, pack };
}

/**
 * Removes the folders `paths` (projects installPacked made) without waiting for it: a detached
 * `rm -rf` that outlives the test file's process. Unlinking an installed project is disk
 * latency, not CPU, and on a disk mounted with online discard it can be long while other
 * processes write: transformers.test.mjs's two projects took 31 s in one run here (under 1 s of
 * it CPU), about 1 s in another; time in which the file would hold one of node --test's slots
 * doing nothing.
 */
export function removeInBackground(...paths) {
  paths = paths.filter(Boolean);
  if (!paths.length) return;
  const rm = spawn('rm', ['-rf', '--', ...paths], { detached: true, stdio: 'ignore' });
  rm.on('error', () => { for (const path of paths) rmSync(path, { recursive: true, force: true }); });
  rm.unref();
}
