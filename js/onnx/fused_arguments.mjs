// The fused attention node's arguments at run time (onnx/session.mjs): its inputs checked against the dimensions the proof of its chain fixed (onnx/fuse_attention.mjs), the locations computed from their offsets where the fusion took their arithmetic (onnx/attention_prologue.mjs), the levels it proved, and the weights as [N, Lq, M, L, P] (a view of the same data, on the CPU or the GPU).
import { onHost } from './values.mjs';

// One step of the locations' arithmetic on `acc` (float32, dimensions `dims`) in place, the
// operand broadcast into it: acc op operand, or operand op acc where `first`. A Float32Array
// stores each result of double arithmetic rounded to float32, which is the float32 operation's
// own result (a product of two floats is exact in double; a sum or quotient rounded to 53 bits,
// then to 24, rounds as once, since 53 >= 2 * 24 + 2).
function applyStep(acc, dims, { op, first }, operand) {
  const od = operand.dims.map(Number);
  const r = dims.length;
  // Each axis, innermost first: size, stride in acc, stride in the operand (0 where broadcast),
  // neighbours merged where one stride pair walks both.
  const axes = [];
  for (let a = r - 1, as = 1, os = 1; a >= 0; --a) {
    const o = a - (r - od.length);
    const x = { n: dims[a], as, os: o >= 0 && od[o] !== 1 ? os : 0 };
    const last = axes.at(-1);
    if (last && x.as === last.as * last.n && x.os === last.os * last.n) last.n *= x.n;
    else if (x.n > 1) axes.push(x);
    as *= dims[a];
    if (o >= 0) os *= od[o];
  }
  if (!axes.length) axes.push({ n: 1, as: 1, os: 0 });
  // acc is walked in its order, a block of the innermost axes at a time (at most BLOCK elements,
  // or the innermost axis whole), the operand's offset of each element of a block from a table
  // (none where the block is one axis: its stride is 0 or 1); an odometer walks the other axes.
  let k = 1;
  let B = axes[0].n;
  while (k < axes.length && B * axes[k].n <= BLOCK) B *= axes[k++].n;
  const table = k > 1 ? blockTable(axes.slice(0, k), B) : null;
  const outer = axes.slice(k);
  const kind = KINDS.indexOf(op === 'Mul' || op === 'Add' || !first ? op : `${op}'`);
  const d = operand.data;
  const at = new Array(outer.length).fill(0);
  for (let a = 0, o = 0; ;) {
    if (table) tableBlock(kind, acc, a, B, d, o, table);
    else strideBlock(kind, acc, a, B, d, o, axes[0].os);
    a += B;
    let x = 0;
    for (; x < outer.length; ++x) {
      o += outer[x].os;
      if (++at[x] < outer[x].n) break;
      o -= outer[x].os * outer[x].n;
      at[x] = 0;
    }
    if (x === outer.length) return;
  }
}

// The most elements of a block applyStep walks by a table.
const BLOCK = 4096;

// The operand's offset of each of the B elements of a block of `axes` (innermost first).
function blockTable(axes, B) {
  const table = new Int32Array(B);
  let size = 1;
  for (const { n, os } of axes) {
    for (let j = size; j < size * n; ++j) table[j] = table[j % size] + Math.floor(j / size) * os;
    size *= n;
  }
  return table;
}

// The operators of the steps, by code: acc op operand, then operand op acc (Mul and Add commute).
const KINDS = ['Mul', 'Add', 'Sub', 'Div', "Sub'", "Div'"];

// n elements of acc from a, with the operand's from o by stride so (0: one value, or 1).
function strideBlock(kind, acc, a, n, d, o, so) {
  const end = a + n;
  if (so === 0) {
    const v = d[o];
    switch (kind) {
      case 0: for (; a < end; ++a) acc[a] *= v; return;
      case 1: for (; a < end; ++a) acc[a] += v; return;
      case 2: for (; a < end; ++a) acc[a] -= v; return;
      case 3: for (; a < end; ++a) acc[a] /= v; return;
      case 4: for (; a < end; ++a) acc[a] = v - acc[a]; return;
      default: for (; a < end; ++a) acc[a] = v / acc[a];
    }
    return;
  }
  switch (kind) {
    case 0: for (; a < end; ++a, ++o) acc[a] *= d[o]; return;
    case 1: for (; a < end; ++a, ++o) acc[a] += d[o]; return;
    case 2: for (; a < end; ++a, ++o) acc[a] -= d[o]; return;
    case 3: for (; a < end; ++a, ++o) acc[a] /= d[o]; return;
    case 4: for (; a < end; ++a, ++o) acc[a] = d[o] - acc[a]; return;
    default: for (; a < end; ++a, ++o) acc[a] = d[o] / acc[a];
  }
}

