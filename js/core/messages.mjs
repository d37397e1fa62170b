// How error messages show what the caller gave: values, shapes, byte counts, detached buffers (no rule of the library here).

/** `1 node`, `2 nodes`: a count and its noun, plural unless the count is 1. */
export const counted = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A typed array (not a DataView). */
export function isView(v) {
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

/**
 * An object that claims a typed-array class but is not one (a Proxy of a typed array): named as
 * such in errors instead of being taken for a tensor object without `data`.
 */
export function posesAsView(v) {
  return v !== null && typeof v === 'object' && !ArrayBuffer.isView(v) && TYPED_ARRAY_NAME.test(className(v));
}

/** A short, unambiguous rendering of what the caller gave. */
export function describe(v) {
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

/** "[1, 3, 8, 8]". */
export function shapeString(shape) {
  return `[${Array.from(shape).join(', ')}]`;
}

/** "4294967296 bytes (4 GiB)": exact bytes (a bigint or a number) and a rounded size. */
export function bytesString(bytes) {
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

/** True for an ArrayBuffer that was transferred or belongs to a wasm memory that grew since. */
export function isDetached(buffer) {
  if (typeof SharedArrayBuffer === 'function' && buffer instanceof SharedArrayBuffer) return false;
  if ('detached' in ArrayBuffer.prototype) return buffer.detached;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

export function detachedError(fn, what) {
  return new TypeError(`${fn}: ${what}: the ArrayBuffer is detached (transferred, or a wasm memory view from before the memory grew); pass a live array`);
}

export function sameShape(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) return false;
  return true;
}
