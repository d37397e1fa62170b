// Helpers of the worker pool tests: results compared byte for byte with one instance's, progress records, test images, the work messages posted to workers, errors as one instance throws them, hostile values and image sides.
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';

import { prng } from './random.mjs';

const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

// The pool's result against the instance's: same class, fields and bytes.
export function assertSame(got, expected, what) {
  assert.equal(got.data.constructor, expected.data.constructor, `${what}: array class`);
  const { data: g, ...gRest } = got;
  const { data: e, ...eRest } = expected;
  assert.deepEqual(gRest, eRest, `${what}: fields`);
  assert.ok(bytesOf(g).equals(bytesOf(e)), `${what}: the pool's bytes differ from one instance's`);
}

// Progress values a call reported, and whether it was split (a fraction below 1 came first).
export function progress() {
  const seen = [];
  return { seen, onProgress: (f) => seen.push(f), split: () => seen.length > 1 && seen[0] < 1 };
}

// An RGBA (or `channels`) test image with a gradient and noise.
export function image(width, height, channels = 4, Type = Uint8ClampedArray, seed = 1) {
  const next = prng(seed);
  const data = new Type(width * height * channels);
  for (let i = 0; i < data.length; i++) {
    const v = ((i % (width * channels)) / channels + next() * 40) % 256;
    data[i] = Type === Float32Array ? v / 255 : v;
  }
  return { data, width, height };
}

// The work messages ('whole' calls and 'band's) this thread posts to workers while `body(log)`
// runs, in order; `body` may push markers of its own into the log.
export async function postedDuring(body) {
  const log = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message?.type === 'whole' || message?.type === 'band') log.push(message.type);
    return post.call(this, message, ...rest);
  };
  try {
    await body(log);
  } finally {
    Worker.prototype.postMessage = post;
  }
  return log;
}

// What `call()` throws, or undefined.
export function thrown(call) {
  try {
    call();
  } catch (e) {
    return e;
  }
  return undefined;
}

// Asserts that the pool's promise rejects with the instance's error: the same object where the
// instance passes the caller's own exception through, else the same class and message.
export async function rejectsAsInstance(promise, expected, what) {
  assert.ok(expected, `${what}: the instance accepted it`);
  await assert.rejects(promise, (e) => {
    if (e === expected) return true;
    assert.ok(![GETTER, TRAP].includes(expected), `${what}: expected the caller's own ${expected.message}, got ${e?.name}: ${e?.message}`);
    assert.equal(`${e?.constructor?.name}: ${e?.message}`, `${expected.constructor.name}: ${expected.message}`, what);
    return true;
  });
}

export const GETTER = new Error('thrown by a getter');
const TRAP = new RangeError('thrown by a Proxy trap');
export const trapProxy = () => new Proxy({}, { get() { throw TRAP; }, has() { throw TRAP; }, ownKeys() { throw TRAP; } });

// Sides of the test images per mode.
export const BIG = 512;
export const SIDE = { linear: BIG, nearest: 2 * BIG, cubic: BIG };
