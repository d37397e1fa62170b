// What `npm install gridsample` brings (issue 27): the packed tarball installed alone into a fresh project holds gridsample and nothing else, every peer is optional, the core API runs there, and the entry points that need a peer say in one line which package to install.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

import pngjs from 'pngjs';

import { installPacked } from './lib/packed.mjs';

const { PNG } = pngjs;

const run = promisify(execFile);

let work;
let app;

before(async () => {
  // No peers: a package with no dependencies needs nothing else.
  ({ work, app } = await installPacked('gridsample-deps-', { manifest: { type: 'module' } }));
});

after(() => rmSync(work, { recursive: true, force: true }));

/** The stderr of a command that must fail. */
async function failure(file, args) {
  const e = await run(file, args, { cwd: app }).then(() => null, (error) => error);
  assert.ok(e, `${args.join(' ')} succeeded`);
  return e.stderr;
}

describe('npm install of the tarball alone', () => {
  test('installs gridsample and no other package', () => {
    const installed = readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.'));
    assert.deepEqual(installed, ['gridsample']);
  });

  test('the manifest has no dependencies; every peer is optional; @types/node is none of them', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'gridsample', 'package.json'), 'utf8'));
    assert.equal(manifest.dependencies, undefined);
    for (const name of Object.keys(manifest.peerDependencies)) assert.equal(manifest.peerDependenciesMeta?.[name]?.optional, true, name);
    assert.ok(!Object.hasOwn(manifest.peerDependencies, '@types/node'));
  });

  test('the core API runs', async () => {
    writeFileSync(join(app, 'core.mjs'), `import { load } from 'gridsample';
const gs = await load();
console.log(gs.warpAffine({ data: new Uint8ClampedArray(4 * 4 * 4).fill(200), width: 4, height: 4 }, [1, 0, 0, 0, 1, 0]).data[0]);`);
    const { stdout } = await run(process.execPath, ['core.mjs'], { cwd: app });
    assert.equal(stdout, '200\n');
  });

  test('gridsample/onnx imports, and create() names its protobuf reader in one line', async () => {
    // Options that pass create()'s checks, so that it comes to reading the model.
    const create = "const { InferenceSession } = await import('gridsample/onnx'); const ort = { InferenceSession: { create() {} }, Tensor: class {} };"
      + ' await InferenceSession.create(new Uint8Array(8), { ort }).catch((e) => { console.error(e.message); process.exit(1); });';
    const stderr = await failure(process.execPath, ['--input-type=module', '-e', create]);
    assert.equal(stderr, 'gridsample/onnx needs the npm package @bufbuild/protobuf: npm install @bufbuild/protobuf\n');
  });

  test('the CLI reads and writes PNG with nothing else installed', async () => {
    const png = new PNG({ width: 16, height: 12 });
    png.data.fill(200);
    writeFileSync(join(app, 'in.png'), PNG.sync.write(png));
    await run(join(app, 'node_modules', '.bin', 'gridsample'), ['warp', 'in.png', 'out.png', '--rotate', '10'], { cwd: app });
    const out = PNG.sync.read(readFileSync(join(app, 'out.png')));
    assert.deepEqual([out.width, out.height, out.data[4 * (6 * 16 + 8)]], [16, 12, 200]);
  });

  for (const [input, output] of [['in.jpg', 'out.jpg'], ['in.png', 'out.jpg']]) {
    test(`the CLI names jpeg-js in one line (${input} to ${output})`, async () => {
      const stderr = await failure(join(app, 'node_modules', '.bin', 'gridsample'), ['warp', input, output, '--rotate', '10']);
      assert.equal(stderr, 'gridsample: reading or writing JPEG needs the npm package jpeg-js: npm install jpeg-js\n');
    });
  }
});
