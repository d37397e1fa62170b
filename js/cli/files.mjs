// The CLI's image files: the format named by the file's extension (PNG, JPEG), reading a file or a pipe (`-`: standard input), checking it before its codec sees it, decoding to and encoding from 8-bit RGBA, and writing.
import { closeSync, fstatSync, openSync, readFileSync, readSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import process from 'node:process';

import { JPEG_FORMAT } from './jpeg.mjs';
import { PNG_FORMAT } from './png.mjs';

/** A file that cannot be read, decoded or written: exit status 1. */
export class FileError extends Error {}

/** The formats the CLI reads and writes; each module imports its codec when asked (load): PNG's is built in, JPEG's is jpeg-js. */
export const FORMATS = Object.freeze([PNG_FORMAT, JPEG_FORMAT]);

/** "PNG (.png) and JPEG (.jpg, .jpeg)", for messages. */
export const FORMAT_LIST = FORMATS.map((f) => `${f.name} (${f.extensions.join(', ')})`).join(' and ');

/** The file name that stands for standard input (an input) or standard output (the output). */
export const STDIO = '-';

/** How messages name a file: its path, or `standard input` / `standard output` for `-`. */
export function fileName(path, { output = false } = {}) {
  if (path !== STDIO) return path;
  return output ? 'standard output' : 'standard input';
}

/**
 * The format a file name's extension names (any case): a FORMATS entry, null for an extension
 * of another format, undefined for a name without one (`-` or a pipe such as /dev/stdin).
 */
export function formatOfName(path) {
  const extension = extname(path).toLowerCase();
  if (!extension) return undefined;
  return FORMATS.find((f) => f.extensions.includes(extension)) ?? null;
}

// Formats a file may really be, told by its first bytes, that the CLI does not read.
const OTHER_FORMATS = [
  ['GIF', (b) => b.toString('latin1', 0, 4) === 'GIF8'],
  ['WebP', (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP'],
  ['BMP', (b) => b.toString('latin1', 0, 2) === 'BM'],
  ['TIFF', (b) => ['II*\0', 'MM\0*'].includes(b.toString('latin1', 0, 4))],
];

function systemReason(e) {
  const reasons = { ENOENT: 'no such file or directory', EACCES: 'permission denied', EISDIR: 'it is a directory',
    ENOTDIR: 'a part of the path is not a directory', EPERM: 'operation not permitted', ENOSPC: 'no space left on the device',
    EROFS: 'read-only file system', EFBIG: 'it would exceed the file size limit (ulimit -f)', EDQUOT: 'the disk quota is exceeded',
    EPIPE: 'the pipe was closed by its reader' };
  return reasons[e.code] || e.message;
}

/** Imports the codecs of `formats` (jpeg-js: an optional peer dependency that the user installs). */
export async function loadCodecs(formats) {
  for (const format of new Set(formats)) {
    try {
      await format.load();
    } catch (e) {
      // Not installed: core/optional_package.mjs's one line, which names the package to install.
      if (e.name === 'MissingPackageError') throw new FileError(e.message, { cause: e });
      throw new FileError(`cannot load the ${format.name} codec (npm package ${format.codec}): ${e.message}`, { cause: e });
    }
  }
}

/**
 * The bytes of an input file: a regular file or a pipe (`-`: standard input, which may also be
 * a socket, as Node.js's child processes get), at most 2 GiB (a device such as /dev/zero
 * would never end); FileError with the reason otherwise.
 */
const MAX_FILE = 2 ** 31 - 1;
export function readInput(path) {
  const name = fileName(path);
  const stdin = path === STDIO;
  let fd;
  try {
    fd = stdin ? 0 : openSync(path, 'r');
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
    if (stat.isFile()) {
      if (stat.size > MAX_FILE) throw new FileError(`cannot read ${name}: it has ${stat.size} bytes, more than the 2 GiB an input file may have here`);
      return readFileSync(fd);
    }
    if (stdin && stat.isCharacterDevice()) throw new FileError('cannot read standard input: it is a terminal; pipe or redirect an image into it');
    if (!stat.isFIFO() && !(stdin && stat.isSocket())) throw new FileError(`cannot read ${name}: it is not a regular file or a pipe`);
    const chunks = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(1 << 20);
      const n = readWaiting(fd, chunk);
      if (n === 0) break;
      total += n;
      if (total > MAX_FILE) throw new FileError(`cannot read ${name}: it has more than the 2 GiB an input file may have here`);
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } catch (e) {
    if (e instanceof FileError) throw e;
    throw new FileError(`cannot read ${name}: ${systemReason(e)}`);
  } finally {
    if (fd !== undefined && !stdin) closeSync(fd);
  }
}

// readSync of a pipe, waiting where the writer left it non-blocking (EAGAIN: no data yet).
function readWaiting(fd, buffer) {
  for (;;) {
    try {
      return readSync(fd, buffer, 0, buffer.length, null);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/**
 * Reads an image file as 8-bit RGBA {width, height, data}: in the format its extension names
 * (told by its first bytes when the name has none), checked by that format before its codec
 * sees it, and refused with a reason of ours when it is another format, corrupt, truncated,
 * or too large for the wasm heap together with the output (`size`, or the input's).
 */
export function readImage(path, size) {
  const bytes = readInput(path);
  const name = fileName(path);
  const sniffed = FORMATS.find((f) => f.sniff(bytes));
  const format = formatOfName(path) || sniffed;
  if (!format) {
    const other = OTHER_FORMATS.find(([, test]) => test(bytes));
    const reason = bytes.length === 0 ? 'the file is empty' : other ? `it is a ${other[0]} file` : 'it starts with neither signature';
    throw new FileError(`${name} is not a PNG or JPEG file (${reason}); the formats read are ${FORMAT_LIST}`);
  }
  const invalid = (reason) => new FileError(`${name} is not a valid ${format.name} file (${reason})`);
  if (bytes.length === 0) throw invalid('the file is empty');
  if (sniffed && sniffed !== format) throw invalid(`it is a ${sniffed.name} file; name it ${sniffed.extensions.join(' or ')}`);
  const other = OTHER_FORMATS.find(([, test]) => test(bytes));
  if (!sniffed && other) throw invalid(`it is a ${other[0]} file; the formats read are ${FORMAT_LIST}`);
  const checked = format.check(bytes, invalid);
  const { width, height } = checked;
  const [ow, oh] = size || [width, height];
  const total = BigInt(width) * BigInt(height) * 4n + BigInt(ow) * BigInt(oh) * 4n;
  if (total >= 2n ** 31n) {
    throw new FileError(`cannot warp ${name} (${width}x${height} pixels) to ${ow}x${oh}: as 8-bit RGBA the two images need ${total} bytes, more than the 2 GiB wasm heap can hold`);
  }
  try {
    return format.decode(checked, invalid);
  } catch (e) {
    if (e instanceof FileError) throw e;
    // The structure checked out, so what the codec refuses is what the image data holds.
    throw new FileError(`${name} is not a valid ${format.name} file (its image data is corrupt or incomplete)`, { cause: e });
  }
}

/** RGBA pixels {width, height, data} as a file of `format` (a FORMATS entry). */
export function encodeImage(format, image, options = {}) {
  return format.encode(image, options);
}

/**
 * Writes an output file whole or not at all (writeFileAtomic), or to standard output for `-`;
 * FileError with the reason when it cannot.
 */
export async function writeOutputFile(path, bytes, { signal } = {}) {
  try {
    if (path === STDIO) await writeStdout(bytes);
    else await writeFileAtomic(path, bytes, { signal });
  } catch (e) {
    if (signal?.aborted || e instanceof FileError) throw e;
    throw new FileError(`cannot write ${fileName(path, { output: true })}: ${systemReason(e)}`);
  }
}

// Standard output as the image file: all of `bytes`, or the stream's error (EPIPE when the
// reader has gone). Not to a terminal, where an image is noise.
async function writeStdout(bytes) {
  if (process.stdout.isTTY) throw new FileError('cannot write standard output: it is a terminal; redirect it to a file or a pipe');
  await new Promise((resolve, reject) => {
    process.stdout.once('error', reject);
    process.stdout.write(bytes, (e) => {
      process.stdout.off('error', reject);
      if (e) reject(e);
      else resolve();
    });
  });
}

const WRITE_CHUNK = 1 << 22; // between chunks, `signal` may stop the write

/**
 * Writes `bytes` to `path` so that a failure at any point (a full disk, a file size limit,
 * `signal` aborted, e.g. on Ctrl-C) leaves what was there before: into a temporary file in
 * the same folder, then renamed over the target, with the target's permissions where it
 * existed. A symbolic link is written through; a target that is not a regular file (a pipe,
 * a device) is written in place, as there is nothing to rename over it. On failure the
 * temporary file is removed and the error (the system's, or `signal`'s reason) is thrown.
 */
export async function writeFileAtomic(path, bytes, { signal } = {}) {
  const target = existingTarget(path);
  if (target.stat && !target.stat.isFile()) {
    writeFileSync(path, bytes);
    return;
  }
  const temporary = join(dirname(target.path), `.${basename(target.path)}.${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`);
  let file = null;
  try {
    file = await open(temporary, 'wx');
    if (target.stat) await file.chmod(target.stat.mode & 0o7777);
    for (let at = 0; at < bytes.length;) {
      signal?.throwIfAborted();
      at += (await file.write(bytes, at, Math.min(WRITE_CHUNK, bytes.length - at))).bytesWritten;
    }
    await file.sync();
    await file.close();
    file = null;
    signal?.throwIfAborted();
    await rename(temporary, target.path);
  } catch (e) {
    await file?.close().catch(() => {});
    await rm(temporary, { force: true });
    throw e;
  }
}

// The file a write to `path` replaces: the path (through any symbolic links) and its status,
// or `path` itself and null where nothing is there yet.
function existingTarget(path) {
  try {
    const real = realpathSync(path);
    return { path: real, stat: statSync(real) };
  } catch (e) {
    if (e.code === 'ENOENT') return { path, stat: null };
    throw e;
  }
}
