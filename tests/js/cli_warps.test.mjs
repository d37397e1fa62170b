// The `gridsample` command line from the packed package: its warps (affine, matrix, perspective, flows, threads, every input colour type) equal the library's own result pixel for pixel, transforms in pixels keep a non-square picture's shapes, and the READMEs' commands run as written.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import jpeg from 'jpeg-js';

import { thetaFromParams } from '../../js/images/pixel_space.mjs';
import { FLOWS, flowGrid } from '../../js/images/flows.mjs';
import { moments } from './lib/disk.mjs';
import { PACKAGE } from './lib/packed.mjs';
import { affine, assertPixels, bin, cli, diskPng, gs, libraryWarp, PNG, sh, testImage, work, writeImage, startCli, stopCli, inputPicture } from './lib/cli_consumer.mjs';

before(startCli);
after(stopCli);

describe('gridsample CLI (installed from the packed tarball)', () => {
  let input;
  let image;
  before(() => ({ input, image } = inputPicture()));

  test('--help (also through npx), help, warp --help and --version', async () => {
    const npx = await sh('npx', ['gridsample', '--help'], { cwd: join(work, 'app'), env: { ...process.env, npm_config_offline: 'true' } });
    for (const option of ['--rotate', '--scale', '--shear', '--translate', '--theta', '--matrix', '--inverse', '--perspective',
      '--flow', '--strength', '--flow-file', '--flow-size', '--mode', '--padding', '--align-corners', '--size', '--fill', '--quality',
      '--json', '--help', 'Exit status', '.jpg']) {
      assert.ok(npx.stdout.includes(option), `--help lacks ${option}`);
    }
    for (const args of [['help'], ['warp', '--help'], ['-h']]) {
      const r = await cli(args);
      assert.equal(r.code, 0, args.join(' '));
      assert.equal(r.stdout, npx.stdout, args.join(' '));
    }
    const version = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).version;
    assert.deepEqual(await cli(['--version']), { code: 0, stdout: `${version}\n`, stderr: '' });
  });

  test('rotate, scale x,y, shear, translate, bicubic, border: equals the library', async () => {
    const out = join(work, 'affine.png');
    const r = await cli(['warp', input, out, '--rotate', '-30', '--scale', '0.8,1.1', '--shear', '0.2',
      '--translate=3,-2.5', '--mode', 'bicubic', '--padding', 'border']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /affine\.png: 67x45 from 67x45, bicubic\/border, wasm-simd128/);
    const theta = thetaFromParams({ rotate: -30, scaleX: 0.8, scaleY: 1.1, shear: 0.2, tx: 3, ty: -2.5 }, [67, 45]);
    assertPixels(out, libraryWarp(image, [67, 45], affine(theta, false), { mode: 'bicubic', paddingMode: 'border' }, theta), [67, 45], 'affine');
  });

  test('--theta with --size, --align-corners, nearest, reflection: equals the library', async () => {
    const out = join(work, 'theta.png');
    const theta = [0.7, -0.4, 0.25, 0.5, 1.3, -0.6];
    const r = await cli(['warp', input, out, '--theta', theta.join(','), '--size', '40x30', '--align-corners',
      '--mode', 'nearest', '--padding', 'reflection']);
    assert.equal(r.code, 0, r.stderr);
    assertPixels(out, libraryWarp(image, [40, 30], affine(theta, true), { mode: 'nearest', paddingMode: 'reflection', alignCorners: true }, theta),
      [40, 30], 'theta');
  });

  test('--matrix (OpenCV pixel space, source to destination) and --inverse: equal the library, --json reports the matrix', async () => {
    const m = gs.rotationMatrix([33, 22], 25, 0.85);
    const out = join(work, 'matrix.png');
    const r = await cli(['warp', input, out, '--matrix', m.join(','), '--size', '50x40', '--mode', 'bicubic', '--padding', 'reflection']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /matrix\.png: 50x40 from 67x45, pixel matrix, bicubic\/reflection, wasm-simd128/);
    const data = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length);
    const want = gs.warpAffine({ data, width: 67, height: 45 }, m, { space: 'pixel', width: 50, height: 40, mode: 'bicubic', paddingMode: 'reflection' });
    assertPixels(out, want.data, [50, 40], 'matrix');
    const inverse = [1, 0.1, 2.5, -0.05, 1, 1.5];
    const outInverse = join(work, 'matrix-inverse.png');
    const j = await cli(['warp', input, outInverse, '--matrix', inverse.join(','), '--inverse', '--json']);
    assert.equal(j.code, 0, j.stderr);
    const report = JSON.parse(j.stdout);
    assert.deepEqual(report.matrix, { space: 'pixel', inverse: true, values: inverse });
    assert.deepEqual([report.inputSize, report.outputSize, report.warp, report.mode], [[67, 45], [67, 45], 'affine', 'bilinear']);
    assert.ok(report.ms >= 0 && report.backend === 'wasm-simd128', j.stdout);
    assertPixels(outInverse, gs.warpAffine({ data, width: 67, height: 45 }, inverse, { space: 'pixel', inverse: true }).data, [67, 45], 'inverse');
  });

  test('--perspective rectifies a quad: equals the library, its corners land on the output corners', async () => {
    const quad = [[6, 4], [60, 9], [63, 41], [2, 37]];
    const out = join(work, 'perspective.png');
    const r = await cli(['warp', input, out, '--perspective', quad.flat().join(','), '--size', '30x20', '--mode', 'nearest', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    const h = gs.perspectiveTransform(quad, [[0, 0], [29, 0], [29, 19], [0, 19]]);
    assert.equal(report.warp, 'perspective');
    assert.deepEqual(report.matrix, { space: 'pixel', inverse: false, values: h });
    const data = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length);
    const want = gs.warpPerspective({ data, width: 67, height: 45 }, h, { space: 'pixel', width: 30, height: 20, mode: 'nearest' });
    assertPixels(out, want.data, [30, 20], 'perspective');
    const got = PNG.sync.read(readFileSync(out));
    [[0, 0], [29, 0], [29, 19], [0, 19]].forEach(([x, y], k) => {
      const [sx, sy] = quad[k];
      assert.deepEqual([...got.data.subarray(4 * (y * 30 + x), 4 * (y * 30 + x) + 4)],
        [...image.data.subarray(4 * (sy * 67 + sx), 4 * (sy * 67 + sx) + 4)], `corner ${k}`);
    });
  });

  test('defaults: no transform is the identity warp (bilinear, zeros)', async () => {
    const out = join(work, 'identity.png');
    const r = await cli(['warp', input, out]);
    assert.equal(r.code, 0, r.stderr);
    // At the same size an identity grid hits pixel centres exactly: the input comes back.
    assertPixels(out, image.data, [67, 45], 'identity');
  });

  for (const [flow, extra, strength] of [['swirl', [], FLOWS.swirl.strength], ['lens', ['--strength', '-0.5'], -0.5],
    ['wave', ['--rotate', '10'], FLOWS.wave.strength]]) {
    test(`--flow ${flow} ${extra.join(' ')}: equals the library on the demo's ${flow} grid`, async () => {
      const out = join(work, `${flow}.png`);
      const r = await cli(['warp', input, out, '--flow', flow, ...extra, '--size', '50x60']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`${flow} flow`));
      const theta = thetaFromParams({ rotate: flow === 'wave' ? 10 : 0 }, [67, 45]);
      const grid = (w, h) => flowGrid(gs, flow, strength, theta, w, h, false);
      assertPixels(out, libraryWarp(image, [50, 60], grid, { mode: 'bilinear' }), [50, 60], flow);
    });
  }

  test('--threads 2 runs the threaded build and writes the same bytes as --threads 1', async () => {
    const outs = [];
    for (const threads of ['1', '2']) {
      const out = join(work, `threads${threads}.png`);
      const r = await cli(['warp', input, out, '--rotate', '20', '--mode', 'bicubic', '--size', '300x200', '--threads', threads, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.equal(report.threads, Number(threads));
      assert.equal(report.backend, threads === '1' ? 'wasm-simd128' : 'wasm-simd128-threads');
      outs.push(readFileSync(out));
    }
    assert.ok(outs[0].equals(outs[1]), 'the PNG files differ');
  });

  test('grayscale, 16-bit and RGB inputs are read as RGBA', async () => {
    for (const [name, options] of [['gray.png', { colorType: 0 }], ['rgb16.png', { colorType: 2, bitDepth: 16 }]]) {
      const png = testImage(33, 21);
      let data = png.data;
      if (options.bitDepth === 16) {
        // 16-bit samples in the machine's byte order, as pngjs expects them.
        data = Buffer.from(new Uint16Array(Array.from(png.data, (v) => v * 257)).buffer);
      }
      const path = writeImage(name, { width: 33, height: 21, data }, { ...options, inputColorType: 6, inputHasAlpha: true });
      const decoded = PNG.sync.read(readFileSync(path));
      const out = join(work, `out-${name}`);
      const r = await cli(['warp', path, out, '--rotate', '15']);
      assert.equal(r.code, 0, r.stderr);
      const theta = thetaFromParams({ rotate: 15 }, [33, 21]);
      assertPixels(out, libraryWarp(decoded, [33, 21], affine(theta, false), {}, theta), [33, 21], name);
    }
  });

  describe('--rotate, --scale, --shear, --translate are in pixels about the centre: a 320x200 picture does not stretch', () => {
    // The oracle is geometry, not θ: second moments and centroids of a disk in the output.
    // Before the conversion (θ straight from the options) --rotate 30 gave an axis ratio of 1.62.
    const [W, H] = [320, 200];
    const [CX, CY] = [(W - 1) / 2, (H - 1) / 2]; // the image centre, pixel centres at integers
    let centred; // a disk of radius 40 at the centre
    let offCentre; // a disk of radius 25 at (100, 70)
    before(() => {
      centred = writeImage('disk.png', diskPng(W, H, CX, CY, 40));
      offCentre = writeImage('disk-off.png', diskPng(W, H, 100, 70, 25));
    });
    const warped = async (input, name, args) => {
      const out = join(work, name);
      const r = await cli(['warp', input, out, ...args]);
      assert.equal(r.code, 0, r.stderr);
      return moments(PNG.sync.read(readFileSync(out)));
    };
    const near = (got, want, tol, what) => assert.ok(Math.abs(got - want) <= tol, `${what}: ${got}, expected ${want} ± ${tol}`);
    let source;
    before(() => { source = moments(PNG.sync.read(readFileSync(centred))); });

    for (const args of [['--rotate', '30'], ['--rotate', '-115', '--mode', 'bicubic'], ['--rotate', '30', '--align-corners'],
      ['--rotate', '45', '--size', '160x100']]) {
      test(`${args.join(' ')}: the disk stays round and at the centre`, async () => {
        const m = await warped(centred, `disk-${args.join('')}.png`, args);
        const half = args.includes('--size') ? 0.5 : 1; // 160x100 is the same frame at half size
        near(m.ratio, 1, 0.01, 'axis ratio');
        near(m.cx, half === 1 ? CX : 79.5, 0.02, 'centroid x');
        near(m.cy, half === 1 ? CY : 49.5, 0.02, 'centroid y');
        near(m.mass, source.mass * half * half, 0.01 * source.mass, 'area');
      });
    }

    // A swirl turns points about the centre and a lens moves them along radii: a centred disk
    // stays a round disk under both when the flow is round in pixels (js/images/flows.mjs). Flows in
    // θ's normalised coordinates made it an ellipse on 320x200 (axis ratio: lens 0.9 1.057, lens
    // -0.5 with align-corners 1.016, swirl 1 2.467).
    for (const args of [['--flow', 'lens', '--strength', '0.9'], ['--flow', 'lens', '--strength', '-0.5', '--align-corners'],
      ['--flow', 'swirl', '--strength', '1']]) {
      test(`${args.join(' ')}: the disk stays round and at the centre`, async () => {
        const m = await warped(centred, `disk-${args.join('')}.png`, args);
        near(m.ratio, 1, 0.01, 'axis ratio');
        near(m.cx, CX, 0.02, 'centroid x');
        near(m.cy, CY, 0.02, 'centroid y');
      });
    }

    // OpenCV's matrix about the image centre through --matrix: the off-centre disk turns about
    // it (its centroid moves as the rotation says: source to destination, y down) and stays round.
    test('--matrix of rotationMatrix (OpenCV pixel space): the disk stays round and moves where the rotation takes it', async () => {
      const before = moments(PNG.sync.read(readFileSync(offCentre)));
      const rot = gs.rotationMatrix([CX, CY], 40, 1);
      const m = await warped(offCentre, 'disk-matrix.png', ['--matrix', rot.join(','), '--padding', 'border']);
      near(before.ratio, 1, 0.01, 'axis ratio before');
      near(m.ratio, 1, 0.01, 'axis ratio after');
      near(m.cx, rot[0] * before.cx + rot[1] * before.cy + rot[2], 0.05, 'centroid x');
      near(m.cy, rot[3] * before.cx + rot[4] * before.cy + rot[5], 0.05, 'centroid y');
    });

    test('--scale 0.5 --rotate 30: twice the radius, still round', async () => {
      const m = await warped(centred, 'disk-zoom.png', ['--scale', '0.5', '--rotate', '30']);
      near(m.ratio, 1, 0.01, 'axis ratio');
      near(m.mass, 4 * source.mass, 0.01 * 4 * source.mass, 'area');
      near(m.sxx, 4 * source.sxx, 0.01 * 4 * source.sxx, 'second moment');
    });

    test('--shear 0.5: output pixel (x, y) samples (x + 0.5 y, y) about the centre, so the covariance is [[1.25, -0.5], [-0.5, 1]] times the disk\'s', async () => {
      const m = await warped(centred, 'disk-shear.png', ['--shear', '0.5']);
      near(m.sxx / m.syy, 1.25, 0.01, 'sxx / syy');
      near(m.sxy / m.syy, -0.5, 0.01, 'sxy / syy');
      near(m.syy, source.syy, 0.01 * source.syy, 'syy');
      near(m.cx, CX, 0.02, 'centroid x');
    });

    test('--rotate 90 turns the picture counter-clockwise about its centre: a disk up and left goes down and left', async () => {
      const m = await warped(offCentre, 'disk-90.png', ['--rotate', '90']);
      // (100, 70) is (-59.5, -29.5) from the centre; a quarter turn counter-clockwise on screen
      // (y down) takes it to (-29.5, +59.5): (130, 159).
      near(m.cx, 130, 0.02, 'centroid x');
      near(m.cy, 159, 0.02, 'centroid y');
      near(m.ratio, 1, 0.01, 'axis ratio');
    });

    for (const [tx, ty] of [[10, 5], [-3.5, 2]]) {
      test(`--translate ${tx},${ty} moves the sampled window by that many pixels: the picture moves by ${-tx},${-ty}`, async () => {
        const m = await warped(offCentre, `disk-t${tx}.png`, ['--translate', `${tx},${ty}`]);
        const o = moments(PNG.sync.read(readFileSync(offCentre)));
        near(m.cx, o.cx - tx, 1e-6, 'centroid x');
        near(m.cy, o.cy - ty, 1e-6, 'centroid y');
      });
    }

    test('--rotate 90 on 320x200 is an exact permutation of pixels (the centre offsets are whole pixels)', async () => {
      const png = testImage(W, H);
      const input = writeImage('quarter.png', png);
      const out = join(work, 'quarter-out.png');
      const r = await cli(['warp', input, out, '--rotate', '90']);
      assert.equal(r.code, 0, r.stderr);
      // Output (x, y) samples (CX - (y - CY), CY + (x - CX)) = (259 - y, x - 60); zeros outside.
      const want = new Uint8Array(4 * W * H);
      for (let y = 0; y < H; ++y) {
        for (let x = 0; x < W; ++x) {
          const [sx, sy] = [259 - y, x - 60];
          if (sx < 0 || sx >= W || sy < 0 || sy >= H) continue;
          want.set(png.data.subarray(4 * (sy * W + sx), 4 * (sy * W + sx) + 4), 4 * (y * W + x));
        }
      }
      assertPixels(out, want, [W, H], 'quarter turn');
    });
  });

  test("the READMEs' warp commands run as written, and those that rotate keep a 320x200 disk round", async () => {
    const dir = join(work, 'readme');
    mkdirSync(dir);
    const diskRgba = diskPng(320, 200, 159.5, 99.5, 40);
    const disk = PNG.sync.write(diskRgba);
    for (const name of ['in.png', 'photo.png', 'frame2.png']) writeFileSync(join(dir, name), disk);
    for (const name of ['scan.jpg', 'photo.jpg']) writeFileSync(join(dir, name), jpeg.encode({ width: 320, height: 200, data: diskRgba.data }, 90).data);
    // A flow of (1.5, -0.5) pixels at the picture's size, in Middlebury's .flo.
    const flo = Buffer.alloc(12 + 8 * 320 * 200);
    flo.writeFloatLE(202021.25, 0);
    flo.writeInt32LE(320, 4);
    flo.writeInt32LE(200, 8);
    for (let p = 0; p < 320 * 200; ++p) [flo.writeFloatLE(1.5, 12 + 8 * p), flo.writeFloatLE(-0.5, 16 + 8 * p)];
    writeFileSync(join(dir, 'flow.flo'), flo);
    const commands = new Set();
    for (const readme of [join(PACKAGE, '..', 'README.md'), join(PACKAGE, 'README.md')]) {
      for (const m of readFileSync(readme, 'utf8').matchAll(/npx gridsample (warp [^`\n#]*)/g)) commands.add(m[1].trim());
    }
    assert.ok(commands.size >= 5, `only ${commands.size} commands found: ${[...commands].join('; ')}`);
    for (const command of commands) {
      const args = command.split(/\s+/);
      // A command with redirections (standard input and output) runs in a shell.
      const shell = /[<>]/.test(command);
      const r = shell ? await cli(['-c', `"${bin}" ${command}`], { cwd: dir, file: 'sh' }) : await cli(args, { cwd: dir });
      assert.equal(r.code, 0, `${command}: ${r.stderr}`);
      if (args.includes('--rotate') && !args.includes('--flow')) {
        const output = readFileSync(join(dir, shell ? args[args.indexOf('>') + 1] : args[2]));
        const m = moments(/\.jpe?g$/i.test(args[2]) ? jpeg.decode(output, { useTArray: true }) : PNG.sync.read(output));
        assert.ok(Math.abs(m.ratio - 1) < 0.01, `${command}: the disk's axis ratio is ${m.ratio}`);
      }
    }
  });
});
