// README examples as tests: every JavaScript / TypeScript snippet of README.md and js/README.md is type-checked (tsc --strict, checkJs, no skipLibCheck, against the package's own declarations) and run in Node where it can run, so the examples cannot rot.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const READMES = ['README.md', 'js/README.md'];
// Fence languages that are checked, and the file extension of each (a snippet that calls
// require() and imports nothing is CommonJS).
const LANGUAGES = { js: 'js', javascript: 'js', mjs: 'js', cjs: 'js', ts: 'ts', typescript: 'ts' };

// A test picture for the preludes: {data, width, height}, RGBA bytes, as a canvas ImageData holds.
const PICTURE = `/** @param {number} width @param {number} height */
const picture = (width, height) => ({ data: Uint8ClampedArray.from({ length: width * height * 4 }, (_, i) => (i * 37) % 256), width, height });`;
const LOADED = "import { load } from 'gridsample';\nconst gs = await load();";

// Every snippet, found by the start of its text, with what it needs from the text around it
// in the README (the prelude: inputs the README's prose assumes) and whether it runs in Node.
// A snippet missing here, or an entry that matches no snippet, fails the test.
const SNIPPETS = [
  {
    readme: 'README.md', starts: "import { load } from 'gridsample';\nconst gs = await load();",
    prelude: `${PICTURE}
const [N, C, H, W] = [1, 3, 8, 8];
const x = { data: new Float32Array(N * C * H * W), shape: [N, C, H, W] };
const grid = { data: new Float32Array(N * 4 * 4 * 2).fill(0.5), shape: [N, 4, 4, 2] };
const theta = { data: Float32Array.from([0.8, -0.2, 0, 0.2, 0.8, 0]), shape: [N, 2, 3] };
const imageData = picture(64, 48), photo = picture(640, 480);
const [cx, cy] = [31.5, 23.5], [width, height] = [600, 800];
/** @type {import('gridsample').Quad} */
const pageCorners = [[112, 80], [530, 95], [560, 700], [90, 690]];
/** @type {import('gridsample').Quad} */
const outCorners = [[0, 0], [599, 0], [599, 799], [0, 799]];`,
    run: true,
  },
  {
    readme: 'README.md', starts: "import * as ort from 'onnxruntime-web';\nimport { InferenceSession } from 'gridsample/onnx';",
    prelude: `import { readFileSync } from 'node:fs';
const modelBytes = readFileSync('stn28.onnx');
const feeds = { X: new ort.Tensor('float32', new Float32Array(28 * 28), [1, 1, 28, 28]) };`,
    run: true,
  },
  {
    readme: 'README.md', starts: "import { createPool } from 'gridsample';",
    prelude: `${PICTURE}
const photo = picture(320, 240), m = [0.9, 0.1, 4, -0.1, 0.9, 8];
const signal = new AbortController().signal, onProgress = (/** @type {number} */ f) => void f;`,
    run: true,
  },
  {
    readme: 'README.md', starts: "import { createGpu } from 'gridsample/webgpu';",
    prelude: `/** @type {import('gridsample/webgpu').GpuDeviceLike} */
const device = /** @type {any} */ (undefined);
const x = { data: new Float32Array(16), shape: [1, 1, 4, 4] };
const grid = { data: new Float32Array(8), shape: [1, 2, 2, 2] };`,
    notRun: 'needs WebGPU (webgpu.test.mjs runs the same calls)',
  },
  {
    readme: 'js/README.md', starts: "import { createGpu } from 'gridsample/webgpu';",
    prelude: `/** @type {import('gridsample/webgpu').GpuDeviceLike} */
const device = /** @type {any} */ (undefined);
const pixels = new Float32Array(3 * 480 * 640);`,
    notRun: 'needs WebGPU (webgpu.test.mjs runs the same calls)',
  },
  {
    readme: 'js/README.md', starts: 'const frame = await gpu.importImage(videoFrame);',
    prelude: `import { load } from 'gridsample';
import { createGpu } from 'gridsample/webgpu';
const gs = await load();
const gpu = await createGpu({ wasm: gs });
const videoFrame = /** @type {VideoFrame} */ (/** @type {any} */ (undefined));
/** @type {import('gridsample').Quad} */
const corners = [[10, 12], [620, 30], [600, 470], [20, 450]];`,
    notRun: 'a camera frame in a browser with WebGPU (webgpu_chromium.test.mjs imports an ImageBitmap and an OffscreenCanvas, webgpu_warps.test.mjs runs these warps)',
  },
  {
    readme: 'js/README.md', starts: "// value, samplingLocations, attentionWeights: GPU tensors",
    prelude: `import { createGpu } from 'gridsample/webgpu';
const gpu = await createGpu();
const value = { data: new Float32Array(5376 * 8 * 32), shape: [1, 5376, 8, 32] };
const spatialShapes = { data: BigInt64Array.from([64n, 64n, 32n, 32n, 16n, 16n]), dims: [3, 2], type: 'int64' };
const levelStartIndex = { data: BigInt64Array.from([0n, 4096n, 5120n]), dims: [3], type: 'int64' };
const samplingLocations = { data: new Float32Array(300 * 8 * 3 * 4 * 2), shape: [1, 300, 8, 3, 4, 2] };
const attentionWeights = { data: new Float32Array(300 * 8 * 3 * 4), shape: [1, 300, 8, 3, 4] };`,
    notRun: 'needs WebGPU (webgpu_deformable_attention.test.mjs runs the same call)',
  },
  {
    readme: 'js/README.md', starts: "import * as ort from 'onnxruntime-web/webgpu';",
    prelude: "const feeds = { image: new ort.Tensor('float32', new Float32Array(3 * 64 * 64), [1, 3, 64, 64]) };",
    notRun: 'needs WebGPU (onnx_webgpu.test.mjs runs the example models so)',
  },
  { readme: 'js/README.md', starts: "import { load } from 'gridsample';\n\nconst gs = await load();          // SIMD", run: true },
  { readme: 'js/README.md', starts: "const { load } = require('gridsample');", run: true },
  {
    readme: 'js/README.md', starts: '// main.js\nimport { load }',
    notRun: 'a page: reads and writes a <canvas> of the document',
  },
  {
    readme: 'js/README.md', starts: 'const gs = await load({ wasmUrl:',
    prelude: "import { load } from 'gridsample';",
    notRun: 'fetches the .wasm from cdn.example.com (a placeholder host)',
  },
  { readme: 'js/README.md', starts: '// Node.js: the bytes of one build', prelude: "import { load } from 'gridsample';", run: true },
  { readme: 'js/README.md', starts: "import { load } from 'gridsample/core';", run: true },
  {
    readme: 'js/README.md', starts: '// canvas, ctx: ',
    prelude: `${LOADED}
const canvas = document.createElement('canvas');
const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));`,
    notRun: 'a page: draws on a <canvas> (CanvasRenderingContext2D, ImageData)',
  },
  {
    readme: 'js/README.md', starts: "// Rotate 30° counter-clockwise about the centre",
    prelude: `${PICTURE}\n${LOADED}\nconst image = picture(640, 480);`,
    run: true,
  },
  { readme: 'js/README.md', starts: '// worker.js', notRun: "a Web Worker's script (self.onmessage, self.postMessage)" },
  {
    readme: 'js/README.md', starts: '// main.js\nconst worker = new Worker(',
    prelude: `const x = { data: new Float32Array(16), shape: [1, 1, 4, 4] };
const grid = { data: new Float32Array(8), shape: [1, 2, 2, 2] };`,
    notRun: 'a page: starts a module Web Worker from worker.js',
  },
  { readme: 'js/README.md', starts: '// vite.config.js (use preview.headers', run: true },
  {
    readme: 'README.md', starts: '// vite.config.js (transformers.js 4.x',
    notRun: 'a Vite config: transformers.test.mjs builds pages with this alias (examples/transformers/vite.config.js)',
  },
  {
    readme: 'js/README.md', starts: "// vite.config.js: transformers.js 4.x imports 'onnxruntime-web/webgpu'",
    notRun: 'a Vite config: transformers.test.mjs builds pages with this alias (examples/transformers/vite.config.js)',
  },
  {
    readme: 'README.md', starts: "import 'gridsample/transformers';",
    notRun: 'downloads RT-DETR from the Hugging Face hub: transformers.test.mjs runs these lines on a local RT-DETR-shaped model',
  },
  {
    readme: 'js/README.md', starts: "import 'gridsample/transformers';",
    notRun: 'downloads RT-DETR from the Hugging Face hub: transformers.test.mjs runs these lines on a local RT-DETR-shaped model',
  },
  {
    readme: 'js/README.md', starts: "import * as ort from 'onnxruntime-web';\nimport { load } from 'gridsample';",
    prelude: "const image = new ort.Tensor('float32', new Float32Array(3 * 64 * 64), [1, 3, 64, 64]);",
    notRun: "needs the reader's own encoder.onnx and decoder.onnx",
  },
  {
    readme: 'js/README.md', starts: "import * as ort from 'onnxruntime-web';                 // your own copy",
    // warp.onnx: a copy of the example model with these inputs (web/demo/models/liveportrait_warp.onnx).
    prelude: `const data = new Float32Array(32 * 16 * 64 * 64);
const grid = new ort.Tensor('float32', new Float32Array(16 * 64 * 64 * 3), [1, 16, 64, 64, 3]);`,
    run: true,
  },
  {
    readme: 'js/README.md', starts: "import { createPool, load } from 'gridsample';",
    prelude: `${PICTURE}
const photo = picture(320, 240), [cx, cy] = [159.5, 119.5], bar = { value: 0 };`,
    run: true,
  },
  {
    readme: 'js/README.md', starts: '// Warp frame 2 back onto frame 1',
    prelude: `${PICTURE}\n${LOADED}
const frame2 = picture(64, 48);
const flowTensor = { data: new Float32Array(2 * 48 * 64).fill(1.5), shape: [1, 2, 48, 64] };`,
    run: true,
  },
  {
    readme: 'js/README.md', starts: "// Deformable DETR's cross-attention over three levels",
    prelude: `${LOADED}
const value = { data: new Float32Array(5376 * 8 * 32), dims: [1, 5376, 8, 32], type: 'float32' };
const spatialShapes = { data: BigInt64Array.of(64n, 64n, 32n, 32n, 16n, 16n), dims: [3, 2], type: 'int64' };
const levelStartIndex = { data: BigInt64Array.of(0n, 4096n, 5120n), dims: [3], type: 'int64' };
const samplingLocations = { data: new Float32Array(300 * 8 * 3 * 4 * 2).fill(0.5), dims: [1, 300, 8, 3, 4, 2], type: 'float32' };
const attentionWeights = { data: new Float32Array(300 * 8 * 3 * 4).fill(1 / 12), dims: [1, 300, 8, 3, 4], type: 'float32' };`,
    run: true,
  },
  {
    readme: 'js/README.md', starts: "// D-FINE's decoder",
    prelude: `${LOADED}
const value = { data: new Float32Array(5376 * 8 * 32), dims: [1, 5376, 8, 32], type: 'float32' };
const spatialShapes = { data: BigInt64Array.of(64n, 64n, 32n, 32n, 16n, 16n), dims: [3, 2], type: 'int64' };
const levelStartIndex = { data: BigInt64Array.of(0n, 4096n, 5120n), dims: [3], type: 'int64' };
const samplingLocations = { data: new Float32Array(300 * 8 * 12 * 2).fill(0.5), dims: [1, 300, 8, 12, 2], type: 'float32' };
const attentionWeights = { data: new Float32Array(300 * 8 * 12).fill(1 / 12), dims: [1, 300, 8, 12], type: 'float32' };`,
    run: true,
  },
  {
    readme: 'js/README.md', starts: "const frame = gs.tensor('uint8', [1, 4, h, w]);",
    prelude: `${LOADED}
const [h, w] = [48, 64];
const gridData = new Float32Array(h * w * 2).fill(0.25);
const frames = [1, 2, 3].map((v) => new Uint8Array(4 * h * w).fill(v));
const show = (/** @type {Uint8Array} */ pixels) => void pixels;`,
    run: true,
  },
  {
    readme: 'js/README.md', starts: "// grid: [1, 112, 112, 2]; frames",
    prelude: `${LOADED}
const grid = { data: new Float32Array(112 * 112 * 2).fill(0.25), shape: [1, 112, 112, 2] };
const frames = [1, 2].map((v) => ({ data: new Float32Array(3 * 224 * 224).fill(v), shape: [1, 3, 224, 224] }));
const result = new Float32Array(3 * 112 * 112);`,
    run: true,
  },
];
// How many snippets run, and how many are only type-checked: a new snippet is counted here.
const RUN = 16;
const CHECKED_ONLY = 15;

