// Reads a resource the Node.js entry points are given (a path, a file: URL, an http(s) or data: URL) as bytes: the wasm, ONNX models; and the buffers of their results.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** file: URLs and plain paths are read from disk ({bytes}); http(s) and data: URLs are fetched ({url, fetch}). */
export async function sourceFromUrl(url) {
  const text = String(url);
  if (text.startsWith('file:')) return { bytes: await readFile(fileURLToPath(text)) };
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text)) {
    return { url: text, fetch: globalThis.fetch };
  }
  return { bytes: await readFile(text) };
}

/** The bytes at a path or URL. */
export async function readBytes(url) {
  const source = await sourceFromUrl(url);
  if (source.bytes) return new Uint8Array(source.bytes.buffer, source.bytes.byteOffset, source.bytes.byteLength);
  const response = await source.fetch(source.url);
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The instantiate() source of the wasm at `url` (core/load_wasm.mjs), or an error that says which file could not be read. */
export async function wasmSource(url) {
  try {
    return await sourceFromUrl(url);
  } catch (e) {
    const error = new Error(`load: could not read the gridsample wasm at ${url}: ${e.message}`);
    error.cause = e;
    throw error;
  }
}

/** An ArrayBuffer for a result that is copied over whole: no zero-filling first (0.07 ms of a 2 MiB result). */
export const newResultBuffer = (bytes) => Buffer.allocUnsafeSlow(bytes).buffer;
