// createPool's module Web Worker (browsers): one single-threaded gridsample instance, served by pool_serve.mjs.
import { load } from './browser.mjs';
import { serve } from './pool_serve.mjs';

serve(load, {
  post: (message, transfer) => self.postMessage(message, transfer),
  listen: (onMessage) => self.addEventListener('message', (e) => onMessage(e.data)),
  exit: () => self.close(),
});