// The fenced snippets of one README: { readme, line (of the opening fence), language, text }.
function extract(readme) {
  const lines = readFileSync(join(ROOT, readme), 'utf8').split('\n');
  const found = [];
  for (let i = 0; i < lines.length; ++i) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    while (++i < lines.length && !/^```\s*$/.test(lines[i]));
    assert.ok(i < lines.length, `${readme}:${start + 1}: a fence that is never closed`);
    const language = LANGUAGES[open[1].toLowerCase()];
    if (language) found.push({ readme, line: start + 1, language, text: lines.slice(start + 1, i).join('\n') });
  }
  return found;
}

// The snippets with their table entries; each snippet has exactly one entry and each entry one snippet.
function snippets() {
  const all = READMES.flatMap(extract);
  for (const s of all) {
    const entries = SNIPPETS.filter((e) => e.readme === s.readme && s.text.startsWith(e.starts));
    assert.equal(entries.length, 1, `${s.readme}:${s.line}: ${entries.length} entries of SNIPPETS match this snippet (give it one: its prelude, and whether it runs):\n${s.text}`);
    s.entry = entries[0];
  }
  for (const e of SNIPPETS) {
    const matched = all.filter((s) => s.entry === e).length;
    assert.equal(matched, 1, `SNIPPETS entry ${e.readme}: ${JSON.stringify(e.starts)} matches ${matched} snippets`);
  }
  return all;
}

// A snippet as a file: its prelude, then its text, and where its lines are in the README.
function asFile(s) {
  const commonJs = /\brequire\(/.test(s.text) && !/^\s*(import|export)\s/m.test(s.text);
  const ext = `${commonJs ? 'c' : 'm'}${s.language}`;
  const prelude = s.entry.prelude ? `${s.entry.prelude}\n` : '';
  return {
    name: `${s.readme.replace(/\W/g, '_')}_${s.line}.${ext}`,
    text: `${prelude}${s.text}\n`,
    offset: prelude ? prelude.split('\n').length - 1 : 0,
  };
}

let work;
let all;

before(() => {
  all = snippets();
  // A project beside nothing: `gridsample` is the package folder itself (js/, as `npm link`
  // would have it), onnxruntime-web the tests' copy; the inputs the preludes read.
  work = mkdtempSync(join(tmpdir(), 'gridsample-readme-'));
  mkdirSync(join(work, 'node_modules'));
  symlinkSync(join(ROOT, 'js'), join(work, 'node_modules', 'gridsample'), 'dir');
  symlinkSync(join(HERE, 'node_modules', 'onnxruntime-web'), join(work, 'node_modules', 'onnxruntime-web'), 'dir');
  // What the snippets call of @huggingface/transformers: its own declarations fail tsc without
  // skipLibCheck (in @huggingface/tokenizers and several processors).
  writeFileSync(join(work, 'transformers.d.ts'), `declare module '@huggingface/transformers' {
  export function pipeline(task: string, model: string, options?: { device?: string; dtype?: string }): Promise<(input: unknown, options?: object) => Promise<unknown>>;
}
`);
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'readme-snippets', private: true, type: 'module' }));
  copyFileSync(join(ROOT, 'web', 'demo', 'models', 'stn28.onnx'), join(work, 'stn28.onnx'));
  copyFileSync(join(ROOT, 'web', 'demo', 'models', 'liveportrait_warp.onnx'), join(work, 'warp.onnx'));
  for (const s of all) {
    s.file = asFile(s);
    writeFileSync(join(work, s.file.name), s.file.text);
  }
});

after(() => {
  if (work && !process.env.GRIDSAMPLE_KEEP_TMP) rmSync(work, { recursive: true, force: true });
  else if (work) console.log(`# kept ${work}`);
});