// B elements of acc from a, with the operand's at o plus each one's table offset.
function tableBlock(kind, acc, a, B, d, o, t) {
  switch (kind) {
    case 0: for (let j = 0; j < B; ++j) acc[a + j] *= d[o + t[j]]; return;
    case 1: for (let j = 0; j < B; ++j) acc[a + j] += d[o + t[j]]; return;
    case 2: for (let j = 0; j < B; ++j) acc[a + j] -= d[o + t[j]]; return;
    case 3: for (let j = 0; j < B; ++j) acc[a + j] /= d[o + t[j]]; return;
    case 4: for (let j = 0; j < B; ++j) acc[a + j] = d[o + t[j]] - acc[a + j]; return;
    default: for (let j = 0; j < B; ++j) acc[a + j] = d[o + t[j]] / acc[a + j];
  }
}

/**
 * The sampling locations from their offsets by `steps` (a fused block's locationSteps) and their
 * `operands`, float32 tensors on the CPU, each broadcast into the offsets: a new tensor, or
 * `into(dims)` (a tensor of those dimensions, a heap tensor of the session's) filled.
 */
export function stepLocations(steps, offsets, operands, into = null) {
  if (!onHost(offsets) || operands.some((t) => !onHost(t))) throw new Error('the locations\' arithmetic runs on the CPU; its inputs are on the GPU');
  const dims = offsets.dims.map(Number);
  steps.forEach((step, i) => {
    const od = operands[i].dims.map(Number);
    if (od.length > dims.length || od.some((d, k) => d !== 1 && d !== dims[dims.length - od.length + k])) {
      throw new Error(`operand ${i + 1} of the locations' arithmetic (${step.op}) is [${od.join(', ')}], which does not broadcast into the sampling offsets' [${dims.join(', ')}]`);
    }
  });
  const out = into ? into(dims) : { type: 'float32', dims, data: new Float32Array(offsets.data.length) };
  const acc = out.data;
  acc.set(offsets.data);
  if (acc.length > 0) steps.forEach((step, i) => applyStep(acc, dims, step, operands[i]));
  return out;
}

// Checks tensor `t` against the roles of its axes (`roles`) and the values the proof fixed.
function checkDims(t, roles, bound, what) {
  if (t.dims.length !== roles.length) throw new Error(`${what} is ${t.dims.length}-D; the chain this node replaced takes it ${roles.length}-D`);
  roles.forEach((r, i) => {
    const d = Number(t.dims[i]);
    if (Object.hasOwn(bound, r) && bound[r] !== d) {
      throw new Error(`${what} has ${d} at axis ${i}; the chain this node replaced holds ${r} = ${bound[r]} (constants of its reshapes)`);
    }
  });
}

/**
 * gs.multiScaleDeformableAttention's arguments for fused block `block` (findAttention's) on
 * its inputs [value, samplingLocations (or their offsets), attentionWeights, ...the operands of
 * the block's locationSteps] (onnxruntime tensors on the CPU or, on WebGPU, the GPU), then the
 * call's options the proof found (pointsPerLevel and sampling for the v2 forms). The locations
 * the steps compute go into `locationsInto(dims)` where given (stepLocations).
 */
export function fusedArguments(block, [value, given, attn, ...operands], locationsInto = null) {
  checkDims(value, block.dims.value, block.bound, 'the value');
  checkDims(given, block.dims.loc, block.bound, block.locationSteps ? 'the sampling offsets' : 'the sampling locations');
  const loc = block.locationSteps ? stepLocations(block.locationSteps, given, operands, locationsInto) : given;
  checkDims(attn, block.dims.attn, block.bound, 'the attention weights');
  let weights = attn;
  if (attn.dims.length === 4 && !block.options.pointsPerLevel) {
    // [N, Lq, M, L * P] holds [N, Lq, M, L, P] as it is.
    const L = block.levelStartIndex.length;
    const P = Number(loc.dims[4]);
    const [N, Lq, M, LP] = [...attn.dims].map(Number);
    if (LP !== L * P) throw new Error(`the attention weights have ${LP} at axis 3; the locations say ${L} levels of ${P} points`);
    const dims = [N, Lq, M, L, P];
    weights = onHost(attn) ? { type: attn.type, dims, data: attn.data } : { buffer: attn.gpuBuffer, dims, dtype: attn.type, location: 'gpu-buffer' };
  }
  return [value, block.spatialShapes, block.levelStartIndex, loc, weights, block.options];
}
