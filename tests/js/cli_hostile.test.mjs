// The `gridsample warp` command under hostile use (issue 26): a write that fails partway leaves the old file, forged headers and decompression bombs fail fast in bounded memory, and the summary times every step.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  chmodSync, closeSync, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';

import jpeg from 'jpeg-js';
import pngjs from 'pngjs';

import { checkMatrices, parseArgs, UsageError } from '../../js/cli/args.mjs';
import { load } from '../../js/node.mjs';
import { FileError, FORMATS, loadCodecs, readImage, writeFileAtomic } from '../../js/cli/files.mjs';
import { startProgress } from '../../js/cli/progress.mjs';

const { PNG } = pngjs;
const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'js', 'cli.mjs');
const LIMIT_MS = 20000; // a hang guard: each run here takes well under a second

let work;
before(async () => {
  work = mkdtempSync(join(tmpdir(), 'gridsample-cli-hostile-'));
  await loadCodecs(FORMATS); // for the checks made in this process
});
after(() => rmSync(work, { recursive: true, force: true }));

// Runs `file args` to its end: {code, signal, stdout, stderr}, whatever the exit status.
function spawn(file, args, options = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { encoding: 'utf8', timeout: LIMIT_MS, maxBuffer: 1 << 20, ...options }, (e, stdout, stderr) => {
      resolve({ code: e ? e.code : 0, signal: e?.signal ?? null, stdout, stderr });
    });
  });
}

// Runs each of `runs` ([name, file, args, options]) two at a time (each is a process); a Map
// from name to its result.
async function spawnAll(runs) {
  const results = new Map();
  const queue = [...runs];
  await Promise.all([0, 1].map(async () => {
    while (queue.length) {
      const [name, file, args, options] = queue.shift();
      results.set(name, await spawn(file, args, options));
    }
  }));
  return results;
}

// What readImage throws for `bytes` in a file named `name`: the CLI's message for it.
function readError(name, bytes) {
  const path = join(work, name);
  writeFileSync(path, bytes);
  try {
    readImage(path);
  } catch (e) {
    if (e instanceof FileError) return e.message;
    throw e;
  }
  assert.fail(`${name} was read`);
}

// A picture with every channel varying, so that its PNG does not compress to nothing.
function picture(width, height) {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; ++i) png.data[i] = (i * 37 + (i >> 7) * 11) & 255;
  return PNG.sync.write(png);
}

// The folder's file names, sorted.
const listing = (dir) => readdirSync(dir).sort();

describe('the output is written whole or not at all', () => {
  let dir; // limited/ (the file size limit's runs); in.png, kept.png and link.png to it (the other)
  const original = {};
  let results;
  before(async () => {
    dir = join(work, 'atomic');
    mkdirSync(join(dir, 'limited'), { recursive: true });
    writeFileSync(join(dir, 'limited', 'a.png'), picture(120, 90));
    writeFileSync(join(dir, 'limited', 'b.png'), 'the old b.png\n');
    Object.assign(original, { a: readFileSync(join(dir, 'limited', 'a.png')), b: readFileSync(join(dir, 'limited', 'b.png')), files: listing(join(dir, 'limited')) });
    writeFileSync(join(dir, 'in.png'), picture(120, 90));
    writeFileSync(join(dir, 'kept.png'), 'old');
    chmodSync(join(dir, 'kept.png'), 0o640);
    symlinkSync('kept.png', join(dir, 'link.png'));
    // Node ignores SIGXFSZ, so a write past `ulimit -f` fails with EFBIG instead of killing it.
    const limited = (output) => [output, 'bash', ['-c', 'ulimit -f 1 && exec "$0" "$@"', process.execPath, CLI, 'warp', 'a.png', output, '--rotate', '3'],
      { cwd: join(dir, 'limited') }];
    results = await spawnAll([limited('a.png'), limited('b.png'),
      ['link', process.execPath, [CLI, 'warp', 'in.png', 'link.png', '--rotate', '3'], { cwd: dir }]]);
  });

  for (const [what, output] of [['the input itself', 'a.png'], ['an existing output', 'b.png']]) {
    test(`a write that fails partway (ulimit -f 1) leaves ${what} as it was, and no temporary file`, () => {
      const r = results.get(output);
      assert.equal(r.signal, null, `killed by ${r.signal}`);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr, `gridsample: cannot write ${output}: it would exceed the file size limit (ulimit -f)\n`);
      assert.ok(readFileSync(join(dir, 'limited', 'a.png')).equals(original.a), 'a.png changed');
      assert.ok(readFileSync(join(dir, 'limited', 'b.png')).equals(original.b), 'b.png changed');
      assert.deepEqual(listing(join(dir, 'limited')), original.files, 'files left behind');
    });
  }

  test('a replaced output keeps its permissions; a symbolic link is written through', () => {
    const target = join(dir, 'kept.png');
    const r = results.get('link');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(lstatSync(join(dir, 'link.png')).isSymbolicLink(), 'the link was replaced by a file');
    assert.equal(statSync(target).mode & 0o777, 0o640);
    assert.deepEqual([PNG.sync.read(readFileSync(target)).width], [120]);
  });

  test('writeFileAtomic: an aborted write (Ctrl-C) removes its temporary file and leaves the target', async () => {
    const target = join(dir, 'aborted.png');
    writeFileSync(target, 'before');
    const files = listing(dir);
    const controller = new AbortController();
    const writing = writeFileAtomic(target, Buffer.alloc(1 << 20, 7), { signal: controller.signal });
    controller.abort();
    await assert.rejects(writing, { name: 'AbortError' });
    assert.equal(readFileSync(target, 'utf8'), 'before');
    assert.deepEqual(listing(dir), files);
  });
});

