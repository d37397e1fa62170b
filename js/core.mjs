// The gridsample JavaScript API over one instantiated wasm module; node.mjs and browser.mjs only load.

// Element types in the order of gridsample::DType (src/kernels/include/gridsample/types.h).
// `arrays` are the typed-array classes accepted for the type; the first is the one we create.
const DTYPES = {
  float32: { code: 0, size: 4, arrays: [Float32Array] },
  float64: { code: 1, size: 8, arrays: [Float64Array] },
  float16: { code: 2, size: 2, arrays: [Uint16Array] },
  bfloat16: { code: 3, size: 2, arrays: [Uint16Array] },
  int8: { code: 4, size: 1, arrays: [Int8Array] },
  uint8: { code: 5, size: 1, arrays: [Uint8Array, Uint8ClampedArray] },
  int16: { code: 6, size: 2, arrays: [Int16Array] },
  uint16: { code: 7, size: 2, arrays: [Uint16Array] },
  int32: { code: 8, size: 4, arrays: [Int32Array] },
  uint32: { code: 9, size: 4, arrays: [Uint32Array] },
};
// Runtimes with a native Float16Array (recent browsers, onnxruntime-web there) may hand us one.
if (typeof globalThis.Float16Array === 'function') DTYPES.float16.arrays.push(globalThis.Float16Array);

/** Every element type name the library computes on. */
export const DTYPE_NAMES = Object.freeze(Object.keys(DTYPES));
const FLOAT_DTYPES = ['float32', 'float64', 'float16', 'bfloat16'];

// Dtype of a typed array given without an explicit dtype. Uint16Array means uint16: half floats
// must say so (`dtype: 'float16'`), their bits are indistinguishable from integers.
const DTYPE_OF_CLASS = new Map([
  [Float32Array, 'float32'], [Float64Array, 'float64'], [Int8Array, 'int8'],
  [Uint8Array, 'uint8'], [Uint8ClampedArray, 'uint8'], [Int16Array, 'int16'],
  [Uint16Array, 'uint16'], [Int32Array, 'int32'], [Uint32Array, 'uint32'],
]);
if (typeof globalThis.Float16Array === 'function') DTYPE_OF_CLASS.set(globalThis.Float16Array, 'float16');

// ONNX spellings of the attributes, mapped to gridsample::Mode / gridsample::Padding.
const MODES = { linear: 0, bilinear: 0, nearest: 1, cubic: 2, bicubic: 2 };
const PADDINGS = { zeros: 0, border: 1, reflection: 2 };

const MAX_RANK = 10; // N, C and kMaxSpatialRank (8) spatial axes.
const MAX_DIMS = 32; // most dimensions any tensor argument may list (a guard against huge shape arrays)
const HEAP_LIMIT = 2 ** 31; // -sMAXIMUM_MEMORY=2GB: the whole wasm memory, static data included
// Calls that copy at least this much ask malloc how much is in use before allocating, so that
// a request that cannot fit next to live heap tensors fails before anything is allocated.
const BIG_REQUEST = 64 * 2 ** 20;
// Heap kept free for the module's own small allocations during a call (see ensureHeadroom).
const HEADROOM = 64 * 1024;
const SCRATCH_INT64S = 3 * MAX_RANK; // x, grid and y shapes of one call

// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)): valid only where the
// final wasm SIMD128 proposal is implemented (popcnt came last), as in wasm-feature-detect.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]);

/** True when this JavaScript engine validates wasm SIMD128 code. */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * Checks load() options and picks the variant.
 * @returns {{variant: 'simd'|'scalar', wasmUrl?: string|URL|Function, wasmBinary?: any, wasmModule?: any}}
 */
export function readLoadOptions(options) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`load: options: expected an object, got ${describe(options)}`);
  }
  const known = ['variant', 'wasmUrl', 'wasmBinary', 'wasmModule'];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`load: options.${key}: unknown option; expected ${known.join(', ')}`);
    }
  }
  const { variant = 'auto', wasmUrl, wasmBinary, wasmModule } = options;
  if (typeof variant !== 'string') {
    throw new TypeError(`load: options.variant: expected 'simd', 'scalar' or 'auto', got ${describe(variant)}`);
  }
  if (!['simd', 'scalar', 'auto'].includes(variant)) {
    throw new RangeError(`load: options.variant: expected 'simd', 'scalar' or 'auto', got ${describe(variant)}`);
  }
  const given = [wasmUrl, wasmBinary, wasmModule].filter((v) => v !== undefined).length;
  if (given > 1) {
    throw new TypeError('load: options: give at most one of wasmUrl, wasmBinary and wasmModule');
  }
  if (wasmUrl !== undefined && typeof wasmUrl !== 'string' && !(wasmUrl instanceof URL) &&
      typeof wasmUrl !== 'function') {
    throw new TypeError(`load: options.wasmUrl: expected a string, a URL or a function (variant) => URL, got ${describe(wasmUrl)}`);
  }
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer) && !isView(wasmBinary) &&
      !(typeof SharedArrayBuffer === 'function' && wasmBinary instanceof SharedArrayBuffer)) {
    throw new TypeError(`load: options.wasmBinary: expected an ArrayBuffer or a Uint8Array, got ${describe(wasmBinary)}`);
  }
  if (wasmBinary !== undefined && isDetached(isView(wasmBinary) ? wasmBinary.buffer : wasmBinary)) {
    throw detachedError('load', 'options.wasmBinary');
  }
  if (wasmModule !== undefined && !(wasmModule instanceof WebAssembly.Module)) {
    throw new TypeError(`load: options.wasmModule: expected a WebAssembly.Module, got ${describe(wasmModule)}`);
  }
  const simd = simdSupported();
  if (variant === 'simd' && !simd) {
    throw new RangeError("load: options.variant: 'simd' was asked for but this engine has no wasm SIMD128; use 'scalar' or 'auto'");
  }
  return {
    variant: variant === 'auto' ? (simd ? 'simd' : 'scalar') : variant,
    explicit: variant !== 'auto',
    wasmUrl, wasmBinary, wasmModule,
  };
}

/** The URL that options.wasmUrl (a URL or a function of the variant) gives for `variant`. */
export function resolveWasmUrl(wasmUrl, variant) {
  if (typeof wasmUrl !== 'function') return wasmUrl;
  const url = wasmUrl(variant);
  if (typeof url !== 'string' && !(url instanceof URL)) {
    throw new TypeError(`load: options.wasmUrl('${variant}'): expected the function to return a string or a URL, got ${describe(url)}`);
  }
  return url;
}

// The build a module is, from its Highway target: the SIMD128 build dispatches to WASM (or
// WASM_EMU256), the scalar one to EMU128 / SCALAR.
function variantOfTarget(target) {
  return /^WASM/.test(target) ? 'simd' : 'scalar';
}

