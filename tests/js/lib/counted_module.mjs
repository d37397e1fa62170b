// A simd module whose every crossing into the wasm is counted, for the tests that count a call's crossings (prepared_calls, fixed_maps, deformable_attention).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { createApi } from '../../../js/core/api.mjs';
import { load } from '../../../js/node.mjs';

const DIST = new URL('../../../js/dist/', import.meta.url);
const require = createRequire(import.meta.url);

// Runs `open()` (which instantiates the simd wasm) with every exported function of the instance,
// and every function embind reaches through the table, wrapped to count calls: what open()
// resolves to, with crossings(f), how many times f() entered the wasm.
async function counting(open) {
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
    return { ...await open(), crossings: (f) => { const before = count; f(); return count - before; } };
  } finally {
    WebAssembly.instantiate = original;
  }
}

/** The simd module as load() gives it, counted: {gs, crossings}. */
export function countedModule() {
  return counting(async () => ({
    gs: await load({ variant: 'simd', wasmBinary: readFileSync(new URL('gridsample-simd.wasm', DIST)), warmUp: false }),
  }));
}

/**
 * The simd module from its Node glue, counted, with the API object made over it: {Module, gs,
 * crossings}, Module the Emscripten module whose bindings a test may wrap (the API calls them
 * through it).
 */
export function countedGlue() {
  return counting(async () => {
    const Module = await require(new URL('gridsample-simd.cjs', DIST).pathname)({ wasmBinary: readFileSync(new URL('gridsample-simd.wasm', DIST)) });
    return { Module, gs: createApi(Module, 'simd') };
  });
}
