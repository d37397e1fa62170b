// Symbolic views for proving a chain of layout operators equal to a fused node (onnx/fuse_attention.mjs): sizes as monomials of named dimensions, a tensor as a strided view of a source tensor, and what Transpose, Reshape, Split, Slice, Gather, Squeeze and Unsqueeze make of it.
//
// A view's element at index (i_0, ..., i_k) is the source's element at flat offset
// offset + sum over dims of (the dim's index split over its pairs, outer first) * stride; each
// dim is a list of { n, st } pairs (size, stride), outer first. Two views read the same source
// elements in the same order exactly when their canonical forms (size-1 pairs dropped,
// contiguous neighbours merged) are equal. Sizes and strides are monomials
// { c: integer, e: { symbol: exponent } } over the dimensions a proof leaves unknown (the
// batch, the queries), so a proof holds for every value they take.

/** Thrown when a proof needs symbol `sym` to be one of `values` (the prover tries each). */
export class Need {
  constructor(sym, values) {
    this.sym = sym;
    this.values = values;
  }
}

/** Thrown when the chain is not what the proof needs; `message` says what differs. */
export class Mismatch extends Error {}

export const mismatch = (message) => new Mismatch(message);

// --- monomials --------------------------------------------------------------------------------

export const int = (c) => ({ c, e: {} });
export const sym = (name) => ({ c: 1, e: { [name]: 1 } });

export function mul(a, b) {
  const e = { ...a.e };
  for (const [s, k] of Object.entries(b.e)) e[s] = (e[s] ?? 0) + k;
  return { c: a.c * b.c, e };
}

/** a / b when it is a monomial (integer coefficient, no negative exponent), else null. */
export function div(a, b) {
  if (b.c === 0 || a.c % b.c !== 0) return null;
  const e = { ...a.e };
  for (const [s, k] of Object.entries(b.e)) {
    const left = (e[s] ?? 0) - k;
    if (left < 0) return null;
    if (left === 0) delete e[s];
    else e[s] = left;
  }
  return { c: a.c / b.c, e };
}

export const product = (list) => list.reduce(mul, int(1));
export const key = (m) => `${m.c}${Object.keys(m.e).sort().map((s) => `*${s}^${m.e[s]}`).join('')}`;
export const same = (a, b) => key(a) === key(b);
export const isOne = (m) => m.c === 1 && Object.keys(m.e).length === 0;
export const concrete = (m) => (Object.keys(m.e).length === 0 ? m.c : null);
/** The symbol a monomial is, when it is one symbol alone. */
const bareSymbol = (m) => {
  const syms = Object.keys(m.e);
  return m.c === 1 && syms.length === 1 && m.e[syms[0]] === 1 ? syms[0] : null;
};
export const show = (m) => {
  const syms = Object.keys(m.e).sort().map((s) => (m.e[s] === 1 ? s : `${s}^${m.e[s]}`));
  return m.c === 1 && syms.length ? syms.join('*') : [String(m.c), ...syms].join('*');
};

// --- views ------------------------------------------------------------------------------------

/** The contiguous view of a source with dimensions `sizes` (monomials). */
export function contiguous(src, sizes) {
  const dims = [];
  let st = int(1);
  for (let i = sizes.length - 1; i >= 0; --i) {
    dims.unshift([{ n: sizes[i], st }]);
    st = mul(st, sizes[i]);
  }
  return { src, offset: int(0), dims };
}

/** The strides of a contiguous source with dimensions `sizes`. */
export const strides = (sizes) => contiguous('', sizes).dims.map((d) => d[0].st);

export const dimSize = (dim) => product(dim.map((p) => p.n));
export const sizes = (view) => view.dims.map(dimSize);

function canonDim(dim) {
  const out = [];
  for (const p of dim.filter((q) => !isOne(q.n))) {
    const last = out.at(-1);
    if (last && same(last.st, mul(p.n, p.st))) out[out.length - 1] = { n: mul(last.n, p.n), st: p.st };
    else out.push(p);
  }
  return out.map((p) => `${key(p.n)}@${key(p.st)}`).join(',');
}

/** A key equal for two views exactly when they read the same elements in the same order. */
export const canon = (view) => `${view.src}+${key(view.offset)}[${view.dims.map(canonDim).join('|')}]`;

export const withDims = (view, dims) => ({ ...view, dims });

export function transpose(view, perm) {
  const p = perm ?? view.dims.map((_, i) => view.dims.length - 1 - i);
  if (p.length !== view.dims.length || [...p].sort((a, b) => a - b).some((v, i) => v !== i)) throw mismatch(`perm [${p}] is not a permutation of ${view.dims.length} axes`);
  return withDims(view, p.map((i) => view.dims[i]));
}

/**
 * The view with dimensions `target` (monomials, after Reshape's 0 and -1 are resolved): the
 * pairs, outer first, grouped into the new dimensions, a pair split where a dimension ends
 * inside it. Throws Need where a symbol's value decides the grouping, Mismatch where none does.
 */
