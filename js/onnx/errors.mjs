// How gridsample/onnx's messages name things: names from the model quoted, what the caller gave described, onnxruntime's failures on one line, nodes labelled, and the error a model's problem throws.
/**
 * A name from the model or the caller as messages print it: JSON-quoted, so that quotes, line
 * breaks and control characters in it can neither end the message's line nor fake its text.
 */
export function quote(name) {
  return JSON.stringify(String(name)).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** Names as a list in messages: `"a", "b"`. */
export const quoteAll = (names) => names.map(quote).join(', ');

/** What the caller gave, as messages print it: `null`, `a Uint8Array`, `"text"`, `number 42`. */
export function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') {
    let name;
    try {
      name = Object.getPrototypeOf(v)?.constructor?.name;
    } catch {
      // a Proxy whose traps throw
    }
    if (typeof name !== 'string' || !name || name === 'Object') return 'an object';
    return `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`;
  }
  return typeof v === 'string' ? quote(v) : `${typeof v} ${String(v)}`;
}

/**
 * An error about a model: a one-line message that starts with the model's name. Text quoted from
 * elsewhere (onnxruntime's, the file system's) has its line breaks folded into spaces.
 */
export class OnnxModelError extends Error {
  constructor(model, message, options) {
    super(`gridsample/onnx: ${model}: ${message}`.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' '), options);
    this.name = 'OnnxModelError';
  }
}

/**
 * onnxruntime's own words for a failure, on one line (its lines joined: a name from the model
 * may hold a line break), without its source path and C++ signature.
 */
export function failureReason(e) {
  const text = String(e?.message ?? e).trim().replace(/\s*\n\s*/g, ' ');
  const status = /Status Message: (.*)$/.exec(text)?.[1] ?? text.replace(/^.*ERROR_MESSAGE: /, '');
  return status.replace(/^\S+\.cc:\d+ .*?\) const(?: \[[^\]]*\])? /, '');
}

/** How a node is named in messages: `node "name" (Op)`, or its position when it has no name. */
export function nodeLabel(node, index) {
  const op = /^[A-Za-z_][\w.]*$/.test(node.opType) ? node.opType : quote(node.opType);
  return node.name ? `node ${quote(node.name)} (${op})` : `node #${index} (${op}, unnamed)`;
}
