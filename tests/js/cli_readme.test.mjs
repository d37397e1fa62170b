// README's command line as a new user meets it (issue 44): in a new project, exactly the `npm install` lines of README's Install section and of its command-line section (gridsample as the packed tarball, the other packages at the tests' versions), then its `npx gridsample` lines in order, each exiting 0 with the output it promises.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';

import jpeg from 'jpeg-js';
import pngjs from 'pngjs';

import { npmInstall, packTarball, pinned, removeInBackground } from './lib/packed.mjs';

const { PNG } = pngjs;
const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const README = join(HERE, '..', '..', 'README.md');
const [W, H] = [64, 48];

/** The lines of the first ```sh block under README's `heading`, comments and blank lines left out. */
function shellLines(heading) {
  const text = readFileSync(README, 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `README.md has no "${heading}" heading`);
  const block = /```sh\n([\s\S]*?)\n```/.exec(text.slice(at));
  assert.ok(block, `README.md's "${heading}" has no sh block`);
  return block[1].split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
}

let work;
let app;
let tarball;
before(async () => {
  work = mkdtempSync(join(tmpdir(), 'gridsample-readme-cli-'));
  ({ tarball } = await packTarball(work));
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'readme-user', version: '1.0.0', private: true }, null, 2));
  // The files the command lines name: a photo (as PNG and as JPEG) and a model.
  const photo = new PNG({ width: W, height: H });
  for (let i = 0; i < photo.data.length; ++i) photo.data[i] = (i % 4 === 3) ? 255 : (i * 7 + (i >> 8) * 13) & 255;
  writeFileSync(join(app, 'photo.png'), PNG.sync.write(photo));
  writeFileSync(join(app, 'photo.jpg'), jpeg.encode({ width: W, height: H, data: photo.data }, 90).data);
  copyFileSync(join(HERE, '..', '..', 'web', 'demo', 'models', 'stn28.onnx'), join(app, 'model.onnx')); // a spatial transformer: AffineGrid, GridSample
});
after(() => removeInBackground(work));

test("README's install lines, then its command lines, in a new project: each exits 0 and writes what it says", async () => {
  const lines = [...shellLines('## Install'), ...shellLines('### The command line')];
  const commands = lines.filter((l) => l.startsWith('npx '));
  assert.ok(commands.some((l) => l.startsWith('npx gridsample warp photo.png out.png')), `README's command-line lines: ${commands.join('; ')}`);
  for (const line of lines) {
    const words = line.split(/\s+/);
    if (words[0] === 'npm') {
      assert.equal(words[1], 'install', `README: "${line}" is not an npm install line`);
      // gridsample is this repository's package, packed; the others at the tests' versions (npm's cache).
      await npmInstall(app, words.slice(2).map((name) => (name === 'gridsample' ? tarball : pinned(name))));
      continue;
    }
    assert.equal(words[0], 'npx', `README: "${line}" is neither npm install nor npx`);
    assert.doesNotMatch(line, /[<>|;&$`]/, `README: "${line}": a line for the shell; this test runs plain commands`);
    let result;
    try {
      result = await run('npx', words.slice(1), { cwd: app, encoding: 'utf8', maxBuffer: 16 << 20 });
    } catch (e) {
      assert.fail(`README: "${line}" exits ${e.code}: ${e.stderr}`);
    }
    if (words[2] === 'warp') {
      const output = readFileSync(join(app, words[4]));
      const image = /\.jpe?g$/i.test(words[4]) ? jpeg.decode(output, { useTArray: true }) : PNG.sync.read(output);
      const size = words.includes('--size') ? words[words.indexOf('--size') + 1].split('x').map(Number) : [W, H];
      assert.deepEqual([image.width, image.height], size, `README: "${line}": ${words[4]}'s size`);
      assert.match(result.stdout, new RegExp(`^${words[4]}: ${size.join('x')} from ${W}x${H}, `), line);
    } else if (words[2] === 'onnx' && words[3] === 'inspect') {
      assert.match(result.stdout, /^"model\.onnx": opset 20, .*\n[\s\S]*AffineGrid-20 [\s\S]*GridSample-20 mode=linear/, `README: "${line}": ${result.stdout}`);
    }
  }
});
