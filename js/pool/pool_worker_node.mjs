// createPool's worker_threads worker (Node): one single-threaded gridsample instance, served by pool/serve.mjs.
import { parentPort } from 'node:worker_threads';

import { load } from '../node.mjs';
import { serve } from './serve.mjs';

serve(load, {
  post: (message, transfer) => parentPort.postMessage(message, transfer),
  listen: (onMessage) => parentPort.on('message', onMessage),
  exit: () => process.exit(1),
});
