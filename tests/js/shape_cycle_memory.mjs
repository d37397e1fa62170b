#!/usr/bin/env node
// Prints memory over 900 runs of a model whose shapes change from run to run (issue 44, item 3), for onnxruntime-web alone, the split's parts run by hand and gridsample/onnx's session: RSS, V8 heap and each wasm memory, medians of 5 processes.
//
//   node tests/js/shape_cycle_memory.mjs [--gc]      # the table (--gc: a full GC before each reading)
//   node tests/js/shape_cycle_memory.mjs --child MODE # one process: MODE alone|parts|parts+idle|session
//
// The model: Relu -> GridSample -> Sigmoid, X [N, 8, H, W], grid [N, h, w, 2], every dimension
// dynamic; 35 shapes (N 1-3, X 40x50 to 278x220, grid 30x20 to 132x156) cycled, one per run.
// `parts` runs the split's parts as the session does, without it: onnxruntime-web sessions of
// the Relu and of the Sigmoid, and GridSample into a heap tensor made again when its shape
// changes. `parts+idle` is the same with an (unused) split session created beside it.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUNS = 900;
const PROCESSES = 5;
const MODES = ['alone', 'parts', 'parts+idle', 'session'];

// Every wasm memory made from here on (onnxruntime-web's and gridsample's), to read their sizes.
const memories = [];
const Memory = WebAssembly.Memory;
function Recorded(...args) {
  const m = new Memory(...args);
  memories.push(m);
  return m;
}
Recorded.prototype = Memory.prototype;

async function child(mode) {
  WebAssembly.Memory = Recorded;
  const ort = await import('onnxruntime-web');
  const { load } = await import('../../js/node.mjs');
  const { InferenceSession } = await import('../../js/onnx.mjs');
  const { encodeModel } = await import('./lib/onnx_model.mjs');
  ort.env.wasm.numThreads = 1;
  const model = (nodes, inputs, outputs) => encodeModel({ opset: 20, nodes, inputs, outputs, irVersion: 9 });
  const t = (name, dims) => ({ name, dtype: 'float32', dims });
  const whole = model([
    { op: 'Relu', inputs: ['X'], outputs: ['A'] },
    { op: 'GridSample', inputs: ['A', 'grid'], outputs: ['B'] },
    { op: 'Sigmoid', inputs: ['B'], outputs: ['Y'] },
  ], [t('X', ['N', 8, 'H', 'W']), t('grid', ['N', 'h', 'w', 2])], [t('Y', ['N', 8, 'h', 'w'])]);
  const shapes = Array.from({ length: 35 }, (_, i) => ({
    n: 1 + (i % 3), h: 40 + 7 * i, w: 50 + 5 * ((i * 7) % 35), oh: 30 + 3 * ((i * 11) % 35), ow: 20 + 4 * i,
  }));
  const feeds = shapes.map(({ n, h, w, oh, ow }) => ({
    X: new ort.Tensor('float32', Float32Array.from({ length: n * 8 * h * w }, (_, k) => (k % 17) / 8 - 1), [n, 8, h, w]),
    grid: new ort.Tensor('float32', Float32Array.from({ length: n * oh * ow * 2 }, (_, k) => ((k * 37) % 200) / 100 - 1), [n, oh, ow, 2]),
  }));
  const gs = await load();
  let run;
  if (mode === 'alone') {
    const s = await ort.InferenceSession.create(whole);
    run = (f) => s.run(f);
  } else if (mode === 'session') {
    const s = await InferenceSession.create(whole, { ort, gridsample: gs, placement: 'gridsample' });
    run = (f) => s.run(f);
  } else {
    const relu = await ort.InferenceSession.create(model([{ op: 'Relu', inputs: ['X'], outputs: ['A'] }], [t('X', ['N', 8, 'H', 'W'])], [t('A', ['N', 8, 'H', 'W'])]));
    const sigmoid = await ort.InferenceSession.create(model([{ op: 'Sigmoid', inputs: ['B'], outputs: ['Y'] }], [t('B', ['N', 8, 'h', 'w'])], [t('Y', ['N', 8, 'h', 'w'])]));
    if (mode === 'parts+idle') globalThis.idle = await InferenceSession.create(whole, { ort, gridsample: gs, placement: 'gridsample' });
    let b = null;
    run = async (f) => {
      const { A } = await relu.run({ X: f.X });
      const dims = [A.dims[0], 8, f.grid.dims[1], f.grid.dims[2]];
      if (!b || b.dims.some((d, i) => d !== dims[i])) {
        b?.dispose();
        b = gs.tensor('float32', dims);
      }
      gs.gridSample(A, f.grid, { out: b });
      return sigmoid.run({ B: new ort.Tensor('float32', b.data, dims) });
    };
  }
  const probe = gs.tensor('float32', [1]); // its view's buffer is gridsample's wasm memory
  const reading = () => {
    globalThis.gc?.();
    const { rss, heapTotal, heapUsed } = process.memoryUsage();
    const other = memories.filter((m) => m.buffer !== probe.data.buffer).reduce((a, m) => a + m.buffer.byteLength, 0);
    return { rss, heapTotal, heapUsed, gsHeap: gs.heapSize(), gsHeapUsed: gs.heapUsed(), ortWasm: other };
  };
  const at = {};
  for (let i = 1; i <= RUNS; ++i) {
    await run(feeds[i % shapes.length]);
    if (i === shapes.length || i === RUNS) at[i] = reading();
  }
  console.log(JSON.stringify({ first: at[shapes.length], last: at[RUNS], peak: process.resourceUsage().maxRSS * 1024 }));
}

const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function table(gc) {
  const self = fileURLToPath(import.meta.url);
  console.log(`${RUNS} runs over 35 shapes, medians of ${PROCESSES} processes, MiB${gc ? ', a full GC before each reading' : ''}; "35" after the first cycle, "${RUNS}" at the end`);
  console.log('| run by | RSS 35 | RSS 900 | growth | peak RSS | V8 heap 35 -> 900 | gridsample heap 35 -> 900 | onnxruntime wasm 35 -> 900 |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const mode of MODES) {
    const runs = Array.from({ length: PROCESSES }, () => JSON.parse(execFileSync(process.execPath,
      [...(gc ? ['--expose-gc'] : []), self, '--child', mode], { encoding: 'utf8' })));
    const m = (f) => mib(median(runs.map(f)));
    console.log(`| ${mode} | ${m((r) => r.first.rss)} | ${m((r) => r.last.rss)} | ${m((r) => r.last.rss - r.first.rss)} | ${m((r) => r.peak)} `
      + `| ${m((r) => r.first.heapTotal)} -> ${m((r) => r.last.heapTotal)} | ${m((r) => r.first.gsHeap)} -> ${m((r) => r.last.gsHeap)} `
      + `| ${m((r) => r.first.ortWasm)} -> ${m((r) => r.last.ortWasm)} |`);
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1]);
else table(args.includes('--gc'));
