// Reads a resource the browser entry points are given (a URL, relative to the page): the wasm (as instantiate() fetches it), ONNX models; and the logical core count.

/** The bytes at a URL (fetched with the page's credentials for its own origin). */
export async function readBytes(url) {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The instantiate() source of the wasm at `url` (core/load_wasm.mjs): fetched with the page's credentials for its own origin. */
export const wasmSource = (url) => ({ url: String(url), fetch: (u) => fetch(u, { credentials: 'same-origin' }) });

/** Logical cores, as the browser reports them (1 where it does not). */
export const cores = () => globalThis.navigator?.hardwareConcurrency ?? 1;