/**
 * Runs an Emscripten factory with a wasm source we instantiate ourselves, so that every
 * environment (Node, page, classic or module worker) takes the same path and failures reject.
 * `source` is {module}, {bytes} or {url, fetch}; `what` names the source in errors.
 */
export async function instantiate(factory, source, what) {
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  const ready = factory({
    instantiateWasm(imports, receiveInstance) {
      (async () => {
        if (source.module) return [await WebAssembly.instantiate(source.module, imports), source.module];
        if (source.bytes) {
          const r = await WebAssembly.instantiate(source.bytes, imports);
          return [r.instance, r.module];
        }
        const response = await source.fetch(source.url);
        if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
        if (typeof WebAssembly.instantiateStreaming === 'function') {
          try {
            const r = await WebAssembly.instantiateStreaming(response.clone(), imports);
            return [r.instance, r.module];
          } catch (e) {
            // A server without the application/wasm MIME type: compile from the bytes.
            if (!(e instanceof TypeError)) throw e;
          }
        }
        const r = await WebAssembly.instantiate(await response.arrayBuffer(), imports);
        return [r.instance, r.module];
      })().then(([instance, module]) => {
        // Another wasm module would fail inside the glue with an obscure message.
        if (!WebAssembly.Module.exports(module).some((e) => e.kind === 'memory')) {
          throw new TypeError('it is not a gridsample wasm module (it exports no memory)');
        }
        try {
          receiveInstance(instance, module);
        } catch (e) {
          throw new TypeError(`it is not the gridsample wasm this glue was built with (${e && e.message ? e.message : e})`);
        }
      }).catch(fail);
      return {}; // exports arrive asynchronously through receiveInstance
    },
  });
  try {
    const Module = await Promise.race([ready, failed]);
    if (typeof Module.gridSample !== 'function' || typeof Module.allocate !== 'function' ||
        typeof Module.takeLastError !== 'function') {
      throw new TypeError('it is not the gridsample wasm this glue was built with (its functions are missing)');
    }
    return Module;
  } catch (e) {
    const error = new Error(`load: could not instantiate the gridsample wasm from ${what}: ${e && e.message ? e.message : e}`);
    error.cause = e;
    throw error;
  }
}

// --- small helpers -------------------------------------------------------------------------

function isView(v) {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

function className(v) {
  try {
    return (v && v.constructor && typeof v.constructor.name === 'string' && v.constructor.name) || 'object';
  } catch {
    return 'object'; // a Proxy whose get trap throws
  }
}

const TYPED_ARRAY_NAME = /^(Big)?(Int|Uint|Float)(8|16|32|64)(Clamped)?Array$/;

// An object that claims a typed-array class but is not one (a Proxy of a typed array): named as
// such in errors instead of being taken for a tensor object without `data`.
function posesAsView(v) {
  return v !== null && typeof v === 'object' && !ArrayBuffer.isView(v) && TYPED_ARRAY_NAME.test(className(v));
}

// A short, unambiguous rendering of what the caller gave, for error messages.
function describe(v) {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'undefined': return 'undefined';
    case 'string': return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
    case 'number': return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint': return `${v}n`;
    case 'boolean': return String(v);
    case 'symbol': return v.toString();
    case 'function': return `function ${v.name || '(anonymous)'}`;
    default:
      if (Array.isArray(v)) return `Array(${v.length})`;
      if (isView(v)) return `${className(v)}(${v.length})`;
      if (v instanceof ArrayBuffer) return `ArrayBuffer(${v.byteLength})`;
      if (typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer) return `SharedArrayBuffer(${v.byteLength})`;
      if (TYPED_ARRAY_NAME.test(className(v))) {
        return `an object posing as a ${className(v)} (not a typed array itself: a Proxy or a copy of its prototype)`;
      }
      return className(v) === 'Object' ? 'an object' : `a ${className(v)}`;
  }
}

function shapeString(shape) {
  return `[${Array.from(shape).join(', ')}]`;
}

// GridSample's layouts by number of spatial axes r: x's axes and the grid's.
const AXES = { 1: ['W'], 2: ['H', 'W'], 3: ['D', 'H', 'W'] };
const xLayout = (r) => `[N, C, ${(AXES[r] ?? [`D1..D${r}`]).join(', ')}]`;
const gridLayout = (r) => `[N, ${(AXES[r] ?? [`O1..O${r}`]).map((a) => (AXES[r] ? `${a}o` : a)).join(', ')}, ${r}]`;

/**
 * The error for a grid whose rank or last dimension does not fit x: what x's shape implies,
 * and, when the grid is a consistent grid of another rank, the x that it would fit (e.g. an
 * image given without its channel axis).
 */
function gridShapeError(fn, xDims, gDims) {
  const r = xDims.length - 2;
  let text = `${fn}: x has shape ${shapeString(xDims)}, ${r} spatial ax${r === 1 ? 'is' : 'es'} ${xLayout(r)}, ` +
    `so grid must have rank ${r + 2} and last dimension ${r} (${gridLayout(r)}); got grid shape ${shapeString(gDims)}` +
    (gDims.length !== xDims.length ? ` (rank ${gDims.length})` : '');
  const g = gDims.length - 2;
  if (g >= 1 && gDims[gDims.length - 1] === g && g !== r) {
    text += `, which samples x of shape ${xLayout(g)}`;
    if (xDims.length === g + 1) {
      text += ` (is x missing its channel axis? ${shapeString([xDims[0], 1, ...xDims.slice(1)])} for one channel)`;
    }
  }
  return new RangeError(text);
}

function sameShape(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) return false;
  return true;
}

function isDetached(buffer) {
  if (typeof SharedArrayBuffer === 'function' && buffer instanceof SharedArrayBuffer) return false;
  if ('detached' in ArrayBuffer.prototype) return buffer.detached;
  try {
    new Uint8Array(buffer, 0, 0); // eslint-disable-line no-new
    return false;
  } catch {
    return true;
  }
}

function detachedError(fn, what) {
  return new TypeError(`${fn}: ${what}: the ArrayBuffer is detached (transferred, or a wasm memory view from before the memory grew); pass a live array`);
}

