// The page's end of worker.mjs: starts the module worker (with the page's ?threads=N) and sends it the settings and the read requests whose answers come back by id.
import { hook, page, query, state } from './page_state.mjs';

// ?threads=N on the page goes to the worker's load().
const workerUrl = new URL('./worker.mjs', import.meta.url);
const threadsParam = query.get('threads');
if (threadsParam) workerUrl.searchParams.set('threads', threadsParam);
export const worker = new Worker(workerUrl, { type: 'module' });

let asked = 0;
const answers = new Map();

/** Sends `message` with a fresh id; resolves to the worker's answer of the same id. */
export function ask(message) {
  const id = ++asked;
  return new Promise((resolve) => {
    answers.set(id, resolve);
    worker.postMessage({ ...message, id });
  });
}

/** Hands the worker's answer `m` (its 'read' message) to the ask() that waits for it. */
export function answer(m) {
  answers.get(m.id)?.(m);
  answers.delete(m.id);
}

/** Sends the current settings as the next params message (page.seq). */
export function post() {
  page.seq += 1;
  hook.sentSeq = page.seq;
  worker.postMessage({
    type: 'params',
    params: {
      seq: page.seq,
      theta: state.theta.slice(),
      flow: state.flow,
      strength: state.flow === 'none' ? 0 : state.strengths[state.flow],
      mode: state.mode,
      padding: state.padding,
      align: state.align,
      compareJs: state.compareJs,
      gpu: state.gpu,
    },
  });
}
