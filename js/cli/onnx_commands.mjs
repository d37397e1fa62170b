// The `gridsample onnx inspect|bench MODEL.onnx` commands: a model's GridSample / AffineGrid nodes and whether onnxruntime runs them, and onnxruntime alone timed against the split session.
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import process from 'node:process';

import { load } from '../node.mjs';
import { parseOrReport, UsageError } from './args.mjs';
import { InferenceSession } from '../onnx.mjs';
import { counted } from '../core/messages.mjs';
import { nodeLabel, OnnxModelError, quote } from '../onnx/errors.mjs';
import { splitModel } from '../onnx/graph.mjs';
import { decodeModel, ELEM_CODES, encodeModel, formatType, loadOnnxReader, tensorTypeProto } from '../onnx/model_proto.mjs';
import { isOurs } from '../onnx/our_nodes.mjs';
import { readNpy } from './npy.mjs';
import { ARRAY_CLASSES, fromBytes } from '../onnx/tensor_types.mjs';
import { compareModel, failureReason, formatOps, randomFeeds } from '../onnx/timing.mjs';

export const ONNX_HELP = `Usage: gridsample onnx inspect MODEL.onnx [options]
       gridsample onnx bench MODEL.onnx [options]

inspect  lists the model's GridSample and AffineGrid nodes (attributes, the shapes they see on
         random inputs) and says whether onnxruntime runs each one, then how gridsample/onnx
         splits the model.
bench    times onnxruntime alone against gridsample/onnx's split session on the same random
         (or given) inputs: medians, p90, the ratio and each part's time; where onnxruntime
         fails, why.

Options:
  --shape NAME=D1xD2x...   the shape of input NAME (for dimensions the model leaves open;
                           they are 1 otherwise); NAME= (nothing after =) is a scalar, rank 0
                           (an input the model declares as a scalar needs none); repeat for
                           several inputs
  --subgraphs error|onnxruntime
                           a GridSample / AffineGrid node inside an If / Loop / Scan body:
                           refuse the model (error, the default, as InferenceSession.create()
                           does) or leave the node to onnxruntime (create()'s subgraphs option)
  --ort web|node           onnxruntime-web (wasm; the default when installed) or
                           onnxruntime-node (CPU); one thread either way, as gridsample runs;
                           either must be installed beside gridsample
  --input NAME=FILE        feed input NAME from FILE instead of random values: a NumPy .npy
                           array, or raw little-endian values of the input's type (any other
                           extension; its shape from --shape or the model); repeat for several
  --runs N                 bench: at least N timed runs of each, and more for 1 s
                           (default 20)
  --warmup N               bench: untimed runs first (default 3)
  --json                   print the result as JSON

Exit status: 0 done, 1 the model or onnxruntime failed, 2 bad usage.`;

