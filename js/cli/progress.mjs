// The CLI's progress line on a terminal: the step under way and the seconds so far, drawn by a worker thread because the steps (decoding, warping, encoding) block the main thread.
import { writeSync } from 'node:fs';
import process from 'node:process';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

// The lock on the line, in shared memory: the worker draws only while it holds it, so that
// after stop() returns nothing more is drawn and the line is clear for what comes next.
const FREE = 0;
const DRAWING = 1;
const STOPPED = 2;
const LOCK = 0;
const DRAWN = 1; // whether anything is on the line

const CLEAR_LINE = '\r\x1b[K';

/**
 * Starts the progress line on `fd` (stderr), where `isTTY` (only a terminal shows it: a log
 * or a pipe gets nothing). Nothing shows until the command has run `afterMs`; then the
 * current step and the seconds so far, redrawn every `everyMs`. Returns step(text), to name
 * the step now under way, and stop(), which clears the line (call it before writing
 * anything else to the terminal).
 */
export function startProgress({ fd = 2, isTTY = process.stderr.isTTY, afterMs = 1000, everyMs = 250 } = {}) {
  if (!isTTY) return { step() {}, stop() {} };
  const shared = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(new URL(import.meta.url), { workerData: { gridsampleProgress: { fd, afterMs, everyMs, shared, start: Date.now() } } });
  worker.unref(); // never what keeps the command running
  worker.on('error', () => {}); // nor what stops it
  return {
    step(text) {
      worker.postMessage(text);
    },
    stop() {
      while (Atomics.compareExchange(shared, LOCK, FREE, STOPPED) === DRAWING) Atomics.wait(shared, LOCK, DRAWING, 50);
      if (Atomics.load(shared, DRAWN)) writeSync(fd, CLEAR_LINE);
      Atomics.store(shared, DRAWN, 0);
      worker.terminate();
    },
  };
}

// The worker: redraws the line on a timer of its own while the main thread is busy.
function drawProgress({ fd, afterMs, everyMs, shared, start }, port) {
  let text = '';
  let shown = '';
  port.on('message', (step) => { text = step; });
  setInterval(() => {
    const ms = Date.now() - start;
    const line = `gridsample: ${text} (${Math.round(ms / 1000)} s)`;
    if (!text || ms < afterMs || line === shown) return;
    if (Atomics.compareExchange(shared, LOCK, FREE, DRAWING) !== FREE) return;
    try {
      writeSync(fd, CLEAR_LINE + line);
      shown = line;
      Atomics.store(shared, DRAWN, 1);
    } catch {
      // A line that cannot be drawn is no failure of the command.
    } finally {
      Atomics.store(shared, LOCK, FREE);
      Atomics.notify(shared, LOCK);
    }
  }, everyMs);
}

if (!isMainThread && workerData?.gridsampleProgress) drawProgress(workerData.gridsampleProgress, parentPort);