test('every snippet is listed: how many run and how many are only type-checked', () => {
  const ran = all.filter((s) => s.entry.run).length;
  assert.deepEqual({ run: ran, checkedOnly: all.length - ran }, { run: RUN, checkedOnly: CHECKED_ONLY });
  for (const s of all) assert.ok(s.entry.run === true || typeof s.entry.notRun === 'string', `${s.readme}:${s.line}: run: true or notRun: 'the reason'`);
  for (const s of all) if (!s.entry.run) console.log(`# not run: ${s.readme}:${s.line}: ${s.entry.notRun}`);
});

test('every snippet type-checks: tsc --strict, checkJs, no skipLibCheck, the DOM lib and Node\'s types', async () => {
  // One tsc over all snippets; the package's own declarations through node_modules/gridsample.
  writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'],
      types: ['node'], typeRoots: [join(HERE, 'node_modules', '@types')],
      allowJs: true, checkJs: true, strict: true, skipLibCheck: false, noEmit: true,
    },
    files: [...all.map((s) => s.file.name), 'transformers.d.ts'],
  }, null, 2));
  try {
    await run(join(HERE, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], { cwd: work, encoding: 'utf8' });
  } catch (e) {
    // Each error at the README line it points at, with that line.
    const byName = new Map(all.map((s) => [s.file.name, s]));
    const output = `${e.stdout}${e.stderr}`.replace(/^(\S+?)\((\d+),(\d+)\): (.*)$/gm, (error, file, line, column, message) => {
      const s = byName.get(file);
      if (!s) return error;
      const at = Number(line) - s.file.offset;
      if (at < 1) return `${s.readme}:${s.line} (prelude line ${line}): ${message}`;
      return `${s.readme}:${s.line + at}:${column}: ${message}\n    ${s.text.split('\n')[at - 1].trim()}`;
    });
    assert.fail(`tsc found errors in the README snippets:\n${output}`);
  }
});