function parse(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') return { command: 'help' };
  if (!['inspect', 'bench'].includes(command)) throw new UsageError(`onnx: unknown command "${command}"; the commands are inspect and bench`);
  const options = { shapes: {}, inputs: {}, runs: 20, warmup: 3, ort: null, subgraphs: 'error', json: false };
  const files = [];
  for (let i = 0; i < rest.length; ++i) {
    const arg = rest[i];
    const [name, inline] = arg.startsWith('--') && arg.includes('=') && !/^--(shape|input)=/.test(arg) ? arg.split(/=(.*)/s) : [arg, undefined];
    const value = () => {
      const v = inline ?? rest[++i];
      if (v === undefined) throw new UsageError(`${name}: missing value`);
      return v;
    };
    if (name === '--json') options.json = true;
    else if (name === '--help' || name === '-h') return { command: 'help' };
    else if (name === '--shape' || arg.startsWith('--shape=')) {
      const text = arg.startsWith('--shape=') ? arg.slice(8) : value();
      const m = /^([^=]+)=(\d+(?:x\d+)*)?$/.exec(text);
      if (!m) throw new UsageError(`--shape: expected NAME=D1xD2x..., e.g. image=1x3x224x224 (NAME= for a scalar); got "${text}"`);
      options.shapes[m[1]] = m[2] ? m[2].split('x').map(Number) : [];
    } else if (name === '--input' || arg.startsWith('--input=')) {
      const text = arg.startsWith('--input=') ? arg.slice(8) : value();
      const m = /^([^=]+)=(.+)$/.exec(text);
      if (!m) throw new UsageError(`--input: expected NAME=FILE, e.g. image=image.npy; got "${text}"`);
      options.inputs[m[1]] = m[2];
    } else if (name === '--ort') {
      options.ort = value();
      if (!['node', 'web'].includes(options.ort)) throw new UsageError(`--ort: expected web or node, got "${options.ort}"`);
    } else if (name === '--subgraphs') {
      options.subgraphs = value();
      if (!['error', 'onnxruntime'].includes(options.subgraphs)) throw new UsageError(`--subgraphs: expected error or onnxruntime, got "${options.subgraphs}"`);
    } else if (name === '--runs' || name === '--warmup') {
      const text = value();
      const n = Number(text);
      if (!/^\d+$/.test(text) || (name === '--runs' && n < 1) || n > 100000) throw new UsageError(`${name}: expected a whole number${name === '--runs' ? ' from 1' : ''}, got "${text}"`);
      options[name.slice(2)] = n;
    } else if (arg.startsWith('-')) throw new UsageError(`onnx ${command}: unknown option ${arg}`);
    else files.push(arg);
  }
  if (files.length !== 1) throw new UsageError(`onnx ${command}: expected one MODEL.onnx, got ${files.length ? files.join(' ') : 'none'}`);
  return { command, model: files[0], options };
}

// The caller's onnxruntime: -web (what gridsample/onnx is for) unless --ort node, else -node;
// null when neither is installed. One thread either way, as gridsample runs.
async function importOrt(which) {
  const tried = [];
  for (const name of which ? [`onnxruntime-${which}`] : ['onnxruntime-web', 'onnxruntime-node']) {
    try {
      const ort = await import(name);
      const module = ort.InferenceSession ? ort : ort.default;
      if (name === 'onnxruntime-web') module.env.wasm.numThreads = 1;
      const sessionOptions = name === 'onnxruntime-web'
        ? { executionProviders: ['wasm'] }
        : { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1 };
      return { ort: module, name, sessionOptions };
    } catch (e) {
      tried.push(`${name} (${e.code === 'ERR_MODULE_NOT_FOUND' ? 'not installed' : e.message})`);
    }
  }
  return { ort: null, tried };
}

const ms = (v) => (v >= 10 ? v.toFixed(1) : v.toFixed(3));
const dims = (v) => (v.dims ? `${v.type} [${v.dims.join(', ')}]` : 'not run');

function attributesText(n) {
  if (n.attention) return `domain=${n.node.domain}`;
  const a = n.attrs;
  return n.node.opType === 'GridSample' ? `mode=${a.mode} padding_mode=${a.paddingMode} align_corners=${Number(a.alignCorners)}` : `align_corners=${Number(a.alignCorners)}`;
}

// Runs one node of ours on onnxruntime with random inputs of the shapes it saw; resolves to
// 'runs' or onnxruntime's reason.
async function onnxruntimeRuns(ort, sessionOptions, proto, entry, seen) {
  if (!seen.output.dims) return 'not checked (the node did not run)';
  const inputs = seen.inputs.map((v) => ({ name: v.name, type: tensorTypeProto(ELEM_CODES[v.type] ?? 1, v.dims) }));
  const model = encodeModel({
    irVersion: proto.irVersion,
    opsetImport: proto.opsetImport,
    graph: { name: 'check', node: [entry.node], input: inputs, output: [{ name: seen.output.name }] },
  });
  try {
    // Its failure is the answer, not news: onnxruntime-node would log it to stderr too.
    const session = await ort.InferenceSession.create(model, { ...sessionOptions, logSeverityLevel: 4 });
    const metadata = seen.inputs.map((v) => ({ name: v.name, type: v.type, shape: v.dims }));
    const feeds = randomFeeds(ort, metadata);
    const size = seen.inputs[1];
    if (size.values) feeds[size.name] = new ort.Tensor('int64', BigInt64Array.from(size.values, BigInt), size.dims);
    await session.run(feeds);
    await session.release();
    return 'runs';
  } catch (e) {
    return `fails: ${failureReason(e)}`;
  }
}

