// The gridsample CLI with hostile arguments and files: each bad argument or input exits with its status and one line of stderr, never a stack trace.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';

const HERE = dirname(fileURLToPath(import.meta.url));
const JS = join(HERE, '..', '..', 'js');

describe('gridsample CLI with hostile arguments and files', () => {
  let work;
  let cli; // path of cli.mjs in a copy of the package that finds the PNG codec
  let png; // a valid 5x4 RGBA PNG
  const results = new Map();

  // A PNG file with the given IHDR size and IDAT payload (not checked against the size).
  function pngBytes(width, height, idat = deflateSync(Buffer.alloc(10)), idatLength) {
    const crcTable = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      return c >>> 0;
    });
    const crc = (buf) => {
      let c = 0xffffffff;
      for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
      return (c ^ 0xffffffff) >>> 0;
    };
    const chunk = (type, data, length = data.length) => {
      const head = Buffer.alloc(4);
      head.writeUInt32BE(length);
      const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
      const tail = Buffer.alloc(4);
      tail.writeUInt32BE(crc(body));
      return Buffer.concat([head, body, tail]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width, 0);
    ihdr.writeUInt32BE(height, 4);
    ihdr[8] = 8; // bit depth
    ihdr[9] = 6; // RGBA
    return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
      chunk('IDAT', idat, idatLength), chunk('IEND', Buffer.alloc(0))]);
  }

  function validPng() {
    const rows = [];
    for (let y = 0; y < 4; ++y) rows.push(Buffer.from([0, ...Array.from({ length: 20 }, (_, i) => (i * 13 + y * 7) & 255)]));
    return pngBytes(5, 4, deflateSync(Buffer.concat(rows)));
  }

  const file = (name, contents) => {
    const p = join(work, name);
    writeFileSync(p, contents);
    return p;
  };

  // [what, args (a function of the folder), exit status, stderr pattern]
  const CASES = [
    ['a missing input', () => ['warp', join(work, 'missing.png'), join(work, 'o1.png')], 1, /^gridsample: cannot read .*missing\.png: no such file or directory$/],
    ['a directory as input', () => ['warp', work, join(work, 'o2.png')], 1, /^gridsample: cannot read .*: it is a directory$/],
    ['/dev/zero as input (endless)', () => ['warp', '/dev/zero', join(work, 'o3.png')], 1, /^gridsample: cannot read \/dev\/zero: it is not a regular file or a pipe$/],
    ['a text file', () => ['warp', file('text.png', 'hello\n'), join(work, 'o4.png')], 1, /^gridsample: .*text\.png is not a valid PNG file \(.+\)$/],
    ['an empty file', () => ['warp', file('empty.png', ''), join(work, 'o5.png')], 1, /^gridsample: .*empty\.png is not a valid PNG file \(the file is empty\)$/],
    ['a truncated PNG', () => ['warp', file('cut.png', validPng().subarray(0, 40)), join(work, 'o6.png')], 1, /^gridsample: .*cut\.png is not a valid PNG file \(.+\)$/],
    ['a PNG whose header says 0x0', () => ['warp', file('zero.png', pngBytes(0, 0)), join(work, 'o7.png')], 1, /^gridsample: .*zero\.png is not a valid PNG file \(its header says 0x0 pixels; both sides must be at least 1\)$/],
    ['a PNG whose header says 100000x100000', () => ['warp', file('huge.png', pngBytes(100000, 100000)), join(work, 'o8.png')], 1,
      /^gridsample: .*huge\.png is not a valid PNG file \(it is truncated or corrupt: its header says 100000x100000 pixels \(40000100000 bytes of image data once inflated\), more than its 11 bytes of compressed image data can hold \(at most 11352\)\)$/],
    ['a PNG whose header says 2^31-1 x 2^31-1 (crashed zlib before)', () => ['warp', file('max.png', pngBytes(2 ** 31 - 1, 2 ** 31 - 1)), join(work, 'o9.png')], 1,
      /^gridsample: .*max\.png is not a valid PNG file \(it is truncated or corrupt: its header says 2147483647x2147483647 pixels /],
    ['a PNG of 40000x20000 (took 36 s and 9 GB before)', () => ['warp', file('wide.png', pngBytes(40000, 20000)), join(work, 'o10.png')], 1, /^gridsample: .*wide\.png is not a valid PNG file \(it is truncated or corrupt: its header says 40000x20000 pixels /],
    ['a small PNG to a 32768x32768 output', () => ['warp', file('in1.png', validPng()), join(work, 'o11.png'), '--size', '32768x32768'], 1, /^gridsample: cannot warp .*in1\.png \(5x4 pixels\) to 32768x32768: as 8-bit RGBA the two images need 4294967376 bytes, more than the 2 GiB wasm heap can hold$/],
    ['an IDAT chunk whose length is 4 GB', () => ['warp', file('len.png', pngBytes(4, 4, deflateSync(Buffer.alloc(68)), 0xfffffff0)), join(work, 'o12.png')], 1, /^gridsample: .*len\.png is not a valid PNG file \(.+\)$/],
    ['an output folder that does not exist', () => ['warp', file('in2.png', validPng()), join(work, 'no', 'such', 'o.png')], 1, /^gridsample: cannot write .*o\.png: no such file or directory$/],
    ['--theta of five numbers', () => ['warp', 'in.png', 'out.png', '--theta', '1,0,0,0,1'], 2, /^gridsample: --theta: expected six numbers A,B,C,D,E,F, got "1,0,0,0,1"$/],
    ['--theta with a word', () => ['warp', 'in.png', 'out.png', '--theta', '1,0,0,0,1,x'], 2, /^gridsample: --theta: expected a number, got "x"$/],
    ['--theta with an empty entry', () => ['warp', 'in.png', 'out.png', '--theta', '1,,0,0,1,0'], 2, /^gridsample: --theta: expected a number, got ""$/],
    ['--theta with 1e999', () => ['warp', 'in.png', 'out.png', '--theta', '1,0,0,0,1,1e999'], 2, /^gridsample: --theta: expected a number, got "1e999"$/],
    ['--theta with NaN', () => ['warp', 'in.png', 'out.png', '--theta=NaN,0,0,0,1,0'], 2, /^gridsample: --theta: expected a number, got "NaN"$/],
    ['--theta with hex', () => ['warp', 'in.png', 'out.png', '--theta', '0x1,0,0,0,1,0'], 2, /^gridsample: --theta: expected a number, got "0x1"$/],
    ['--theta empty', () => ['warp', 'in.png', 'out.png', '--theta='], 2, /^gridsample: --theta: expected six numbers A,B,C,D,E,F, got ""$/],
    ['--scale of three', () => ['warp', 'in.png', 'out.png', '--scale', '1,2,3'], 2, /^gridsample: --scale: expected S or SX,SY, got "1,2,3"$/],
    ['--translate of words', () => ['warp', 'in.png', 'out.png', '--translate', 'a,b'], 2, /^gridsample: --translate: expected a number, got "a"$/],
    ['--size negative', () => ['warp', 'in.png', 'out.png', '--size=-5x5'], 2, /^gridsample: --size: expected WxH with each side from 1 to 32768, e\.g\. 640x480; got "-5x5"$/],
    ['--size of three sides', () => ['warp', 'in.png', 'out.png', '--size', '10x10x10'], 2, /^gridsample: --size: expected WxH .*got "10x10x10"$/],
    ['--mode empty', () => ['warp', 'in.png', 'out.png', '--mode='], 2, /^gridsample: --mode: expected linear, bilinear, nearest, cubic or bicubic, got ""$/],
    ['--align-corners=yes', () => ['warp', 'in.png', 'out.png', '--align-corners=yes'], 2, /^gridsample: --align-corners takes no value$/],
    ['an unknown flag', () => ['warp', 'in.png', 'out.png', '--frobnicate'], 2, /^gridsample: unknown option --frobnicate$/],
    ['an unknown short flag', () => ['warp', 'in.png', 'out.png', '-z'], 2, /^gridsample: unknown option -z \(a file name starting with - goes after --\)$/],
    ['an unknown command', () => ['wrap', 'in.png', 'out.png'], 2, /^gridsample: unknown command "wrap"; the commands are warp and onnx$/],
  ];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gridsample-hostile-cli-'));
    // The package's files next to tests/js's node_modules (jpeg-js, its optional peer; PNG needs none).
    const pkg = join(work, 'pkg');
    mkdirSync(pkg);
    // Every module the package ships (its "files": the entry points and the folders by job, less
    // dist/ and what `npm pack` adds).
    const shipped = JSON.parse(readFileSync(join(JS, 'package.json'), 'utf8')).files.filter((f) => /\.(mjs|cjs)$|^[a-z]+\/$/.test(f) && !f.startsWith('dist/'));
    for (const f of [...shipped, 'package.json']) cpSync(join(JS, f), join(pkg, f), { recursive: true });
    symlinkSync(join(JS, 'dist'), join(pkg, 'dist'));
    symlinkSync(join(HERE, 'node_modules'), join(pkg, 'node_modules'));
    cli = join(pkg, 'cli.mjs');
    png = file('good.png', validPng());
    const run = (args) => new Promise((resolve) => {
      execFile(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60000 }, (e, stdout, stderr) => {
        resolve({ code: e ? e.code : 0, signal: e ? e.signal : null, stdout, stderr });
      });
    });
    const queue = CASES.map(([what, args]) => [what, args()]);
    queue.push(['valid: θ with ±1e38 entries', ['warp', png, join(work, 'big-theta.png'), '--theta', '1e38,0,0,0,1,-1e38']]);
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (queue.length) {
        const [what, args] = queue.shift();
        results.set(what, await run(args));
      }
    }));
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const [what, , code, pattern] of CASES) {
    test(what, () => {
      const r = results.get(what);
      assert.equal(r.signal, null, `killed by ${r.signal}`);
      assert.equal(r.code, code, `exit ${r.code}; stderr: ${r.stderr}`);
      assert.equal(r.stdout, '');
      const lines = r.stderr.split('\n');
      assert.equal(lines.pop(), '', 'stderr ends with a newline');
      // One line; usage errors add the pointer to --help. Never a stack trace.
      assert.match(lines[0], pattern);
      assert.deepEqual(lines.slice(1), code === 2 ? ["Run 'gridsample --help' for the options."] : []);
      assert.doesNotMatch(r.stderr, /^\s+at /m);
    });
  }

  test('valid: θ with ±1e38 entries gives a transparent image (zeros padding)', () => {
    const r = results.get('valid: θ with ±1e38 entries');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /big-theta\.png: 5x4 from 5x4, bilinear\/zeros, wasm-/);
    assert.ok(existsSync(join(work, 'big-theta.png')));
  });
});
