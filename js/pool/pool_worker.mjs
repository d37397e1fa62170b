// createPool's module Web Worker (browsers): one single-threaded gridsample instance, served by pool/serve.mjs.
// core/load_browser.mjs, not browser.mjs: the worker needs load() alone, not the code that starts it.
import { load } from '../core/load_browser.mjs';
import { serve } from './serve.mjs';

serve(load, {
  post: (message, transfer) => self.postMessage(message, transfer),
  listen: (onMessage) => self.addEventListener('message', (e) => onMessage(e.data)),
  exit: () => self.close(),
});
