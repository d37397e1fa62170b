// A simd module whose every crossing into the wasm is counted, for the tests that count a call's crossings (prepared_calls, fixed_maps).
import { readFileSync } from 'node:fs';

import { load } from '../../../js/node.mjs';

const DIST = new URL('../../../js/dist/', import.meta.url);

/**
 * A simd module loaded from bytes whose instance has every exported function, and every
 * function embind reaches through the table, wrapped to count calls: crossings(f) is how many
 * times f() entered the wasm.
 */
export async function countedModule() {
  const original = WebAssembly.instantiate;
  let count = 0;
  const counted = (f) => (typeof f === 'function' ? (...args) => { count++; return f(...args); } : f);
  WebAssembly.instantiate = async (source, imports) => {
    const r = await original(source, imports);
    const exports = {};
    for (const [name, value] of Object.entries(r.instance.exports)) {
      exports[name] = value instanceof WebAssembly.Table
        ? new Proxy(value, { get: (t, p) => (p === 'get' ? (i) => counted(t.get(i)) : typeof t[p] === 'function' ? t[p].bind(t) : t[p]) })
        : counted(value);
    }
    return { instance: { exports }, module: r.module };
  };
  try {
    const gs = await load({ variant: 'simd', wasmBinary: readFileSync(new URL('gridsample-simd.wasm', DIST)), warmUp: false });
    return { gs, crossings: (f) => { const before = count; f(); return count - before; } };
  } finally {
    WebAssembly.instantiate = original;
  }
}