// Dims as numbers: each a non-negative safe integer (bigint accepted, as in int64 tensors).
function readDims(fn, what, shape) {
  if (!Array.isArray(shape) && !isView(shape)) {
    throw new TypeError(`${fn}: ${what}: expected an array of non-negative integers, got ${describe(shape)}`);
  }
  const length = shape.length;
  if (!(length <= MAX_DIMS)) {
    throw new RangeError(`${fn}: ${what}: expected at most ${MAX_DIMS} dimensions, got ${describe(length)}`);
  }
  const dims = new Array(length);
  for (let i = 0; i < length; ++i) {
    const v = shape[i];
    let n;
    if (typeof v === 'bigint') {
      n = v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : -1;
    } else if (typeof v === 'number') {
      n = Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER ? v : -1;
    } else {
      throw new TypeError(`${fn}: ${what}[${i}]: expected a non-negative integer, got ${describe(v)}`);
    }
    if (n < 0) {
      throw new RangeError(`${fn}: ${what}[${i}]: expected a non-negative integer, got ${describe(v)} in ${shapeString(Array.from(shape, (d) => describe(d)))}`);
    }
    dims[i] = n === 0 ? 0 : n; // -0 too
  }
  return dims;
}

// "4294967296 bytes (4 GiB)": exact bytes (a bigint or a number) and a rounded size.
function bytesString(bytes) {
  let v = Number(bytes);
  let unit = 0;
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  while (v >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit += 1;
  }
  const rounded = v >= 100 ? v.toFixed(0) : String(Number(v.toPrecision(2)));
  return unit === 0 ? `${bytes} bytes` : `${bytes} bytes (${rounded} ${units[unit]})`;
}

// Element count of `dims` of `dtype`, computed exactly (bigint). Like the C++ library, zeros
// are skipped in the size check, so that an empty tensor's partial products (strides) are
// representable too. Everything that is allocated must fit in the wasm memory (2 GiB).
function countElements(fn, what, dims, dtype) {
  let nonzero = 1n;
  let zero = false;
  for (const d of dims) {
    if (d === 0) zero = true;
    else nonzero *= BigInt(d);
  }
  const bytes = nonzero * BigInt(DTYPES[dtype].size);
  if (bytes >= BigInt(HEAP_LIMIT)) {
    const count = zero
      ? `empty, but its nonzero dimensions alone make ${nonzero} ${dtype} elements`
      : `${nonzero} ${dtype} elements`;
    throw new RangeError(`${fn}: ${what} would need ${bytesString(bytes)}: shape ${shapeString(dims)} is ${count}; the wasm heap is limited to 2 GiB`);
  }
  return zero ? 0 : Number(nonzero);
}

function readDtypeName(fn, what, name) {
  if (typeof name !== 'string') {
    throw new TypeError(`${fn}: ${what}: expected a dtype name (${DTYPE_NAMES.join(', ')}), got ${describe(name)}`);
  }
  if (!Object.prototype.hasOwnProperty.call(DTYPES, name)) {
    throw new RangeError(`${fn}: ${what}: expected one of ${DTYPE_NAMES.join(', ')}, got ${describe(name)}`);
  }
  return name;
}

function checkArrayClass(fn, what, dtype, data) {
  const arrays = DTYPES[dtype].arrays;
  if (!arrays.some((A) => data instanceof A)) {
    throw new TypeError(`${fn}: ${what}: expected ${arrays.map((A) => A.name).join(' or ')} for dtype ${dtype}, got ${describe(data)}`);
  }
}

// --- the API over one module ---------------------------------------------------------------

const CONSTRUCT_KEY = Symbol('gridsample.HeapTensor');
const heapRegistry = typeof FinalizationRegistry === 'function'
  // A tensor that was never disposed gives its memory back when it is collected.
  ? new FinalizationRegistry(({ Module, ptr }) => Module.release(ptr))
  : null;

/** A tensor whose elements live in the wasm heap of one loaded module (the zero-copy tier). */
export class HeapTensor {
  #state;
  #ptr;
  #dtype;
  #shape;
  #size;
  #view = null;
  #viewBuffer = null;

  constructor(key, state, ptr, dtype, dims, size) {
    if (key !== CONSTRUCT_KEY) {
      throw new TypeError('HeapTensor: create heap tensors with gs.tensor() or gs.tensorFrom()');
    }
    this.#state = state;
    this.#ptr = ptr;
    this.#dtype = dtype;
    this.#shape = Object.freeze(dims.slice());
    this.#size = size;
    if (heapRegistry) heapRegistry.register(this, { Module: state.Module, ptr }, this);
  }