// The --input files as onnxruntime tensors: .npy arrays as they are; raw files as the input's
// declared type, shaped by --shape or the model's own static shape.
function givenFeeds(ort, split, options) {
  const feeds = {};
  for (const [name, path] of Object.entries(options.inputs)) {
    const input = split.inputs.find((v) => v.name === name);
    if (!input) throw new Error(`--input ${name}: the model has no input ${quote(name)}; its inputs are ${split.inputs.map((v) => quote(v.name)).join(', ')}`);
    let bytes;
    try {
      bytes = new Uint8Array(readFileSync(path));
    } catch (e) {
      throw new Error(`--input ${name}: cannot read ${path}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`, { cause: e });
    }
    let t;
    if (/\.npy$/i.test(path)) {
      t = readNpy(bytes, path);
    } else {
      const { type } = input.type;
      const dims = options.shapes[name] ?? (input.type.dims?.every((d) => typeof d === 'number') ? input.type.dims : null);
      if (!dims) throw new Error(`--input ${name}: ${path} is raw data and the model leaves the input's shape open (${formatType(input.type)}); give it with --shape ${name}=...`);
      const ArrayClass = ARRAY_CLASSES[type];
      if (!ArrayClass) throw new Error(`--input ${name}: cannot read raw ${type} data`);
      const size = dims.reduce((a, b) => a * b, 1) * ArrayClass.BYTES_PER_ELEMENT;
      if (bytes.length !== size) throw new Error(`--input ${name}: ${path} has ${bytes.length} bytes; ${type} [${dims.join(', ')}] needs ${size}`);
      t = { type, dims, data: fromBytes(type, bytes) };
    }
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  return feeds;
}

// The GridSample / AffineGrid nodes inside If / Loop / Scan bodies (at any depth), each as a
// path of labels: what InferenceSession.create() refuses unless given subgraphs: 'onnxruntime'.
function nestedNodes(graph, where = null) {
  const found = [];
  for (const [index, node] of graph.node.entries()) {
    if (where !== null && isOurs(node)) found.push(`${nodeLabel(node, index)}${where}`);
    for (const a of node.attribute) {
      for (const g of [a.g, ...(a.graphs || [])]) {
        if (g) found.push(...nestedNodes(g, ` in the ${quote(a.name)} body of ${nodeLabel(node, index)}${where ?? ''}`));
      }
    }
  }
  return found;
}

// The shapes of the random inputs: --shape's, and rank 0 for the inputs the model declares as
// scalars (the sessions' inputMetadata gives [] for those and for inputs of unknown rank alike).
function feedDims(split, options) {
  const scalars = split.inputs.filter((v) => v.type.dims?.length === 0).map((v) => [v.name, []]);
  return { ...Object.fromEntries(scalars), ...options.shapes };
}

// The model as `gridsample onnx` reads it: decoded, its GridSample / AffineGrid nodes in
// control flow, and split as InferenceSession.create() with --subgraphs splits it (its
// OnnxModelError, in createError, where create() refuses the model).
function readModel(bytes, name, options) {
  const proto = decodeModel(bytes, name);
  const nested = nestedNodes(proto.graph);
  try {
    return { proto, nested, split: splitModel(proto, name, { subgraphs: options.subgraphs }), createError: null };
  } catch (e) {
    if (!(e instanceof OnnxModelError) || !nested.length || options.subgraphs === 'onnxruntime') throw e;
    // Refused for a node in control flow only: the rest is still worth listing.
    return { proto, nested, split: splitModel(proto, name, { subgraphs: 'onnxruntime' }), createError: withFlag(e.message) };
  }
}

// create()'s advice on nested nodes, in the command line's words.
const withFlag = (message) => message.replace("pass { subgraphs: 'onnxruntime' }", 'pass --subgraphs onnxruntime');

async function inspect(path, model, name, options, ortInfo) {
  const { proto, nested, split, createError } = model;
  const ours = split.parts.filter((p) => p.runsOn === 'gridsample').flatMap((p) => p.nodes);
  const report = {
    model: name,
    opset: split.opset,
    irVersion: split.irVersion,
    nodes: proto.graph.node.length,
    inputs: split.inputs.map((v) => ({ name: v.name, type: formatType(v.type) })),
    outputs: split.outputs.map((v) => ({ name: v.name, type: formatType(v.type) })),
    gridsampleNodes: ours.map((n) => ({ name: n.node.name, opType: n.node.opType, version: n.version, attributes: attributesText(n) })),
    nestedNodes: nested,
    subgraphs: options.subgraphs,
    createError,
    plan: null,
    onnxruntime: ortInfo.ort ? ortInfo.name : `not installed: ${ortInfo.tried.join(', ')}`,
  };
  if (ortInfo.ort && !createError) {
    const given = givenFeeds(ortInfo.ort, split, options);
    const session = await InferenceSession.create(path, { ort: ortInfo.ort, ...ortInfo.sessionOptions, gridsample: await load(), subgraphs: options.subgraphs });
    report.plan = session.plan();
    try {
      const random = randomFeeds(ortInfo.ort, session.inputMetadata.filter((m) => !(m.name in given)), { dims: feedDims(split, options) });
      await session.run({ ...random, ...given }, { profile: true });
      report.plan = session.plan(); // with where each node runs from now on
      const seen = new Map(session.lastProfile.parts.flatMap((p) => p.io ?? []).map((io) => [io.name, io]));
      for (const [i, n] of ours.entries()) {
        const io = seen.get(n.node.name);
        Object.assign(report.gridsampleNodes[i], { inputs: io.inputs, output: io.output, onnxruntime: await onnxruntimeRuns(ortInfo.ort, ortInfo.sessionOptions, proto, n, io) });
      }
    } catch (e) {
      report.runError = e.message;
    } finally {
      await session.release();
    }
  }
  return report;
}

function printInspect(r, out) {
  out(`${quote(r.model)}: opset ${r.opset}, IR version ${r.irVersion}, ${counted(r.nodes, 'node')}`);
  out(`  inputs:  ${r.inputs.map((v) => `${v.name} ${v.type}`).join('; ')}`);
  out(`  outputs: ${r.outputs.map((v) => `${v.name} ${v.type}`).join('; ')}`);
  const alone = r.gridsampleNodes.length || r.createError ? '' : ' (the model runs on onnxruntime alone, as one session)';
  out(`GridSample / AffineGrid nodes: ${r.gridsampleNodes.length}${r.nestedNodes.length ? ' in the main graph' : ''}${alone}`);
  for (const n of r.gridsampleNodes) {
    out(`  ${n.name || '(unnamed)'}: ${n.opType}${n.version ? `-${n.version}` : ''} ${n.attributes}`);
    if (n.inputs) {
      out(`    ${n.inputs.map((v) => `${v.name} ${dims(v)}${v.values ? ` = [${v.values.join(', ')}]` : ''}`).join(', ')} -> ${n.output.name} ${dims(n.output)}`);
      out(`    onnxruntime: ${n.onnxruntime}`);
    }
  }
  if (r.nestedNodes.length) {
    const left = r.subgraphs === 'onnxruntime' ? ', left to onnxruntime (--subgraphs onnxruntime)' : '';
    out(`  and ${r.nestedNodes.length} inside If / Loop / Scan bodies${left}:`);
    for (const label of r.nestedNodes) out(`    ${label}`);
  }
  if (r.createError) {
    out(`InferenceSession.create() refuses the model: ${r.createError.replace(/^gridsample\/onnx: /, '')}`);
    return;
  }
  if (r.runError) out(`The model did not run on its inputs: ${r.runError}`);
  if (r.plan) {
    out(`Split into ${counted(r.plan.parts.length, 'part')} (${counted(r.plan.counts.onnxruntimeSessions, 'onnxruntime session')}):`);
    for (const p of r.plan.parts) {
      out(`  ${p.part}. ${p.runsOn.padEnd(11)} ${counted(p.nodes.length, 'node')}: ${formatOps(p.ops)}`);
      for (const n of p.nodes.filter((m) => m.placement)) out(`       ${n.opType} ${n.name ? quote(n.name) : '(unnamed)'}: ${n.placement.why}`);
    }
  } else {
    out(`onnxruntime: ${r.onnxruntime}; install one to see the shapes and the split.`);
  }
}

function printBench(r, out) {
  const ortText = r.onnxruntime.error ? `fails: ${r.onnxruntime.error}` : `${ms(r.onnxruntime.median)} ms median, p90 ${ms(r.onnxruntime.p90)} ms`;
  out(`${quote(r.model)} on ${r.ort}, ${counted(r.split.runs, 'run')} of each after warming up:`);
  out(`  onnxruntime alone: ${ortText}`);
  out(`  split session:     ${ms(r.split.median)} ms median, p90 ${ms(r.split.p90)} ms`);
  if (!r.onnxruntime.error) out(`  ratio:             ${(r.onnxruntime.median / r.split.median).toFixed(2)}x (onnxruntime alone / split)`);
  out(`  GridSample / AffineGrid share of the split session: ${(100 * r.gridsampleShare.split).toFixed(1)}%`);
  out('  parts (median ms; onnxruntime on the same part):');
  for (const p of r.parts) {
    const ref = p.onnxruntimeMs == null ? '' : `   onnxruntime ${ms(p.onnxruntimeMs)}${p.runsOn === 'gridsample' ? ` (${(p.onnxruntimeMs / p.ms).toFixed(2)}x)` : ''}`;
    out(`    ${p.part}. ${p.runsOn.padEnd(11)} ${ms(p.ms).padStart(8)}   ${formatOps(p.ops)}${ref}`);
  }
  if (r.reference?.error) out(`  (onnxruntime cannot run the gridsample parts: ${r.reference.error})`);
  for (const [name, o] of Object.entries(r.outputs ?? {})) out(`  output ${name}: max abs diff ${o.maxAbsDiff.toExponential(2)} (scale ${o.scale.toPrecision(3)})`);
}

/** Runs `gridsample onnx ...` (argv after 'onnx'); resolves to the exit status. */
export async function onnxCommand(argv) {
  const out = (line) => process.stdout.write(`${line}\n`);
  const args = parseOrReport(parse, argv, 'gridsample onnx --help');
  if (!args) return 2;
  if (args.command === 'help') {
    out(ONNX_HELP);
    return 0;
  }
  const { model, options } = args;
  try {
    let bytes;
    try {
      bytes = new Uint8Array(readFileSync(model));
    } catch (e) {
      throw new Error(`cannot read ${model}: ${e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'it is a directory' : e.message}`, { cause: e });
    }
    // The file's name as InferenceSession.create() names it (given the path, as here) in its errors.
    const name = basename(model);
    await loadOnnxReader();
    const read = readModel(bytes, quote(name), options);
    const ortInfo = await importOrt(options.ort);
    // An absolute path: create() and onnxruntime read the file (and any external data beside it)
    // themselves, and a name such as c:model.onnx is not taken for a URL.
    const path = resolve(model);
    if (args.command === 'inspect') {
      const r = await inspect(path, read, name, options, ortInfo);
      if (options.json) out(JSON.stringify(r, null, 2));
      else printInspect(r, out);
      return r.runError || r.createError ? 1 : 0;
    }
    if (read.createError) throw new Error(read.createError);
    if (!ortInfo.ort) throw new Error(`bench needs onnxruntime: ${ortInfo.tried.join(', ')}; npm install onnxruntime-node (or onnxruntime-web)`);
    const r = await compareModel(path, {
      ort: ortInfo.ort, gridsample: await load(), dims: feedDims(read.split, options), runs: options.runs, minMs: 1000, warmup: options.warmup,
      given: givenFeeds(ortInfo.ort, read.split, options), subgraphs: options.subgraphs,
      sessionOptions: ortInfo.sessionOptions,
      onRound: options.json || !process.stderr.isTTY ? undefined : (i, n) => process.stderr.write(`\r${i}/${n} runs`),
    });
    if (process.stderr.isTTY && !options.json) process.stderr.write('\r\x1b[K');
    const result = { model: name, ort: ortInfo.name, runs: options.runs, warmup: options.warmup, ...r, feeds: undefined };
    if (options.json) out(JSON.stringify(result, null, 2));
    else printBench(result, out);
    return 0;
  } catch (e) {
    process.stderr.write(`gridsample: ${String(e?.message ?? e).split('\n')[0]}\n`);
    return 1;
  }
}