describe('every snippet that can run in Node runs as written', { concurrency: 2 }, () => {
  for (const s of READMES.flatMap(extract)) {
    test(`${s.readme}:${s.line}`, async (t) => {
      const mine = all.find((a) => a.readme === s.readme && a.line === s.line);
      if (!mine.entry.run) {
        t.skip(`not run: ${mine.entry.notRun}`);
        return;
      }
      let stdout;
      try {
        ({ stdout } = await run(process.execPath, [mine.file.name], { cwd: work, encoding: 'utf8', timeout: 120_000 }));
      } catch (e) {
        assert.fail(`node ${mine.file.name} (${s.readme}:${s.line}) failed (${e.code ?? e.signal}):\n${e.stdout}${e.stderr}`);
      }
      // `console.log(...);  // [1, 1, 6, 6]`: what the README says it prints (a JSON literal).
      for (const [, expected] of s.text.matchAll(/console\.log\(.*\);\s*\/\/\s*(\[[^\]]*\]|-?[\d.]+)\s*$/gm)) {
        const printed = stdout.split('\n').map((l) => l.replace(/\s/g, ''));
        assert.ok(printed.includes(expected.replace(/\s/g, '')), `${s.readme}:${s.line}: prints ${expected}, as its comment says; it printed:\n${stdout}`);
      }
    });
  }
});