  /** Element type name. */
  get dtype() { return HeapTensor.#own(this, 'dtype').#dtype; }
  /** Dimensions (frozen). */
  get shape() { return HeapTensor.#own(this, 'shape').#shape; }
  /** Same as `shape`, the name onnxruntime-web uses. */
  get dims() { return HeapTensor.#own(this, 'dims').#shape; }
  /** Number of elements. */
  get size() { return HeapTensor.#own(this, 'size').#size; }
  /** Bytes of element storage. */
  get byteLength() { return this.size * DTYPES[this.#dtype].size; }
  /** True after dispose(). */
  get disposed() { return HeapTensor.#own(this, 'disposed').#ptr === 0; }

  /** A typed-array view of the elements; re-created after the wasm memory grew, so read it again after calls. */
  get data() {
    HeapTensor.#own(this, 'data').#check('data');
    const buffer = this.#state.Module.HEAPU8.buffer;
    if (buffer !== this.#viewBuffer) {
      this.#view = new DTYPES[this.#dtype].arrays[0](buffer, this.#ptr, this.#size);
      this.#viewBuffer = buffer;
    }
    return this.#view;
  }

  /** Frees the heap memory. Idempotent; the tensor is unusable afterwards. */
  dispose() {
    if (HeapTensor.#own(this, 'dispose').#ptr === 0) return;
    if (heapRegistry) heapRegistry.unregister(this);
    this.#state.Module.release(this.#ptr);
    this.#ptr = 0;
    this.#view = null;
    this.#viewBuffer = null;
  }

  #check(what) {
    if (this.#ptr === 0) {
      throw new TypeError(`HeapTensor.${what}: this ${this.#dtype} tensor of shape ${shapeString(this.#shape)} was disposed`);
    }
  }

  // `t` when it is a real heap tensor; a Proxy of one or an object that only inherits from
  // HeapTensor.prototype has none of its private state.
  static #own(t, what) {
    if (t === null || (typeof t !== 'object' && typeof t !== 'function') || !(#ptr in t)) {
      throw new TypeError(`HeapTensor.${what}: expected a heap tensor made by gs.tensor() or gs.tensorFrom(), got ${t instanceof HeapTensor ? 'an object that only inherits from HeapTensor (a Proxy of a heap tensor or Object.create(HeapTensor.prototype))' : describe(t)}`);
    }
    return t;
  }

  // Heap address when `t` is a live tensor of `state`'s module; 0 when disposed; -2 when it is
  // a live tensor of another module; -1 when it is not a heap tensor. Throws for look-alikes.
  static addressIn(t, state, fn, what) {
    if (!(t instanceof HeapTensor)) return -1;
    if (!(#ptr in t)) {
      throw new TypeError(`${fn}: ${what}: expected a heap tensor made by gs.tensor() or gs.tensorFrom(), got an object that only inherits from HeapTensor (a Proxy of a heap tensor or Object.create(HeapTensor.prototype)); pass the tensor itself`);
    }
    if (t.#ptr === 0) return 0;
    return t.#state === state ? t.#ptr : -2;
  }
}
if (typeof Symbol.dispose === 'symbol') {
  HeapTensor.prototype[Symbol.dispose] = function dispose() { this.dispose(); };
}

/**
 * The public object `load()` resolves to, over an Emscripten module built from
 * src/bindings/bindings.cc. `variant` is 'simd' or 'scalar', the build that was asked for;
 * `explicit` says the caller named it, `what` where the wasm came from.
 */
export function createApi(Module, variant, { explicit = false, what = 'the wasm' } = {}) {
  // The glues of both builds are interchangeable, so the wasm decides what runs. A build
  // other than the one named is an error; with variant 'auto' we report what was loaded.
  const actual = variantOfTarget(Module.activeTarget());
  if (actual !== variant) {
    if (explicit) {
      throw new TypeError(`load: ${what}: expected the '${variant}' build (gridsample-${variant}.wasm), got the '${actual}' build (Highway target ${Module.activeTarget()}); give variant: '${actual}' or the ${variant} wasm`);
    }
    variant = actual;
  }
  const state = { Module };
  const scratch = Module.allocate(SCRATCH_INT64S * 8);
  if (!scratch) throw new RangeError('load: cannot allocate the shape scratch space in the wasm heap');

  // A tensor argument as {dtype, dims, size, bytes} plus either `ptr` (ours, in the heap) or
  // `data` (a typed array to copy in).
  function readTensor(fn, what, t) {
    const address = HeapTensor.addressIn(t, state, fn, what);
    if (address === 0) {
      throw new TypeError(`${fn}: ${what}: this ${t.dtype} tensor of shape ${shapeString(t.shape)} was disposed`);
    }
    if (address > 0) {
      return { dtype: t.dtype, dims: t.shape, size: t.size, bytes: t.byteLength, ptr: address, heap: t };
    }
    // A heap tensor of another loaded module is read like any tensor: by copy.
    if (t === null || typeof t !== 'object' || isView(t) || Array.isArray(t) || posesAsView(t)) {
      throw new TypeError(`${fn}: ${what}: expected a tensor {data, shape} or {data, dims}, got ${describe(t)}`);
    }
    // onnxruntime-web tensors can live on a GPU; their `data` getter would throw.
    if (typeof t.location === 'string' && t.location !== 'cpu' && t.location !== 'cpu-pinned') {
      throw new TypeError(`${fn}: ${what}: expected a CPU tensor, got one on '${t.location}'; download it first (await tensor.getData())`);
    }
    const data = t.data;
    if (!isView(data)) {
      throw new TypeError(`${fn}: ${what}.data: expected a typed array, got ${describe(data)}`);
    }
    if (t.shape !== undefined && t.dims !== undefined && t.shape !== t.dims) {
      const a = readDims(fn, `${what}.shape`, t.shape);
      const b = readDims(fn, `${what}.dims`, t.dims);
      if (!sameShape(a, b)) {
        throw new RangeError(`${fn}: ${what}: shape ${shapeString(a)} and dims ${shapeString(b)} disagree`);
      }
    }
    const shape = t.shape !== undefined ? t.shape : t.dims;
    if (shape === undefined) {
      throw new TypeError(`${fn}: ${what}: expected a shape (or dims) array, got undefined`);
    }
    const dims = readDims(fn, `${what}.${t.shape !== undefined ? 'shape' : 'dims'}`, shape);
    // Our own results say `dtype`; onnxruntime-web tensors say `type`.
    const declared = t.dtype !== undefined ? t.dtype : t.type;
    let dtype;
    if (declared !== undefined) {
      dtype = readDtypeName(fn, `${what}.${t.dtype !== undefined ? 'dtype' : 'type'}`, declared);
      checkArrayClass(fn, `${what}.data`, dtype, data);
    } else {
      dtype = DTYPE_OF_CLASS.get(data.constructor);
      if (dtype === undefined) {
        throw new TypeError(`${fn}: ${what}.data: expected one of ${[...new Set(DTYPE_OF_CLASS.keys())].map((A) => A.name).join(', ')}, got ${describe(data)}`);
      }
    }
    if (isDetached(data.buffer)) throw detachedError(fn, `${what}.data`);
    const size = countElements(fn, what, dims, dtype);
    if (data.length !== size) {
      throw new RangeError(`${fn}: ${what}: data has ${data.length} elements but shape ${shapeString(dims)} needs ${size}`);
    }
    return { dtype, dims, size, bytes: size * DTYPES[dtype].size, data };
  }

  // The options object as a snapshot of the known keys: each option (getters included) is read
  // exactly once, before any tensor argument.
  function readOptions(fn, options, known) {
    if (options === undefined || options === null) return {};
    if (typeof options !== 'object' || Array.isArray(options) || isView(options) || posesAsView(options)) {
      throw new TypeError(`${fn}: options: expected an object, got ${describe(options)}`);
    }
    for (const key of Object.keys(options)) {
      if (!known.includes(key)) {
        throw new TypeError(`${fn}: options.${key}: unknown option; expected ${known.join(', ')}`);
      }
    }
    const snapshot = {};
    for (const key of known) snapshot[key] = options[key];
    return snapshot;
  }

  // camelCase name or its ONNX attribute spelling (padding_mode); never both.
  function option(fn, options, name, alias) {
    const a = options[name];
    const b = alias ? options[alias] : undefined;
    if (a !== undefined && b !== undefined) {
      throw new TypeError(`${fn}: options: give ${name} or ${alias}, not both`);
    }
    return a !== undefined ? [name, a] : [alias, b];
  }

  function readEnum(fn, what, value, table, fallback) {
    if (value === undefined) return table[fallback];
    const names = Object.keys(table).map((k) => `'${k}'`);
    const expected = `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
    if (typeof value !== 'string') {
      throw new TypeError(`${fn}: options.${what}: expected ${expected}, got ${describe(value)}`);
    }
    if (!Object.prototype.hasOwnProperty.call(table, value)) {
      throw new RangeError(`${fn}: options.${what}: expected ${expected}, got ${describe(value)}`);
    }
    return table[value];
  }

  function readAlign(fn, what, value) {
    if (value === undefined) return false;
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number') {
      if (value === 0 || value === 1) return value === 1;
      throw new RangeError(`${fn}: options.${what}: expected true, false, 0 or 1, got ${describe(value)}`);
    }
    throw new TypeError(`${fn}: options.${what}: expected true, false, 0 or 1, got ${describe(value)}`);
  }

  // Where the result goes: {ptr} for a heap tensor of ours, else {target} (a typed array to
  // copy into) and `result` (what the call returns).
  function readOut(fn, out, dtype, dims, size, inputs) {
    const what = 'options.out';
    const address = HeapTensor.addressIn(out, state, fn, what);
    if (address === 0) {
      throw new TypeError(`${fn}: ${what}: this ${out.dtype} tensor of shape ${shapeString(out.shape)} was disposed`);
    }
    if (address > 0 || (out !== null && typeof out === 'object' && !isView(out) && !posesAsView(out))) {
      const t = readTensor(fn, what, out);
      if (t.dtype !== dtype) {
        throw new TypeError(`${fn}: ${what}: expected dtype ${dtype} (the input's), got ${t.dtype}`);
      }
      if (!sameShape(t.dims, dims)) {
        throw new RangeError(`${fn}: ${what}: expected shape ${shapeString(dims)}, got ${shapeString(t.dims)}`);
      }
      if (t.ptr) {
        for (const [name, input] of inputs) {
          if (input.ptr && t.bytes && input.bytes && t.ptr < input.ptr + input.bytes && input.ptr < t.ptr + t.bytes) {
            throw new RangeError(`${fn}: ${what}: shares memory with ${name}; give the output its own tensor`);
          }
        }
        return { ptr: t.ptr, heap: t.heap, result: out };
      }
      return { target: t.data, result: out };
    }
    if (!isView(out)) {
      throw new TypeError(`${fn}: ${what}: expected a typed array or a tensor {data, shape}, got ${describe(out)}`);
    }
    checkArrayClass(fn, what, dtype, out);
    if (isDetached(out.buffer)) throw detachedError(fn, what);
    if (out.length !== size) {
      throw new RangeError(`${fn}: ${what}: expected ${size} elements for shape ${shapeString(dims)}, got ${out.length}`);
    }
    return { target: out, result: { data: out, shape: dims.slice(), dtype } };
  }

  // Before anything is allocated: the bytes a call or tensor() is about to allocate (`parts`,
  // [what, bytes] pairs) must fit in the 2 GiB wasm memory next to what is in use already.
  function checkBudget(fn, parts) {
    const total = parts.reduce((sum, [, bytes]) => sum + bytes, 0);
    if (total < BIG_REQUEST) return;
    const subject = parts.length === 1 ? parts[0][0] : 'the call';
    const list = parts.length > 1 ? ` for ${parts.map(([what, bytes]) => `${what} (${bytes})`).join(' + ')}` : '';
    if (total >= HEAP_LIMIT) {
      throw new RangeError(`${fn}: ${subject} would need ${bytesString(total)} in the wasm heap${list}; the wasm heap is limited to 2 GiB`);
    }
    const used = Module.heapUsed();
    if (total + used >= HEAP_LIMIT) {
      throw new RangeError(`${fn}: ${subject} would need ${bytesString(total)} in the wasm heap${list}, but ${bytesString(used)} of its 2 GiB are in use (heap tensors); dispose some or make the request smaller`);
    }
  }

  // malloc, or a RangeError that says how full the heap is (fragmentation, static data).
  function allocate(fn, what, bytes) {
    const p = Module.allocate(bytes);
    if (!p) {
      throw new RangeError(`${fn}: could not allocate ${bytesString(bytes)} for ${what} in the wasm heap (${Module.heapUsed()} bytes in use, memory ${Module.HEAPU8.length} bytes, 2 GiB at most); dispose heap tensors or make the request smaller`);
    }
    return p;
  }

  // The C++ side allocates a little on its error path (the status message) with an allocator
  // that aborts the whole module when malloc fails. Before each call, make sure that much is
  // free: a heap filled to the last byte by heap tensors is then a RangeError, not an abort.
  function ensureHeadroom(fn) {
    const p = Module.allocate(HEADROOM);
    if (!p) {
      throw new RangeError(`${fn}: the wasm heap is full (${Module.heapUsed()} bytes in use, memory ${Module.HEAPU8.length} bytes, 2 GiB at most), with no room left for the call itself; dispose heap tensors`);
    }
    Module.release(p);
  }

  // A typed array read at the start of the call must be unchanged when it is copied: a getter
  // of a later argument may have detached or resized its buffer meanwhile.
  function checkUnchanged(fn, what, data, bytes) {
    if (data.byteLength === bytes) return;
    if (isDetached(data.buffer)) throw detachedError(fn, what);
    throw new TypeError(`${fn}: ${what}: expected ${bytes} bytes as when the call began, got ${data.byteLength} (its resizable ArrayBuffer was resized during the call)`);
  }

  // A heap tensor resolved at the start of the call must still be alive (a getter of a later
  // argument may have disposed it).
  function checkAlive(fn, what, t) {
    if (t.heap && HeapTensor.addressIn(t.heap, state, fn, what) !== t.ptr) {
      throw new TypeError(`${fn}: ${what}: this ${t.heap.dtype} tensor of shape ${shapeString(t.heap.shape)} was disposed during the call`);
    }
  }

  // Runs `body(addresses, y)` with every input (a [name, readTensor() record] pair) given a heap
  // address, copying inputs in first, and `y` the output's address (`out.ptr`, a heap tensor of
  // ours, or `outBytes` allocated here); frees what it allocated whatever happens.
  function withHeap(fn, inputs, outBytes, out, body) {
    const parts = inputs.filter(([, t]) => !t.ptr).map(([name, t]) => [name, t.bytes]);
    if (!(out && out.ptr)) parts.push(['the output', outBytes]);
    checkBudget(fn, parts);
    const owned = [];
    try {
      const alloc = (what, bytes) => {
        const p = allocate(fn, what, bytes);
        owned.push(p);
        return p;
      };
      const addresses = inputs.map(([name, t]) => t.ptr || alloc(name, t.bytes));
      const y = out && out.ptr ? out.ptr : alloc('the output', outBytes);
      for (const [name, t] of inputs) checkAlive(fn, name, t);
      if (out) checkAlive(fn, 'options.out', out);
      // Copy only after every allocation: a growing memory detaches earlier views.
      const heap = Module.HEAPU8;
      inputs.forEach(([name, t], i) => {
        if (t.ptr) return;
        checkUnchanged(fn, `${name}.data`, t.data, t.bytes);
        heap.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.bytes), addresses[i]);
      });
      ensureHeadroom(fn);
      return body(addresses, y);
    } finally {
      for (const p of owned) Module.release(p);
    }
  }

  function writeInt64s(offset, values) {
    const view = new BigInt64Array(Module.HEAPU8.buffer, scratch + offset * 8, values.length);
    for (let i = 0; i < values.length; ++i) view[i] = BigInt(values[i]);
    return scratch + offset * 8;
  }

  // A C++ status code: 0, or an error whose message the module hands over once.
  function check(code) {
    if (code !== 0) throw new RangeError(Module.takeLastError());
  }

  // Copies `bytes` at heap address `y` out: into `target` or into a new typed array like `like`.
  function finish(fn, out, y, dtype, dims, size, like) {
    const bytes = size * DTYPES[dtype].size;
    if (out.ptr) return out.result;
    const src = new Uint8Array(Module.HEAPU8.buffer, y, bytes);
    if (out.target) {
      // A view of this very heap, taken before the call grew it, is detached by now.
      checkUnchanged(fn, 'options.out', out.target, bytes);
      new Uint8Array(out.target.buffer, out.target.byteOffset, bytes).set(src);
      return out.result;
    }
    // uint8 results keep the input's class (Uint8ClampedArray for ImageData), float16 too.
    const Ctor = like && DTYPES[dtype].arrays.includes(like.constructor) ? like.constructor : DTYPES[dtype].arrays[0];
    const data = new Ctor(size);
    new Uint8Array(data.buffer).set(src);
    return { data, shape: dims.slice(), dtype };
  }

  // mode, paddingMode (padding_mode) and alignCorners (align_corners) of a sampling call.
  function readSampling(fn, opts) {
    const mode = readEnum(fn, 'mode', opts.mode, MODES, 'linear');
    const [paddingName, paddingValue] = option(fn, opts, 'paddingMode', 'padding_mode');
    const padding = readEnum(fn, paddingName, paddingValue, PADDINGS, 'zeros');
    const [alignName, alignValue] = option(fn, opts, 'alignCorners', 'align_corners');
    return { mode, padding, align: readAlign(fn, alignName, alignValue) };
  }

  function gridSample(x, grid, options) {
    const fn = 'gridSample';
    const opts = readOptions(fn, options,
      ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners', 'out']);
    const X = readTensor(fn, 'x', x);
    const G = readTensor(fn, 'grid', grid);
    const { mode, padding, align } = readSampling(fn, opts);

    const rank = X.dims.length;
    if (rank < 3 || rank > MAX_RANK) {
      throw new RangeError(`${fn}: x: expected rank 3 to ${MAX_RANK} (N, C, D1..Dr), got rank ${rank} shape ${shapeString(X.dims)}`);
    }
    if (!FLOAT_DTYPES.includes(G.dtype)) {
      throw new TypeError(`${fn}: grid: expected dtype float32, float64, float16 or bfloat16, got ${G.dtype}`);
    }
    const r = rank - 2;
    if (G.dims.length !== rank || G.dims[rank - 1] !== r) throw gridShapeError(fn, X.dims, G.dims);
    if (G.dims[0] !== X.dims[0]) {
      throw new RangeError(`${fn}: grid: expected batch size N = ${X.dims[0]} (x's), got shape ${shapeString(G.dims)}`);
    }
    const yDims = [X.dims[0], X.dims[1], ...G.dims.slice(1, rank - 1)];
    return sample(fn, X, G, yDims, opts, (xp, xs, gp, gs, yp, ys) => Module.gridSample(
      xp, DTYPES[X.dtype].code, xs, rank, gp, DTYPES[G.dtype].code, gs, yp, ys, mode, padding, align));
  }

  // The end of gridSample and gridSampleChannelsLast: output size and options.out, heap copies,
  // then `call(xp, xs, gp, gs, yp, ys)` (heap addresses of x, grid and y and of their int64
  // shapes) runs the binding, and the result is handed back.
  function sample(fn, X, G, yDims, opts, call) {
    const ySize = countElements(fn, 'the output', yDims, X.dtype);
    const inputs = [['x', X], ['grid', G]];
    const out = opts.out === undefined ? {} : readOut(fn, opts.out, X.dtype, yDims, ySize, inputs);
    return withHeap(fn, inputs, ySize * DTYPES[X.dtype].size, out, ([xp, gp], yp) => {
      check(call(xp, writeInt64s(0, X.dims), gp, writeInt64s(MAX_RANK, G.dims), yp,
        writeInt64s(2 * MAX_RANK, yDims)));
      return finish(fn, out, yp, X.dtype, yDims, ySize, X.data);
    });
  }

  function readSize(fn, size) {
    let values = size;
    if (size !== null && typeof size === 'object' && !Array.isArray(size) && !isView(size)) {
      // An int64 tensor, as ONNX gives AffineGrid's size (onnxruntime-web: BigInt64Array).
      values = size.data;
      if (!Array.isArray(values) && !isView(values)) {
        throw new TypeError(`${fn}: size: expected an array [N, C, H, W] / [N, C, D, H, W] or a 1-D tensor of them, got ${describe(size)}`);
      }
    }
    if (!Array.isArray(values) && !isView(values)) {
      throw new TypeError(`${fn}: size: expected an array [N, C, H, W] or [N, C, D, H, W], got ${describe(size)}`);
    }
    if (isView(values) && isDetached(values.buffer)) throw detachedError(fn, 'size');
    const dims = readDims(fn, 'size', values);
    if (dims.length !== 4 && dims.length !== 5) {
      throw new RangeError(`${fn}: size: expected 4 values (N, C, H, W) or 5 (N, C, D, H, W), got ${dims.length}: ${shapeString(dims)}`);
    }
    return dims;
  }

  function affineGrid(theta, size, options) {
    const fn = 'affineGrid';
    const opts = readOptions(fn, options, ['alignCorners', 'align_corners', 'out']);
    const T = readTensor(fn, 'theta', theta);
    const S = readSize(fn, size);
    const [alignName, alignValue] = option(fn, opts, 'alignCorners', 'align_corners');
    const align = readAlign(fn, alignName, alignValue);
    if (!FLOAT_DTYPES.includes(T.dtype)) {
      throw new TypeError(`${fn}: theta: expected dtype float32, float64, float16 or bfloat16, got ${T.dtype}`);
    }
    const r = S.length - 2;
    const wantTheta = [S[0], r, r + 1];
    if (!sameShape(T.dims, wantTheta)) {
      throw new RangeError(`${fn}: theta: expected shape ${shapeString(wantTheta)} for size ${shapeString(S)}, got ${shapeString(T.dims)}`);
    }
    const gDims = [S[0], ...S.slice(2), r];
    const gSize = countElements(fn, 'the output grid', gDims, T.dtype);
    const inputs = [['theta', T]];
    const out = opts.out === undefined ? {} : readOut(fn, opts.out, T.dtype, gDims, gSize, inputs);

    return withHeap(fn, inputs, gSize * DTYPES[T.dtype].size, out, ([tp], gp) => {
      const ts = writeInt64s(0, T.dims);
      const ss = writeInt64s(MAX_RANK, S);
      const gs = writeInt64s(2 * MAX_RANK, gDims);
      check(Module.affineGrid(tp, DTYPES[T.dtype].code, ts, ss, S.length, gp, gs, align));
      return finish(fn, out, gp, T.dtype, gDims, gSize, T.data);
    });
  }

  // --- channels-last images: warpAffine, gridSampleChannelsLast --------------------------

  function gridSampleChannelsLast(x, grid, options) {
    const fn = 'gridSampleChannelsLast';
    const opts = readOptions(fn, options,
      ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners', 'out']);
    const X = readTensor(fn, 'x', x);
    const G = readTensor(fn, 'grid', grid);
    const { mode, padding, align } = readSampling(fn, opts);
    if (X.dims.length !== 4) {
      throw new RangeError(`${fn}: x: expected rank 4 (N, H, W, C), got rank ${X.dims.length} shape ${shapeString(X.dims)}`);
    }
    if (!FLOAT_DTYPES.includes(G.dtype)) {
      throw new TypeError(`${fn}: grid: expected dtype float32, float64, float16 or bfloat16, got ${G.dtype}`);
    }
    if (G.dims.length !== 4 || G.dims[3] !== 2) {
      throw new RangeError(`${fn}: grid: expected shape [N, Ho, Wo, 2] for x of shape ${shapeString(X.dims)}, got ${shapeString(G.dims)}`);
    }
    if (G.dims[0] !== X.dims[0]) {
      throw new RangeError(`${fn}: grid: expected batch size N = ${X.dims[0]} (x's), got shape ${shapeString(G.dims)}`);
    }
    const yDims = [X.dims[0], G.dims[1], G.dims[2], X.dims[3]];
    return sample(fn, X, G, yDims, opts, (xp, xs, gp, gs, yp, ys) => Module.gridSampleChannelsLast(
      xp, DTYPES[X.dtype].code, xs, gp, DTYPES[G.dtype].code, gs, yp, ys, mode, padding, align));
  }

  function readInteger(fn, what, value, min, max, expected) {
    if (typeof value !== 'number') {
      throw new TypeError(`${fn}: ${what}: expected ${expected}, got ${describe(value)}`);
    }
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new RangeError(`${fn}: ${what}: expected ${expected}, got ${describe(value)}`);
    }
    return value;
  }

  const readSide = (fn, what, v) => readInteger(fn, what, v, 0, Number.MAX_SAFE_INTEGER, 'a non-negative integer');
  const readChannels = (fn, what, v) => readInteger(fn, what, v, 1, 4, 'an integer from 1 to 4');

  // An interleaved image: a HeapTensor of shape [H, W, C] (zero copy), or {data, width, height,
  // channels?} with data a Uint8ClampedArray / Uint8Array (uint8) or Float32Array (float32).
  // `what` names the argument; for an output, `want.channels` is the default channel count.
  function readImage(fn, what, image, want) {
    const address = HeapTensor.addressIn(image, state, fn, what);
    if (address === 0) {
      throw new TypeError(`${fn}: ${what}: this ${image.dtype} tensor of shape ${shapeString(image.shape)} was disposed`);
    }
    if (address > 0 || address === -2) {
      const dims = image.shape;
      if (image.dtype !== 'uint8' && image.dtype !== 'float32') {
        throw new TypeError(`${fn}: ${what}: expected a uint8 or float32 heap tensor, got ${image.dtype}`);
      }
      if (dims.length !== 3 || dims[2] < 1 || dims[2] > 4) {
        throw new RangeError(`${fn}: ${what}: expected a heap tensor of shape [height, width, channels] with 1 to 4 channels, got ${shapeString(dims)}`);
      }
      const record = {
        dtype: image.dtype, height: dims[0], width: dims[1], channels: dims[2],
        size: image.size, bytes: image.byteLength,
      };
      // A heap tensor of another loaded module is read (or written) by copy, as in gridSample.
      return address > 0 ? { ...record, ptr: address, heap: image } : { ...record, data: image.data };
    }
    const example = want ? 'a typed array or an image {data, width, height}' : 'an image {data, width, height} (e.g. ImageData) or a heap tensor';
    if (image === null || typeof image !== 'object' || isView(image) || Array.isArray(image) || posesAsView(image)) {
      throw new TypeError(`${fn}: ${what}: expected ${example}, got ${describe(image)}`);
    }
    const data = image.data;
    let dtype;
    if (!isView(data)) dtype = undefined;
    else if (data instanceof Uint8ClampedArray || data instanceof Uint8Array) dtype = 'uint8';
    else if (data instanceof Float32Array) dtype = 'float32';
    if (dtype === undefined) {
      throw new TypeError(`${fn}: ${what}.data: expected a Uint8ClampedArray, Uint8Array or Float32Array, got ${describe(data)}`);
    }
    if (isDetached(data.buffer)) throw detachedError(fn, `${what}.data`);
    const width = readSide(fn, `${what}.width`, image.width);
    const height = readSide(fn, `${what}.height`, image.height);
    const pixels = width * height;
    let channels;
    if (image.channels !== undefined) {
      channels = readChannels(fn, `${what}.channels`, image.channels);
    } else if (want && want.channels) {
      channels = want.channels;
    } else if (pixels === 0) {
      channels = 4;
    } else {
      channels = data.length / pixels;
      if (!Number.isInteger(channels) || channels < 1 || channels > 4) {
        throw new RangeError(`${fn}: ${what}: data has ${data.length} elements, which is not 1 to 4 values for each pixel of a ${width}x${height} image`);
      }
    }
    const size = countElements(fn, what, [height, width, channels], dtype);
    if (data.length !== size) {
      throw new RangeError(`${fn}: ${what}: data has ${data.length} elements but a ${width}x${height} image of ${channels} channels needs ${size}`);
    }
    return { dtype, width, height, channels, size, bytes: size * DTYPES[dtype].size, data, image };
  }

  // theta: 6 numbers, the 2x3 matrix row-major. A Float32Array computes as float32 theta, an
  // Array or a Float64Array as float64 (what JavaScript numbers are).
  function readTheta(fn, theta) {
    let data;
    if (isView(theta) && (theta instanceof Float32Array || theta instanceof Float64Array)) {
      if (isDetached(theta.buffer)) throw detachedError(fn, 'theta');
      data = theta;
    } else if (Array.isArray(theta)) {
      if (theta.length !== 6) {
        throw new RangeError(`${fn}: theta: expected 6 numbers [a, b, c, d, e, f] (the 2x3 matrix, row-major), got ${theta.length}`);
      }
      data = new Float64Array(6);
      for (let i = 0; i < 6; ++i) {
        const v = theta[i]; // read once: holes and getters included
        if (typeof v !== 'number') {
          throw new TypeError(`${fn}: theta[${i}]: expected a number, got ${describe(v)}`);
        }
        data[i] = v;
      }
    } else {
      throw new TypeError(`${fn}: theta: expected 6 numbers [a, b, c, d, e, f] as an Array, Float32Array or Float64Array, got ${describe(theta)}`);
    }
    if (data.length !== 6) {
      throw new RangeError(`${fn}: theta: expected 6 numbers [a, b, c, d, e, f] (the 2x3 matrix, row-major), got ${data.length}`);
    }
    const dtype = data instanceof Float32Array ? 'float32' : 'float64';
    return { dtype, data, bytes: data.byteLength };
  }

  function warpAffine(image, theta, options) {
    const fn = 'warpAffine';
    const opts = readOptions(fn, options,
      ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners', 'width', 'height', 'out']);
    const I = readImage(fn, 'image', image, null);
    const T = readTheta(fn, theta);
    const { mode, padding, align } = readSampling(fn, opts);
    let width = opts.width === undefined ? undefined : readSide(fn, 'options.width', opts.width);
    let height = opts.height === undefined ? undefined : readSide(fn, 'options.height', opts.height);

    let O = null;
    if (opts.out !== undefined) {
      if (isView(opts.out)) {
        checkArrayClass(fn, 'options.out', I.dtype, opts.out);
        if (isDetached(opts.out.buffer)) throw detachedError(fn, 'options.out');
        O = { target: opts.out };
      } else {
        O = readImage(fn, 'options.out', opts.out, { channels: I.channels });
        if (O.dtype !== I.dtype) {
          throw new TypeError(`${fn}: options.out: expected ${I.dtype} data (the image's), got ${O.dtype}`);
        }
        if (O.channels !== I.channels) {
          throw new RangeError(`${fn}: options.out: expected ${I.channels} channels (the image's), got ${O.channels}`);
        }
        for (const [name, value, own] of [['width', width, O.width], ['height', height, O.height]]) {
          if (value !== undefined && value !== own) {
            throw new RangeError(`${fn}: options.${name} is ${value} but options.out has ${name} ${own}`);
          }
        }
        width = O.width;
        height = O.height;
        if (O.ptr && I.ptr && O.ptr < I.ptr + I.bytes && I.ptr < O.ptr + O.bytes) {
          throw new RangeError(`${fn}: options.out: shares memory with image; give the output its own tensor`);
        }
      }
    }
    if (width === undefined) width = I.width;
    if (height === undefined) height = I.height;
    const yDims = [1, height, width, I.channels];
    const ySize = countElements(fn, 'the output', yDims, I.dtype);
    if (O && O.target && O.target.length !== ySize) {
      throw new RangeError(`${fn}: options.out: expected ${ySize} elements for a ${width}x${height} image of ${I.channels} channels, got ${O.target.length}`);
    }
    if (ySize > 0 && I.size === 0) {
      throw new RangeError(`${fn}: image: it has no pixels (${I.width}x${I.height}) but the output ${width}x${height} samples from it`);
    }
    const inputs = [['image', I], ['theta', T]];
    const yBytes = ySize * DTYPES[I.dtype].size;
    return withHeap(fn, inputs, yBytes, O, ([ip, tp], yp) => {
      const xs = writeInt64s(0, [1, I.height, I.width, I.channels]);
      const ts = writeInt64s(MAX_RANK, [1, 2, 3]);
      const ys = writeInt64s(2 * MAX_RANK, yDims);
      check(Module.warpAffine(ip, DTYPES[I.dtype].code, xs, tp, DTYPES[T.dtype].code, ts, yp, ys,
        mode, padding, align));
      const result = (data) => ({ data, width, height, channels: I.channels });
      if (O && O.ptr) return result(O.heap.data);
      const src = new Uint8Array(Module.HEAPU8.buffer, yp, yBytes);
      const target = O ? (O.target || O.data) : null;
      if (target) {
        // A view of this very heap, taken before the call grew it, is detached by now.
        checkUnchanged(fn, O.target ? 'options.out' : 'options.out.data', target, yBytes);
        new Uint8Array(target.buffer, target.byteOffset, yBytes).set(src);
        return O.image || result(target);
      }
      // uint8 results keep the image's class: a Uint8ClampedArray for ImageData.
      const like = I.data && I.data.constructor;
      const Ctor = DTYPES[I.dtype].arrays.includes(like) ? like : DTYPES[I.dtype].arrays[0];
      const data = new Ctor(ySize);
      new Uint8Array(data.buffer).set(src);
      return result(data);
    });
  }

  function newHeapTensor(fn, dtype, dims) {
    const size = countElements(fn, `a ${dtype} tensor`, dims, dtype);
    const bytes = size * DTYPES[dtype].size;
    checkBudget(fn, [[`a ${dtype} tensor of shape ${shapeString(dims)}`, bytes]]);
    const ptr = allocate(fn, `a ${dtype} tensor of shape ${shapeString(dims)}`, bytes);
    return new HeapTensor(CONSTRUCT_KEY, state, ptr, dtype, dims, size);
  }

  function tensor(dtype, shape) {
    const fn = 'tensor';
    const name = readDtypeName(fn, 'dtype', dtype);
    const dims = readDims(fn, 'shape', shape);
    const t = newHeapTensor(fn, name, dims);
    Module.HEAPU8.fill(0, HeapTensor.addressIn(t, state), HeapTensor.addressIn(t, state) + t.byteLength);
    return t;
  }

  function tensorFrom(source) {
    const fn = 'tensorFrom';
    const s = readTensor(fn, 'source', source);
    const t = newHeapTensor(fn, s.dtype, s.dims);
    const heap = Module.HEAPU8;
    const to = HeapTensor.addressIn(t, state);
    if (s.ptr) {
      heap.copyWithin(to, s.ptr, s.ptr + s.bytes);
    } else {
      try {
        checkUnchanged(fn, 'source.data', s.data, s.bytes);
      } catch (e) {
        t.dispose();
        throw e;
      }
      heap.set(new Uint8Array(s.data.buffer, s.data.byteOffset, s.bytes), to);
    }
    return t;
  }

  return Object.freeze({
    backend: variant === 'simd' ? 'wasm-simd128' : 'wasm-scalar',
    variant,
    target: Module.activeTarget(),
    dtypes: DTYPE_NAMES,
    gridSample,
    affineGrid,
    warpAffine,
    gridSampleChannelsLast,
    tensor,
    tensorFrom,
    heapUsed: () => Module.heapUsed(),
    heapSize: () => Module.HEAPU8.buffer.byteLength,
  });
}