// --- hostile inputs -------------------------------------------------------------------------

function pngChunk(type, data) {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

// A PNG of the given IHDR fields around one IDAT chunk of `zlibData`.
function pngFile({ width, height, depth = 8, colour = 6, interlace = 0 }, zlibData) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  [ihdr[8], ihdr[9], ihdr[12]] = [depth, colour, interlace];
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', zlibData),
    pngChunk('IEND', Buffer.alloc(0))]);
}

// A zlib stream that inflates to `mib` MiB of zeros in about `mib` KiB: one deflate segment of
// a MiB of zeros after zeros, repeated (deflating the whole would take seconds).
async function zeroBomb(mib) {
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const segment = async () => {
    const out = [];
    const onData = (c) => out.push(c);
    deflate.on('data', onData);
    deflate.write(Buffer.alloc(1 << 20));
    await new Promise((resolve) => deflate.flush(zlib.constants.Z_SYNC_FLUSH, resolve));
    await new Promise((resolve) => setImmediate(resolve));
    deflate.off('data', onData);
    return Buffer.concat(out);
  };
  const first = await segment();
  const next = await segment();
  deflate.destroy();
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((mib * 2 ** 20) % 65521) * 65536 + 1) >>> 0); // Adler-32 of zeros: a = 1, b = the length
  // zlib header, the segments, an empty final stored block, the checksum.
  return Buffer.concat([Buffer.from([0x78, 0xda]), first, ...Array(mib - 1).fill(next), Buffer.from([1, 0, 0, 0xff, 0xff]), adler]);
}

// A baseline JPEG of 16x16 pixels whose frame header then says width x height.
function forgedJpeg(width, height) {
  const bytes = Buffer.from(jpeg.encode({ width: 16, height: 16, data: Buffer.alloc(16 * 16 * 4, 200) }, 90).data);
  const frame = bytes.indexOf(Buffer.from([0xff, 0xc0]));
  bytes.writeUInt16BE(height, frame + 5);
  bytes.writeUInt16BE(width, frame + 7);
  return bytes;
}

