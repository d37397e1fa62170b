// Reads a resource the browser entry points are given (a URL, relative to the page) as bytes: ONNX models.

/** The bytes at a URL (fetched with the page's credentials for its own origin). */
export async function readBytes(url) {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}