export function reshape(view, target) {
  const pairs = view.dims.flat().filter((p) => !isOne(p.n));
  const dims = target.map((t) => {
    const dim = [];
    let left = t;
    while (!isOne(left)) {
      const p = pairs.shift();
      if (!p) throw mismatch(`Reshape to [${target.map(show)}] from [${sizes(view).map(show)}]: the sizes do not divide`);
      const rest = div(left, p.n);
      if (rest) {
        dim.push(p);
        left = rest;
        continue;
      }
      const inner = div(p.n, left);
      if (inner) {
        dim.push({ n: left, st: mul(p.st, inner) });
        pairs.unshift({ n: inner, st: p.st });
        left = int(1);
        continue;
      }
      const s = bareSymbol(p.n);
      const q = concrete(left);
      if (s && q !== null) throw new Need(s, [1, q]);
      throw mismatch(`Reshape to [${target.map(show)}] from [${sizes(view).map(show)}]: ${show(p.n)} does not split at ${show(left)}`);
    }
    return dim;
  });
  if (pairs.length) throw mismatch(`Reshape to [${target.map(show)}] from [${sizes(view).map(show)}] leaves ${pairs.map((p) => show(p.n)).join(', ')} over`);
  return withDims(view, dims);
}

/** Reshape's target as monomials: 0 copies the input's dimension, -1 takes what is left. */
export function reshapeTarget(view, target, allowZero) {
  const have = sizes(view);
  const known = target.map((t, i) => {
    if (concrete(t) === 0 && !allowZero) {
      if (i >= have.length) throw mismatch(`Reshape's 0 at axis ${i} of a ${have.length}-D input`);
      return have[i];
    }
    return t;
  });
  const free = known.findIndex((t) => concrete(t) === -1);
  if (free < 0) return known;
  const rest = div(product(have), product(known.filter((_, i) => i !== free)));
  if (!rest) throw mismatch(`Reshape's -1 in [${target.map(show)}] does not divide [${have.map(show)}]`);
  known[free] = rest;
  return known;
}

const normAxis = (axis, rank) => {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) throw mismatch(`axis ${axis} of a ${rank}-D tensor`);
  return a;
};

/** Elements [start, start + length) of axis `axis`, which must be a single pair. */
export function narrow(view, axis, start, length) {
  const a = normAxis(axis, view.dims.length);
  const dim = view.dims[a].filter((p) => !isOne(p.n));
  if (dim.length !== 1) throw mismatch(`a slice of axis ${axis}, which merges ${dim.length} source axes`);
  const dims = view.dims.slice();
  dims[a] = [{ n: length, st: dim[0].st }];
  return { ...view, offset: addOffset(view.offset, mul(start, dim[0].st)), dims };
}

// Offsets add; a sum of monomials of different symbols is not a monomial, so only like terms add.
function addOffset(a, b) {
  if (a.c === 0) return b;
  if (b.c === 0) return a;
  const [ka, kb] = [key({ c: 1, e: a.e }), key({ c: 1, e: b.e })];
  if (ka !== kb) throw mismatch('an offset that is not a multiple of one stride');
  return { c: a.c + b.c, e: a.e };
}

/** Gather of one index along `axis` (a scalar index: the axis goes). */
export function pick(view, axis, index) {
  const a = normAxis(axis, view.dims.length);
  const n = concrete(dimSize(view.dims[a]));
  if (n === null) throw mismatch(`Gather along axis ${axis}, whose size ${show(dimSize(view.dims[a]))} is not known`);
  const i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) throw mismatch(`Gather of index ${index} along an axis of ${n}`);
  const one = narrow(view, a, int(i), int(1));
  return withDims(one, one.dims.filter((_, k) => k !== a));
}

export const unsqueeze = (view, axes) => {
  const rank = view.dims.length + axes.length;
  const at = new Set(axes.map((x) => normAxis(x, rank)));
  const dims = [];
  const rest = view.dims.slice();
  for (let i = 0; i < rank; ++i) dims.push(at.has(i) ? [] : rest.shift());
  return withDims(view, dims);
};

export const squeeze = (view, axes) => {
  const rank = view.dims.length;
  const at = new Set((axes ?? view.dims.map((d, i) => (isOne(dimSize(d)) ? i : -1)).filter((i) => i >= 0)).map((x) => normAxis(x, rank)));
  for (const i of at) if (!isOne(dimSize(view.dims[i]))) throw mismatch(`Squeeze of axis ${i}, of size ${show(dimSize(view.dims[i]))}`);
  return withDims(view, view.dims.filter((_, i) => !at.has(i)));
};

/** Flatten(axis): two dimensions, the axes before `axis` and those from it. */
export const flatten = (view, axis) => {
  const a = axis < 0 ? axis + view.dims.length : axis;
  return withDims(view, [view.dims.slice(0, a).flat(), view.dims.slice(a).flat()]);
};