describe('forged headers and decompression bombs: a clear error at once, in bounded memory', () => {
  let rssPreload;
  before(() => {
    // Reports the command's peak resident memory (KiB) in the file GRIDSAMPLE_TEST_RSS names.
    rssPreload = join(work, 'rss.cjs');
    writeFileSync(rssPreload, "process.on('exit', () => require('fs').writeFileSync(process.env.GRIDSAMPLE_TEST_RSS, String(process.resourceUsage().maxRSS)));\n");
  });
  const cases = [
    // pngjs inflated interlaced data with no cap: 1 MiB of IDAT took 2 GB and 9 s.
    ['an interlaced 1x1 PNG whose data inflates to 1 GiB', async () => pngFile({ width: 1, height: 1, interlace: 1 }, await zeroBomb(1024)),
      // 1x1 RGBA, Adam7: only the first pass has the pixel, one row of a filter byte and 4 bytes.
      /bomb-0\.png is not a valid PNG file \(it is corrupt: its image data inflates to more than the 5 bytes its 1x1 interlaced header allows\)/],
    // pngjs decoded the missing rows as zeros: 45 s and 4.7 GB for a 1 KB file, and exit 0.
    ['a 20000x20000 PNG with 1 KiB of image data', async () => pngFile({ width: 20000, height: 20000 }, await zeroBomb(1)),
      // 20000 rows of a filter byte and 80000 bytes; deflate's 1032:1 at most.
      /bomb-1\.png is not a valid PNG file \(it is truncated or corrupt: its header says 20000x20000 pixels \(1600020000 bytes of image data once inflated\), more than its 10\d\d bytes of compressed image data can hold/],
    // jpeg-js allocated and transformed every block first: 65 s and 7.3 GB.
    ['a 600-byte JPEG whose header says 16000x16000', async () => forgedJpeg(16000, 16000),
      // jpeg-js writes 4:4:4: 2000 x 2000 blocks of 8x8 for each of 3 components, a bit each at least.
      /bomb-2\.jpg is not a valid JPEG file \(it is truncated or corrupt: its frame header says 16000x16000 pixels, 12000000 blocks of 8x8 in its scan at byte \d+, which need at least 1500000 bytes \(a bit a block\); the scan has \d+\)/],
  ];
  let results;
  const rss = (k) => join(work, `rss-${k}`);
  before(async () => {
    const runs = [];
    for (const [k, [what, make]] of cases.entries()) {
      const input = join(work, `bomb-${k}.${what.includes('JPEG') ? 'jpg' : 'png'}`);
      writeFileSync(input, await make());
      runs.push([k, process.execPath, ['-r', rssPreload, CLI, 'warp', input, join(work, 'never.png'), '--size', '8x8'],
        { env: { ...process.env, GRIDSAMPLE_TEST_RSS: rss(k) } }]);
    }
    results = await spawnAll(runs);
  });
  cases.forEach(([what, , message], k) => {
    test(what, () => {
      const r = results.get(k);
      assert.equal(r.signal, null, `still running after ${LIMIT_MS} ms`);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /^gridsample: [^\n]+\n$/);
      const peakMiB = Number(readFileSync(rss(k), 'utf8')) / 1024;
      assert.ok(peakMiB < 500, `peak memory ${peakMiB.toFixed(0)} MiB`);
      assert.deepEqual(listing(work).filter((f) => f.includes('never')), []);
    });
  });

  test('an interlaced 4000x3000 PNG with 1 KiB of image data', async () => {
    // 4000x3000 RGBA is 48000000 bytes; Adam7's passes have 375 + 375 + 375 + 750 + 750 +
    // 1500 + 1500 rows, a filter byte each.
    assert.match(readError('short-interlaced.png', pngFile({ width: 4000, height: 3000, interlace: 1 }, await zeroBomb(1))),
      /short-interlaced\.png is not a valid PNG file \(it is truncated or corrupt: its header says 4000x3000 pixels \(48005625 bytes of image data once inflated\), more than its 10\d\d bytes/);
  });

  test('a JPEG whose scan leaves out a component is incomplete', () => {
    const bytes = Buffer.from(jpeg.encode({ width: 16, height: 16, data: Buffer.alloc(16 * 16 * 4, 90) }, 90).data);
    const scan = bytes.indexOf(Buffer.from([0xff, 0xda]));
    bytes[scan + 9] = bytes[scan + 5]; // the third component's id becomes the first's
    assert.match(readError('two-of-three.jpg', bytes), /two-of-three\.jpg is not a valid JPEG file \(it is incomplete: no scan codes its component 3\)$/);
  });
});

// An interlaced (Adam7) PNG of `samples` (8-bit, `channels` a pixel; or 1-bit grey), written
// here from the PNG specification: each pass's rows, a filter byte (none) and the pixels; then
// `extra` bytes.
function adam7Png(width, height, colour, depth, samples, extra = Buffer.alloc(0)) {
  const channels = { 0: 1, 6: 4 }[colour];
  const passes = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];
  const rows = [];
  for (const [x0, y0, dx, dy] of passes) {
    const xs = [];
    for (let x = x0; x < width; x += dx) xs.push(x);
    if (!xs.length) continue;
    for (let y = y0; y < height; y += dy) {
      const row = Buffer.alloc(1 + Math.ceil((xs.length * channels * depth) / 8));
      xs.forEach((x, i) => {
        for (let c = 0; c < channels; ++c) {
          const v = samples[(y * width + x) * channels + c];
          if (depth === 8) row[1 + i * channels + c] = v;
          else row[1 + (i >> 3)] |= v << (7 - (i & 7));
        }
      });
      rows.push(row);
    }
  }
  return pngFile({ width, height, depth, colour, interlace: 1 }, zlib.deflateSync(Buffer.concat([...rows, extra])));
}

