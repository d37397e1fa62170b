// The `gridsample` command line from the packed package on its files and arguments: every bad file fails with one line naming it, PNG and JPEG by extension, pipes on standard input and output, and bad usage exits 2 with a pointer to --help.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { after, before, describe, test } from 'node:test';

import jpeg from 'jpeg-js';

import { thetaFromParams } from '../../js/images/pixel_space.mjs';
import { assertPixels, bin, cli, gs, inParallel, PNG, work, startCli, stopCli, inputPicture } from './lib/cli_consumer.mjs';

before(startCli);
after(stopCli);

describe('gridsample CLI (installed from the packed tarball)', () => {
  let input;
  let image;
  before(() => ({ input, image } = inputPicture()));

  describe('file errors: exit 1, one line of our own naming the file and the reason, no output written', () => {
    // Chunks of the valid input, and a copy with one chunk's data changed and its CRC made good again.
    const chunks = (bytes) => {
      const out = [];
      for (let at = 8; at < bytes.length; at += 12 + bytes.readUInt32BE(at)) out.push({ at, type: bytes.toString('latin1', at + 4, at + 8) });
      return out;
    };
    const withChunk = (type, change) => {
      const bytes = Buffer.from(readFileSync(input));
      const { at } = chunks(bytes).find((c) => c.type === type);
      const length = bytes.readUInt32BE(at);
      change(bytes.subarray(at + 8, at + 8 + length));
      bytes.writeUInt32BE(crc32(bytes.subarray(at + 4, at + 8 + length)), at + 8 + length);
      return bytes;
    };
    const file = (name, bytes) => { const p = join(work, name); writeFileSync(p, bytes); return p; };
    // The test image as a baseline JPEG, and a copy with its frame header changed.
    const jpegFile = () => Buffer.from(jpeg.encode({ width: 67, height: 45, data: image.data }, 90).data);
    const withFrame = (change) => {
      const b = jpegFile();
      change(b, b.indexOf(Buffer.from([0xff, 0xc0])));
      return b;
    };
    const cases = [
      ['a missing file', () => join(work, 'missing.png'), /cannot read .*missing\.png: no such file or directory/],
      ['a directory', () => work, /cannot read .*: it is a directory/],
      ['an empty file', () => file('empty.png', ''), /empty\.png is not a valid PNG file \(the file is empty\)/],
      ['a text file', () => file('text.png', 'not a png\n'), /text\.png is not a valid PNG file \(it does not start with the PNG signature\)/],
      ['a JPEG file named .png', () => file('photo-jpeg.png', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9])),
        /photo-jpeg\.png is not a valid PNG file \(it is a JPEG file; name it \.jpg or \.jpeg\)/],
      ['a GIF file named .png', () => file('anim.png', Buffer.from('GIF89a\x01\x00\x01\x00')),
        /anim\.png is not a valid PNG file \(it is a GIF file; the formats read are PNG \(\.png\) and JPEG \(\.jpg, \.jpeg\)\)/],
      ['a PNG cut inside its signature', () => file('cut5.png', readFileSync(input).subarray(0, 5)), /cut5\.png is not a valid PNG file \(it is truncated: the file ends inside the PNG signature\)/],
      ['a PNG cut inside its header', () => file('cut20.png', readFileSync(input).subarray(0, 20)), /cut20\.png is not a valid PNG file \(it is truncated: the file ends at byte 20, inside its IHDR chunk that starts at byte 8\)/],
      ['a truncated PNG', () => file('truncated.png', readFileSync(input).subarray(0, 200)), /truncated\.png is not a valid PNG file \(it is truncated: the file ends at byte 200, inside its IDAT chunk that starts at byte 33\)/],
      ['a PNG without its IEND chunk', () => { const b = readFileSync(input); return file('no-end.png', b.subarray(0, b.length - 12)); },
        /no-end\.png is not a valid PNG file \(it is truncated: the file ends at byte \d+ without an IEND chunk\)/],
      ['a PNG cut inside a chunk header', () => { const b = readFileSync(input); return file('cut-head.png', b.subarray(0, b.length - 6)); },
        /cut-head\.png is not a valid PNG file \(it is truncated: the file ends inside a chunk header at byte \d+\)/],
      ['a PNG with a corrupted byte in the middle', () => {
        const bytes = Buffer.from(readFileSync(input));
        bytes[bytes.length - 30] ^= 0xff; // inside the image data: the CRC no longer matches
        return file('crc.png', bytes);
      }, /crc\.png is not a valid PNG file \(it is corrupt: its IDAT chunk at byte 33 fails its CRC check\)/],
      ['a PNG whose compressed data is corrupt (with a good CRC)', () => file('zdata.png', withChunk('IDAT', (d) => { d[d.length >> 1] ^= 0x55; })),
        /zdata\.png is not a valid PNG file \(its image data is corrupt or incomplete\)/],
      ['a PNG whose compressed data stops short (with a good CRC)', () => file('short.png', withChunk('IDAT', (d) => d.fill(0, d.length - 12))),
        /short\.png is not a valid PNG file \(its image data is corrupt or incomplete\)/],
      ['a JPEG cut inside its header', () => file('cut.jpg', jpegFile().subarray(0, 30)), /cut\.jpg is not a valid JPEG file \(it is truncated: the file ends at byte 30, inside its quantisation table segment that starts at byte 20\)/],
      ['a truncated JPEG', () => { const b = jpegFile(); return file('truncated.jpg', b.subarray(0, b.length - 200)); },
        /truncated\.jpg is not a valid JPEG file \(it is truncated: the file ends at byte \d+, inside the image data of its scan that starts at byte \d+\)/],
      ['a JPEG without its end-of-image marker', () => { const b = jpegFile(); return file('no-eoi.jpg', b.subarray(0, b.length - 2)); },
        /no-eoi\.jpg is not a valid JPEG file \(it is truncated: the file ends at byte \d+, inside the image data of its scan that starts at byte \d+\)/],
      ['a JPEG of 0x0 pixels', () => file('empty-frame.jpg', withFrame((b, at) => b.writeUInt16BE(0, at + 5))),
        /empty-frame\.jpg is not a valid JPEG file \(its frame header says 67x0 pixels; both sides must be at least 1\)/],
      ['an arithmetic-coded JPEG', () => file('arith.jpg', withFrame((b, at) => { b[at + 1] = 0xc9; })),
        /arith\.jpg is not a valid JPEG file \(it is a arithmetic-coded sequential JPEG, which the codec \(jpeg-js\) does not decode/],
      // (JPEG has no checksums: garbled entropy-coded bytes mostly decode to garbled pixels; a
      // Huffman table that cannot be built is what the codec itself refuses.)
      ['a JPEG whose Huffman table is corrupt', () => { const b = jpegFile(); const at = b.indexOf(Buffer.from([0xff, 0xc4])); b.fill(0xff, at + 5, at + 21); return file('garbled.jpg', b); },
        /garbled\.jpg is not a valid JPEG file \(its image data is corrupt or incomplete\)/],
      ['a PNG file named .jpg', () => file('png.jpg', readFileSync(input)), /png\.jpg is not a valid JPEG file \(it is a PNG file; name it \.png\)/],
      ['a text file without an extension', () => file('notes', 'hello\n'), /notes is not a PNG or JPEG file \(it starts with neither signature\); the formats read are PNG/],
      ['a .flo flow with a wrong tag', () => { file('bad.flo', Buffer.alloc(20)); return input; }, /bad\.flo is not a usable flow file \(it does not start with the \.flo tag PIEH\)/, ['--flow-file', 'bad.flo']],
      ['a truncated .flo flow', () => { const b = Buffer.alloc(40); b.writeFloatLE(202021.25, 0); b.writeInt32LE(4, 4); b.writeInt32LE(4, 8); file('cut.flo', b); return input; },
        /cut\.flo is not a usable flow file \(it is truncated: 4x4 pixels need 140 bytes, it has 40\)/, ['--flow-file', 'cut.flo']],
      ['a .bin flow of the wrong size', () => { file('short.bin', Buffer.alloc(100)); return input; },
        /short\.bin is not a usable flow file \(it has 100 bytes; a 4x4 flow \(--flow-size\) of float32 \[2, H, W\] has 128\)/, ['--flow-file', 'short.bin', '--flow-size', '4x4']],
      ['a missing flow file', () => input, /cannot read .*missing\.flo: no such file or directory/, ['--flow-file', 'missing.flo']],
      ['a PNG whose header has bit depth 3', () => file('depth.png', withChunk('IHDR', (d) => { d[8] = 3; })),
        /depth\.png is not a valid PNG file \(its header is invalid: bit depth 3 with colour type 6\)/],
    ];
    const out = (what) => join(work, `never-${what.replaceAll(' ', '-')}.png`);
    const results = new Map();
    before(async () => {
      // Flow files named in the extra arguments live in the work folder too.
      const extra = (args = []) => args.map((a) => (/\.(flo|bin|npy)$/.test(a) ? join(work, a) : a));
      await inParallel(cases, async ([what, make, , args]) => results.set(what, await cli(['warp', make(), out(what), ...extra(args)])));
    });
    for (const [what, , message] of cases) {
      test(what, () => {
        const r = results.get(what);
        assert.equal(r.code, 1, `${what}: exit ${r.code}, stderr ${r.stderr}`);
        assert.match(r.stderr, message);
        assert.match(r.stderr, /^gridsample: [^\n]+\n$/, 'one line');
        // Nothing of a codec's own wording (zlib's; pngjs's, which the CLI once used), e.g.
        // "There are some read requests waitng on finished stream", "unrecognised content at
        // end of stream".
        assert.doesNotMatch(r.stderr, /waitng|unrecognised|stream|Crc error|Invalid file signature|filter type|inflate|Ran out of data/i);
        assert.equal(r.stdout, '');
        assert.ok(!existsSync(out(what)), `${out(what)} was written`);
      });
    }

    test('bytes after the IEND chunk are ignored, as browsers do', async () => {
      const path = file('trailing.png', Buffer.concat([readFileSync(input), Buffer.from('some trailing bytes\n')]));
      const output = join(work, 'trailing-out.png');
      const r = await cli(['warp', path, output]);
      assert.equal(r.code, 0, r.stderr);
      assertPixels(output, image.data, [67, 45], 'trailing bytes');
    });

    test('an output folder that does not exist', async () => {
      const out = join(work, 'no-such-folder', 'out.png');
      const r = await cli(['warp', input, out]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /cannot write .*no-such-folder\/out\.png: no such file or directory/);
    });
  });

  describe('output formats: PNG and JPEG by the extension, whatever its case', () => {
    test('out.webp is refused before anything is read or written (exit 2), naming the formats', async () => {
      const r = await cli(['warp', input, 'out.webp']);
      assert.equal(r.code, 2, `exit ${r.code}; stderr ${r.stderr}`);
      assert.equal(r.stderr, "gridsample: out.webp: cannot write .webp files; the output formats are PNG (.png) and JPEG (.jpg, .jpeg)\nRun 'gridsample --help' for the options.\n");
      assert.equal(r.stdout, '');
      assert.ok(!existsSync(join(work, 'out.webp')), 'out.webp was written');
    });

    for (const [name, message] of [['out', /^gridsample: out: the output needs a file extension or --format png\|jpeg; the output formats are PNG \(\.png\) and JPEG \(\.jpg, \.jpeg\)\n/],
      ['out.png.gif', /^gridsample: out\.png\.gif: cannot write \.gif files; the output formats are PNG/]]) {
      test(`${name} is refused too`, async () => {
        const r = await cli(['warp', input, name]);
        assert.equal(r.code, 2);
        assert.match(r.stderr, message);
        assert.ok(!existsSync(join(work, name)), `${name} was written`);
      });
    }

    test('JPEG in and out (.jpg, .JPEG): decoded as jpeg-js decodes, written with --quality; a name without an extension is told by its bytes', async () => {
      // A JPEG input: the identity warp gives back exactly what jpeg-js decodes.
      const encoded = jpeg.encode({ width: 67, height: 45, data: image.data }, 92).data;
      const decoded = jpeg.decode(encoded, { useTArray: true });
      for (const name of ['photo.jpg', 'photo.JPEG', 'photo-pipe']) {
        const path = join(work, name);
        writeFileSync(path, encoded);
        const out = join(work, `${name}-out.png`);
        const r = await cli(['warp', path, out]);
        assert.equal(r.code, 0, r.stderr);
        assertPixels(out, decoded.data, [67, 45], name);
      }
      // A JPEG output: what the library computed, within JPEG's loss (alpha dropped: compare RGB).
      const m = gs.rotationMatrix([33, 22], 20, 1);
      const want = gs.warpAffine({ data: new Uint8Array(image.data), width: 67, height: 45 }, m, { space: 'pixel', fill: [255, 255, 255, 255] }).data;
      const sizes = [];
      for (const quality of [95, 40]) {
        const out = join(work, `rotated-${quality}.jpg`);
        const r = await cli(['warp', input, out, '--matrix', m.join(','), '--fill', '255,255,255', '--quality', String(quality)]);
        assert.equal(r.code, 0, r.stderr);
        const got = jpeg.decode(readFileSync(out), { useTArray: true });
        assert.deepEqual([got.width, got.height], [67, 45]);
        let sum = 0;
        for (let p = 0; p < 67 * 45; ++p) for (let c = 0; c < 3; ++c) sum += Math.abs(got.data[4 * p + c] - want[4 * p + c]);
        const mean = sum / (3 * 67 * 45);
        assert.ok(mean < (quality === 95 ? 4 : 16), `quality ${quality}: mean |JPEG - library| ${mean}`);
        sizes.push(readFileSync(out).length);
      }
      assert.ok(sizes[1] < sizes[0], `--quality 40 makes a smaller file than 95: ${sizes}`);
    });

    test('--fill: the colour outside the image (zeros padding), per tap as the library', async () => {
      const out = join(work, 'filled.png');
      const r = await cli(['warp', input, out, '--rotate', '30', '--scale', '1.4', '--fill', '10,200,30,255', '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout).fill, [10, 200, 30, 255]);
      const theta = Float32Array.from(thetaFromParams({ rotate: 30, scaleX: 1.4, scaleY: 1.4 }, [67, 45]));
      const want = gs.warpAffine({ data: new Uint8Array(image.data), width: 67, height: 45 }, theta, { fill: [10, 200, 30, 255] }).data;
      assertPixels(out, want, [67, 45], 'fill');
      assert.deepEqual([...want.subarray(0, 4)], [10, 200, 30, 255], 'the top-left corner lies outside: the fill');
      const grey = join(work, 'filled-grey.png');
      assert.equal((await cli(['warp', input, grey, '--perspective', '-20,-10,80,0,70,50,0,60', '--fill', '128'])).code, 0);
      assert.deepEqual([...PNG.sync.read(readFileSync(grey)).data.subarray(0, 4)], [128, 128, 128, 128], 'one value: every channel');
    });

    test('--flow-file .flo, .npy ([1, 2, H, W] and [H, W, 2]) and .bin with --flow-size: equal the library; a whole-pixel flow shifts the picture', async () => {
      const [W, H] = [60, 40];
      const dx = Float32Array.from({ length: W * H }, (_, p) => 3 * Math.sin(p * 0.05) + 0.25);
      const dy = Float32Array.from({ length: W * H }, (_, p) => -2 + 1.5 * Math.cos(p * 0.03));
      const planar = new Float32Array([...dx, ...dy]);
      const interleaved = new Float32Array(2 * W * H);
      for (let p = 0; p < W * H; ++p) [interleaved[2 * p], interleaved[2 * p + 1]] = [dx[p], dy[p]];
      const flo = Buffer.alloc(12 + 8 * W * H);
      flo.writeFloatLE(202021.25, 0);
      flo.writeInt32LE(W, 4);
      flo.writeInt32LE(H, 8);
      Buffer.from(interleaved.buffer).copy(flo, 12);
      const npy = (dims, data) => {
        let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')}), }`;
        header = header.padEnd(118, ' ') + '\n';
        return Buffer.concat([Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length, 0]), Buffer.from(header, 'latin1'), Buffer.from(data.buffer)]);
      };
      const files = [['flow.flo', flo, []], ['flow.npy', npy([1, 2, H, W], planar), []], ['flow-hw2.npy', npy([H, W, 2], interleaved), []],
        ['flow.bin', Buffer.from(planar.buffer), ['--flow-size', `${W}x${H}`]]];
      const data = new Uint8Array(image.data);
      const want = gs.warpFlow({ data, width: 67, height: 45 }, { data: interleaved, width: W, height: H }, { mode: 'bicubic', paddingMode: 'border' }).data;
      for (const [name, bytes, extra] of files) {
        writeFileSync(join(work, name), bytes);
        const out = join(work, `${name}.png`);
        const r = await cli(['warp', input, out, '--flow-file', join(work, name), ...extra, '--mode', 'bicubic', '--padding', 'border']);
        assert.equal(r.code, 0, `${name}: ${r.stderr}`);
        assert.match(r.stdout, /60x40 from 67x45, flow /);
        assertPixels(out, want, [W, H], name);
      }
      // dx = 3, dy = -2 everywhere: output (x, y) is input (x + 3, y - 2), exactly.
      const shift = new Float32Array(2 * 67 * 45).map((_, k) => (k % 2 ? -2 : 3));
      writeFileSync(join(work, 'shift.npy'), npy([45, 67, 2], shift));
      const out = join(work, 'shift.png');
      assert.equal((await cli(['warp', input, out, '--flow-file', join(work, 'shift.npy'), '--fill', '0,0,0,255'])).code, 0);
      const got = PNG.sync.read(readFileSync(out)).data;
      for (let y = 0; y < 45; ++y) {
        for (let x = 0; x < 67; ++x) {
          const inside = x + 3 < 67 && y - 2 >= 0;
          const expected = inside ? [...image.data.subarray(4 * ((y - 2) * 67 + x + 3), 4 * ((y - 2) * 67 + x + 3) + 4)] : [0, 0, 0, 255];
          assert.deepEqual([...got.subarray(4 * (y * 67 + x), 4 * (y * 67 + x) + 4)], expected, `(${x}, ${y})`);
        }
      }
    });

    test('out.PNG and out.Png are PNG files', async () => {
      for (const name of ['out.PNG', 'out.Png']) {
        const r = await cli(['warp', input, name]);
        assert.equal(r.code, 0, r.stderr);
        assertPixels(join(work, name), image.data, [67, 45], name);
      }
    });
  });

  describe('pipes: - reads standard input and writes standard output', () => {
    // Runs the CLI with `input` on its standard input; stdout as bytes.
    const piped = (args, input) => new Promise((resolve) => {
      const child = execFile(bin, args, { cwd: work, encoding: 'buffer', maxBuffer: 64 << 20 }, (e, stdout, stderr) => {
        resolve({ code: e ? e.code : 0, stdout, stderr: stderr.toString() });
      });
      child.stdin.end(input);
    });

    test('PNG in on stdin, PNG out on stdout (--format png): the same pixels as files give; the summary on stderr', async () => {
      const m = gs.rotationMatrix([33, 22], 25, 0.9);
      const want = gs.warpAffine({ data: new Uint8Array(image.data), width: 67, height: 45 }, m, { space: 'pixel' }).data;
      const r = await piped(['warp', '-', '-', '--format', 'png', '--matrix', m.join(','), '--json'], readFileSync(input));
      assert.equal(r.code, 0, r.stderr);
      const json = JSON.parse(r.stderr);
      assert.deepEqual([json.input, json.output, json.outputSize], ['-', '-', [67, 45]]);
      const got = PNG.sync.read(r.stdout);
      assert.deepEqual([got.width, got.height], [67, 45]);
      assert.ok(Buffer.from(got.data).equals(Buffer.from(want)), 'stdout holds the warp');
    });

    test('JPEG in on stdin, to a file; --format jpeg to stdout; the plain summary names standard output', async () => {
      const encoded = Buffer.from(jpeg.encode({ width: 67, height: 45, data: image.data }, 92).data);
      const out = join(work, 'from-stdin.png');
      const r = await piped(['warp', '-', out], encoded);
      assert.equal(r.code, 0, r.stderr);
      assertPixels(out, jpeg.decode(encoded, { useTArray: true }).data, [67, 45], 'stdin JPEG');
      const j = await piped(['warp', '-', '-', '--format', 'jpeg', '--quality', '80'], readFileSync(input));
      assert.equal(j.code, 0, j.stderr);
      assert.deepEqual([...j.stdout.subarray(0, 3)], [0xff, 0xd8, 0xff]);
      assert.equal(jpeg.decode(j.stdout).width, 67);
      assert.match(j.stderr, /^standard output: 67x45 from 67x45, /);
    });

    test('errors name standard input; a truncated JPEG says where the file ends', async () => {
      const encoded = Buffer.from(jpeg.encode({ width: 67, height: 45, data: image.data }, 92).data);
      const cut = encoded.subarray(0, encoded.length - 100);
      const r = await piped(['warp', '-', 'never.png'], cut);
      assert.equal(r.code, 1);
      const scan = encoded.indexOf(Buffer.from([0xff, 0xda]));
      assert.equal(r.stderr, `gridsample: standard input is not a valid JPEG file (it is truncated: the file ends at byte ${cut.length}, inside the image data of its scan that starts at byte ${scan})\n`);
      const text = await piped(['warp', '-', 'never.png'], Buffer.from('hello'));
      assert.equal(text.code, 1);
      assert.match(text.stderr, /^gridsample: standard input is not a PNG or JPEG file \(it starts with neither signature\)/);
      assert.ok(!existsSync(join(work, 'never.png')));
    });

    test('an output without an extension needs --format; --format must agree with an extension', async () => {
      for (const [args, message] of [
        [['warp', 'in.png', '-'], /^gridsample: standard output: the output needs a file extension or --format png\|jpeg; the output formats are PNG \(\.png\) and JPEG \(\.jpg, \.jpeg\)\n/],
        [['warp', 'in.png', 'out.png', '--format', 'jpeg'], /^gridsample: --format jpeg disagrees with out\.png's extension \(PNG\); give one\n/],
        [['warp', 'in.png', '-', '--format', 'gif'], /^gridsample: --format: expected png or jpeg, got "gif"\n/],
        [['warp', 'in.png', '-', '--format', 'png', '--quality', '80'], /^gridsample: --quality applies to JPEG output \(\.jpg, \.jpeg\), not to PNG output\n/],
      ]) {
        const r = await cli(args);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message);
      }
    });
  });

  describe('bad usage: exit 2, what is wrong, a pointer to --help', () => {
    const cases = [
      [[], /missing command/],
      [['resize', 'a.png', 'b.png'], /unknown command "resize"; the commands are warp and onnx/],
      [['warp'], /expected IN and OUT \(PNG or JPEG files, - for standard input and output\), got neither/],
      [['warp', 'IN'], /expected IN and OUT \(PNG or JPEG files, - for standard input and output\), got only "IN"/],
      [['warp', 'IN', 'OUT', 'extra.png'], /got 3 files/],
      [['warp', 'IN', 'OUT', '--rotate', 'abc'], /--rotate: expected a number, got "abc"/],
      [['warp', 'IN', 'OUT', '--rotate', '1e999'], /--rotate: expected a number, got "1e999"/],
      [['warp', 'IN', 'OUT', '--rotate', 'NaN'], /--rotate: expected a number, got "NaN"/],
      [['warp', 'IN', 'OUT', '--rotate'], /--rotate: missing value/],
      [['warp', 'IN', 'OUT', '--rotate', '5', '--rotate', '6'], /--rotate given twice/],
      [['warp', 'IN', 'OUT', '--scale', '1,2,3'], /--scale: expected S or SX,SY, got "1,2,3"/],
      [['warp', 'IN', 'OUT', '--scale', '1,'], /--scale: expected a number, got ""/],
      [['warp', 'IN', 'OUT', '--translate', '0.1'], /--translate: expected TX,TY, got "0.1"/],
      [['warp', 'IN', 'OUT', '--shear', '0.1x'], /--shear: expected a number, got "0.1x"/],
      [['warp', 'IN', 'OUT', '--theta', '1,0,0,0,1'], /--theta: expected six numbers A,B,C,D,E,F, got "1,0,0,0,1"/],
      [['warp', 'IN', 'OUT', '--theta', '1,0,0,0,1,0', '--rotate', '3'], /--theta gives the whole matrix; it cannot be combined with --rotate/],
      [['warp', 'IN', 'OUT', '--matrix', '1,0,0,0,1'], /--matrix: expected six numbers A,B,C,D,E,F, got "1,0,0,0,1"/],
      [['warp', 'IN', 'OUT', '--matrix', '1,0,0,0,1,0', '--theta', '1,0,0,0,1,0'], /--theta and --matrix each give the whole matrix; give one/],
      [['warp', 'IN', 'OUT', '--matrix', '1,0,0,0,1,0', '--scale', '2'], /--matrix gives the whole matrix; it cannot be combined with --scale/],
      [['warp', 'IN', 'OUT', '--inverse'], /--inverse applies to --matrix only/],
      [['warp', 'IN', 'OUT.png', '--matrix', '1,2,0,2,4,0'], /--matrix: it is singular \(determinant 0\)/],
      [['warp', 'IN', 'OUT', '--matrix', '1,0,0,0,1,0', '--align-corners'], /--align-corners does not apply to --matrix/],
      [['warp', 'IN', 'OUT', '--perspective', '0,0,9,0,9,9,0,9', '--flow', 'lens'], /--flow works with the θ transforms only, not with --perspective/],
      [['warp', 'IN', 'OUT', '--perspective', '0,0,9,0,9,9'], /--perspective: expected eight numbers X1,Y1,\.\.\.,X4,Y4 \(four corners\), got "0,0,9,0,9,9"/],
      [['warp', 'IN', 'OUT.png', '--perspective', '0,0,5,5,9,9,0,9'], /--perspective: points 0, 1 and 2 lie on one line \(a degenerate quad\)/],
      [['warp', 'IN', 'OUT', '--perspective', '0,0,9,0,9,9,0,9', '--inverse'], /--inverse applies to --matrix only/],
      [['warp', 'IN', 'OUT', '--json=1'], /--json takes no value/],
      [['warp', 'IN', 'OUT', '--flow', 'spiral'], /--flow: expected swirl, lens or wave, got "spiral"/],
      [['warp', 'IN', 'OUT', '--flow', 'lens', '--strength', '2'], /--strength: expected a number from -1 to 1, got "2"/],
      [['warp', 'IN', 'OUT', '--strength', '0.5'], /--strength needs --flow/],
      [['warp', 'IN', 'OUT', '--mode', 'trilinear'], /--mode: expected linear, bilinear, nearest, cubic or bicubic, got "trilinear"/],
      [['warp', 'IN', 'OUT', '--padding', 'mirror'], /--padding: expected zeros, border or reflection, got "mirror"/],
      [['warp', 'IN', 'OUT', '--size', '0x10'], /--size: expected WxH with each side from 1 to 32768, e\.g\. 640x480; got "0x10"/],
      [['warp', 'IN', 'OUT', '--size', '640'], /--size: expected WxH .*got "640"/],
      [['warp', 'IN', 'OUT', '--size', '99999x10'], /--size: expected WxH .*got "99999x10"/],
      [['warp', 'IN', 'OUT', '--align-corners=1'], /--align-corners takes no value/],
      [['warp', 'IN', 'OUT', '--fill', '1,2'], /--fill: expected V, R,G,B or R,G,B,A \(0 to 255 each\), got "1,2"/],
      [['warp', 'IN', 'OUT', '--fill', '0,0,256'], /--fill: expected values from 0 to 255, got "0,0,256"/],
      [['warp', 'IN', 'OUT', '--fill', '9', '--padding', 'border'], /--fill is the colour of --padding zeros, not of --padding border/],
      [['warp', 'IN', 'OUT', '--fill', '9', '--flow', 'swirl'], /--fill does not apply to --flow presets/],
      [['warp', 'IN', 'OUT.jpg', '--quality', '0'], /--quality: expected a whole number from 1 to 100, got "0"/],
      [['warp', 'IN', 'OUT.jpg', '--quality', '50.5'], /--quality: expected a whole number from 1 to 100, got "50\.5"/],
      [['warp', 'IN', 'OUT.png', '--quality', '80'], /--quality applies to JPEG output \(\.jpg, \.jpeg\), not to OUT\.png/],
      [['warp', 'IN', 'OUT.png', '--threads', '0'], /--threads: expected a whole number from 1 to 64, got "0"/],
      [['warp', 'IN', 'OUT.png', '--threads', '2.5'], /--threads: expected a whole number from 1 to 64, got "2\.5"/],
      [['warp', 'IN.gif', 'OUT.png'], /IN\.gif: cannot read \.gif files; the input formats are PNG \(\.png\) and JPEG \(\.jpg, \.jpeg\)/],
      [['warp', 'IN', 'OUT', '--flow-file', 'flow.txt'], /--flow-file: expected \.flo \(Middlebury\), \.npy .* or \.bin .*; got "flow\.txt"/],
      [['warp', 'IN', 'OUT', '--flow-file', 'f.flo', '--rotate', '5', '--size', '9x9'], /--flow-file moves the pixels by the flow alone, at its size; it cannot be combined with --rotate, --size/],
      [['warp', 'IN', 'OUT', '--flow-file', 'f.flo', '--flow', 'lens'], /it cannot be combined with --flow/],
      [['warp', 'IN', 'OUT', '--flow-file', 'f.flo', '--align-corners'], /--align-corners does not apply to --flow-file/],
      [['warp', 'IN', 'OUT', '--flow-file', 'f.bin'], /--flow-file: a raw \.bin flow needs --flow-size WxH/],
      [['warp', 'IN', 'OUT', '--flow-file', 'f.npy', '--flow-size', '4x4'], /--flow-size applies to a raw \.bin --flow-file only/],
      [['warp', 'IN', 'OUT', '--flow-size', '4x4'], /--flow-size applies to a raw \.bin --flow-file only/],
      [['warp', 'IN', 'OUT', '--flow-file', 'f.bin', '--flow-size', '4'], /--flow-size: expected WxH/],
      [['warp', 'IN', 'OUT', '--bogus'], /unknown option --bogus/],
      [['warp', 'IN', 'OUT', '-x'], /unknown option -x/],
    ];
    // Every case is its own process: run them side by side, then check each.
    const results = new Map();
    before(async () => {
      await inParallel(cases, async ([args]) => results.set(args, await cli(args)));
    });
    for (const [args, message] of cases) {
      test(args.join(' ') || '(no arguments)', () => {
        const r = results.get(args);
        assert.equal(r.code, 2, `exit ${r.code}; stderr ${r.stderr}`);
        assert.match(r.stderr, message);
        assert.match(r.stderr, /^gridsample: .*\nRun 'gridsample --help' for the options\.\n$/);
        assert.equal(r.stdout, '');
        assert.ok(!existsSync(join(work, 'OUT')));
      });
    }
  });
});
