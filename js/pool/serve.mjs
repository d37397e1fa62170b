// createPool's worker side: one single-threaded gridsample instance answering the pool's messages (whole calls, and row bands of split ones over inputs kept in its heap).

// An error as a message can carry it (the pool rebuilds the same class and message).
const plain = (e) => ({ name: e?.name ?? 'Error', message: e?.message ?? String(e) });

/**
 * Serves the pool through `port` ({post(message, transfer), listen(onMessage), exit()}) with
 * the instance `load(options)` resolves to.
 */
export function serve(load, port) {
  let gs = null;
  const inputs = new Map();  // call id -> the heap tensor of its shared input
  let queue = Promise.resolve();
  port.listen((msg) => {
    queue = queue.then(() => handle(msg));
  });

  // A split call's shared input, copied into the heap once: an image as an [H, W, C] tensor.
  function open(id, shared) {
    const t = shared.image
      ? gs.tensorFrom({ data: shared.image.data, shape: [shared.image.height, shared.image.width, shared.image.channels] })
      : gs.tensorFrom(shared.x);
    inputs.set(id, t);
  }

  async function handle(msg) {
    if (msg.type === 'init') {
      try {
        gs = await load(msg.load);
        port.post({ type: 'ready' });
      } catch (e) {
        port.post({ type: 'failed', error: plain(e) });
      }
      return;
    }
    if (msg.type === 'close') {
      inputs.get(msg.id)?.dispose();
      inputs.delete(msg.id);
      return;
    }
    try {
      if (msg.fault) {
        if (msg.fault === 'exit') port.exit();
        throw new Error('a fault injected by a test');
      }
      let result;
      if (msg.type === 'whole') {
        result = gs[msg.fn](...msg.args);
      } else {
        if (msg.shared) open(msg.id, msg.shared);
        result = gs[msg.fn](inputs.get(msg.id), ...msg.args);
      }
      port.post({ type: msg.type, id: msg.id, band: msg.band, result }, [result.data.buffer]);
    } catch (e) {
      port.post({ type: 'error', id: msg.id, error: plain(e) });
    }
  }
}