test('interlaced PNGs of any size still decode: the cap is their exact size', () => {
  const files = [];
  for (const [w, h] of [[1, 1], [3, 5], [9, 7], [13, 2], [8, 8], [17, 11]]) {
    const rgba = Uint8Array.from({ length: w * h * 4 }, (_, i) => (i * 53 + 7) & 255);
    files.push([`rgba-${w}x${h}.png`, adam7Png(w, h, 6, 8, rgba), w, h, rgba]);
  }
  const grey = Uint8Array.from({ length: 11 * 3 }, (_, i) => (i * 5) % 3 === 0 ? 1 : 0);
  // 1-bit grey comes back as 0 or 255, opaque.
  files.push(['grey1-11x3.png', adam7Png(11, 3, 0, 1, grey), 11, 3, Uint8Array.from([...grey].flatMap((v) => [255 * v, 255 * v, 255 * v, 255]))]);
  for (const [name, bytes, w, h, want] of files) {
    const input = join(work, name);
    writeFileSync(input, bytes);
    const got = readImage(input);
    assert.deepEqual([got.width, got.height], [w, h], name);
    assert.deepEqual([...got.data], [...want], name);
  }
  // One byte more than the exact size is refused. 9x7 RGBA, pass by pass (columns x rows, each
  // row a filter byte and 4 bytes a pixel): 2x1, 1x1, 3x1, 2x2, 5x2, 4x4, 9x3 = 9 + 5 + 13 + 18
  // + 42 + 68 + 111 = 266 bytes.
  const [, , , , rgba] = files[2];
  const longer = adam7Png(9, 7, 6, 8, rgba, Buffer.from([0]));
  assert.match(readError('longer.png', longer), /longer\.png is not a valid PNG file \(it is corrupt: its image data inflates to more than the 266 bytes its 9x7 interlaced header allows\)$/);
});

// --- times and progress ---------------------------------------------------------------------

test('the summary times decode, warp and encode, and the total is at least their sum; the JSON has the same', async () => {
  const input = join(work, 'timed.png');
  writeFileSync(input, picture(64, 48));
  const results = await spawnAll([['text', process.execPath, [CLI, 'warp', input, join(work, 'timed-out.jpg'), '--rotate', '30']],
    ['json', process.execPath, [CLI, 'warp', input, join(work, 'timed-out.png'), '--json']]]);
  const r = results.get('text');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '', 'no progress line where stderr is not a terminal');
  const m = /; decode (\d+\.\d) ms, warp (\d+\.\d) ms, encode (\d+\.\d) ms, total (\d+\.\d) ms\n$/.exec(r.stdout);
  assert.ok(m, r.stdout);
  const [decode, warp, encode, total] = m.slice(1).map(Number);
  assert.ok(total >= decode + warp + encode, r.stdout);
  const j = results.get('json');
  const { ms, times } = JSON.parse(j.stdout);
  assert.deepEqual(Object.keys(times), ['decode', 'warp', 'encode', 'total']);
  assert.equal(ms, times.warp);
  assert.ok(times.total >= times.decode + times.warp + times.encode, j.stdout);
});

test('the progress line is drawn while the main thread is busy, after `afterMs`, and cleared by stop()', () => {
  const log = join(work, 'progress.log');
  const fd = openSync(log, 'w');
  try {
    const progress = startProgress({ fd, isTTY: true, afterMs: 50, everyMs: 10 });
    progress.step('decoding in.png');
    // A blocking step, as decoding is, until the line shows: only another thread can draw it
    // meanwhile. (The worker starts in a fraction of a second; 10 s guards against a hang.)
    const deadline = Date.now() + 10000;
    while (fstatSync(fd).size === 0 && Date.now() < deadline);
    progress.stop();
    const drawn = readFileSync(log, 'utf8');
    // Each drawing returns to the line's start and erases it; stop() leaves it erased.
    const lines = drawn.split('\r\u001b[K');
    assert.ok(lines.length >= 3 && lines[0] === '' && lines.at(-1) === '', JSON.stringify(drawn));
    for (const line of lines.slice(1, -1)) assert.match(line, /^gridsample: decoding in\.png \(\d+ s\)$/);
    for (const end = Date.now() + 50; Date.now() < end;);
    assert.equal(readFileSync(log, 'utf8'), drawn, 'drawn after stop()');
    const quiet = startProgress({ fd, isTTY: false, afterMs: 0 });
    quiet.step('anything');
    quiet.stop();
    assert.equal(readFileSync(log, 'utf8'), drawn, 'drawn where stderr is not a terminal');
  } finally {
    closeSync(fd);
  }
});

// --matrix is checked by the library that inverts it (in wide numbers): a matrix of tiny entries
// is not singular (its determinant, 1e-400, underflowed in an earlier JavaScript inversion).
test('--matrix of tiny entries is invertible; a singular one names --inverse', async () => {
  const gs = await load();
  const { options } = parseArgs(['warp', 'in.png', 'out.png', '--matrix', '1e-200,0,0,0,1e-200,0']);
  assert.deepEqual(checkMatrices(gs, options).matrix, [1e-200, 0, 0, 0, 1e-200, 0]);
  const singular = parseArgs(['warp', 'in.png', 'out.png', '--matrix', '1,2,0,2,4,0']).options;
  assert.throws(() => checkMatrices(gs, singular),
    (e) => e instanceof UsageError && e.message === '--matrix: it is singular (determinant 0), so it cannot be inverted; give the output-to-input map with --inverse');
  const inverse = parseArgs(['warp', 'in.png', 'out.png', '--matrix', '1,2,0,2,4,0', '--inverse']).options;
  assert.equal(checkMatrices(gs, inverse), inverse);
});
