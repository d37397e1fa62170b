// The dispatches of gridsample/webgpu's calls on buffers it has bound before, batched: recorded per call without a GPU round trip, submitted together (when the task ends, when 64 are pending, at read() and flush(), and before any other work reaches the device's queue), their uniform blocks and bind groups reused, and their GPU errors reported at the next call, read() or flush().

// The key, in the innermost WeakMap of Batch's bind groups, of their Map by sizes.
const SIZES = {};

/** Dispatches a batch holds before it is submitted without waiting for the task's end. */
export const BATCH_LIMIT = 64;

// The queue calls that put work on the GPU in order: each submits the pending batches first.
const QUEUE_CALLS = ['submit', 'writeBuffer', 'writeTexture', 'copyExternalImageToTexture', 'onSubmittedWorkDone'];

// A GPUQueue or GPUDevice -> [WeakRef to a listener, its method, whether it is called after].
const listenersOf = new WeakMap();

/**
 * Wraps the methods `names` of `target` (a GPUQueue or GPUDevice, the caller's: onnxruntime's
 * calls them too) once, so that each call first calls `owner[method](name, args)` of every owner
 * registered on it (held weakly), or after the call where `after` is true.
 */
export function listenTo(target, names, owner, method, after = false) {
  let listeners = listenersOf.get(target);
  if (!listeners) {
    listeners = new Set();
    listenersOf.set(target, listeners);
    const tell = (when, name, args) => {
      for (const entry of listeners) {
        const o = entry[0].deref();
        if (!o) listeners.delete(entry);
        else if (entry[2] === when) o[entry[1]](name, args);
      }
    };
    for (const name of names) {
      const original = target[name];
      if (typeof original !== 'function') continue;
      Object.defineProperty(target, name, {
        configurable: true,
        writable: true,
        value: function listened(...args) {
          tell(false, name, args);
          const result = original.apply(this, args);
          tell(true, name, args);
          return result;
        },
      });
    }
  }
  listeners.add([new WeakRef(owner), method, after]);
}

// A task (not a microtask) after this one: Node's setImmediate, else a MessageChannel message.
function taskScheduler() {
  if (typeof setImmediate === 'function') return (f) => setImmediate(f);
  const channel = new MessageChannel();
  let pending = null;
  channel.port1.onmessage = () => pending?.();
  return (f) => {
    pending = f;
    channel.port2.postMessage(0);
  };
}

/**
 * Work of one GPUDevice's calls that record into no caller's encoder and bind only buffers it
 * knows (bound before without an error, or its own). `probe(fn, bindings)` finds the binding
 * at fault when a submitted batch fails (an Error naming it, or null).
 */
export class Batch {
  #device;
  #probe;
  #work = []; // {fn, pipeline, params, bindings: [[name, buffer, bytes]], groups, temporaries}
  #checks = new Set(); // submitted batches' error checks, until they settle
  #failure = null; // the first failure not yet reported
  #scheduled = false;
  #schedule = taskScheduler();
  #known = new WeakSet(); // buffers bound before without an error, and ours
  #ours = new WeakSet(); // buffers of ours (not probed: the caller's are at fault)
  #uniforms = new Map(); // a uniform block's bytes -> its GPUBuffer
  #uniformOf = new WeakMap(); // a uniform block (its typed array) -> [its key, its GPUBuffer]
  // Bind groups by their pipeline, uniform buffer and buffers, in WeakMaps nested in that order
  // (a bind group lives only while all of them do: one of a buffer the caller let go does not
  // keep it), then by the bindings' sizes.
  #bindGroups = new WeakMap();
  #lastGroup = null; // {pipeline, uniform, bindings, group} of the last bind group found or made
  #recorded = new WeakMap(); // a caller's GPUCommandEncoder -> temporaries recorded into it
  #finishedBy = new WeakMap(); // GPUCommandBuffer -> those temporaries

  constructor(device, probe) {
    this.#device = device;
    this.#probe = probe;
    // Work then reaches the GPU in the order it was asked for, whoever asks.
    if (device.queue) {
      listenTo(device.queue, QUEUE_CALLS, this, 'submit');
      listenTo(device.queue, QUEUE_CALLS, this, 'submitted', true);
    }
  }

  /**
   * Destroys `temporaries`, recorded into the caller's `encoder`, once the command buffer it
   * finishes into is submitted (its finish() wrapped once); garbage collected if it never is.
   */
  adopt(encoder, temporaries) {
    let list = this.#recorded.get(encoder);
    if (!list) {
      list = [];
      this.#recorded.set(encoder, list);
      const finish = encoder.finish;
      const finishedBy = this.#finishedBy;
      Object.defineProperty(encoder, 'finish', {
        configurable: true,
        writable: true,
        value: function finished(...args) {
          const commands = finish.apply(this, args);
          finishedBy.set(commands, list);
          return commands;
        },
      });
    }
    list.push(...temporaries);
  }

  /** After a queue call: a submit()'s command buffers' temporaries (adopt()) destroyed. */
  submitted(name, args) {
    if (name !== 'submit') return;
    for (const commands of args[0] ?? []) {
      const list = this.#finishedBy.get(commands);
      if (!list) continue;
      this.#finishedBy.delete(commands);
      for (const t of list.splice(0)) t.destroy();
    }
  }

  /** Marks `buffer` as one calls may bind without a check of their own (bound before, or `ours`). */
  know(buffer, ours = false) {
    this.#known.add(buffer);
    if (ours) this.#ours.add(buffer);
  }

  /** Whether the buffer of every one of `bindings` ([name, buffer, ...]) is known. */
  knows(bindings) {
    for (const binding of bindings) if (!this.#known.has(binding[1])) return false;
    return true;
  }

  /** Submits the pending work, then forgets `buffer` (about to be destroyed). */
  release(buffer) {
    this.submit();
    this.#known.delete(buffer);
  }

  /** Adds one dispatch; `temporaries` (buffers of its own) are destroyed once it is submitted. */
  add(fn, pipeline, params, bindings, groups, temporaries) {
    this.#work.push({ fn, pipeline, params, bindings, groups, temporaries });
    if (this.#work.length >= BATCH_LIMIT) {
      this.submit();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      this.#schedule(() => {
        this.#scheduled = false;
        this.submit();
      });
    }
  }

  /** Submits the pending work in one pass (within error scopes, whose result is checked later). */
  submit() {
    const work = this.#work;
    if (work.length === 0) return;
    this.#work = [];
    const device = this.#device;
    let thrown = null;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    try {
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      // A pipeline or bind group set again only where it changes (calls repeated on the same
      // buffers): each set is a command the browser serializes and the GPU process replays.
      let pipeline = null;
      let group = null;
      for (const w of work) {
        if (w.pipeline !== pipeline) {
          pipeline = w.pipeline;
          group = null;
          pass.setPipeline(pipeline);
        }
        const next = this.#bindGroup(w);
        if (next !== group) {
          group = next;
          pass.setBindGroup(0, group);
        }
        pass.dispatchWorkgroups(w.groups.x, w.groups.y);
      }
      pass.end();
      device.queue.submit([encoder.finish()]);
    } catch (e) {
      thrown = e;
    } finally {
      const validation = device.popErrorScope();
      const memory = device.popErrorScope();
      for (const w of work) for (const t of w.temporaries) t.destroy();
      const check = Promise.all([validation, memory]).then(async ([v, m]) => {
        const error = thrown ?? v ?? m;
        if (error) this.#failure ??= await this.#explain(work, error, !thrown).catch((e) => e);
      }, (e) => { this.#failure ??= e; });
      this.#checks.add(check);
      check.then(() => this.#checks.delete(check));
    }
  }

  /** Throws (once) the failure of work submitted earlier that is known by now. */
  throwFailure(fn) {
    const failure = this.#failure;
    if (!failure) return;
    this.#failure = null;
    throw new Error(`${fn}: earlier GPU work of gridsample was not done: ${failure.message}`, { cause: failure });
  }

  /** Submits the pending work, waits for every submitted batch's errors and throws the first. */
  async settle(fn) {
    this.submit();
    while (this.#checks.size) await Promise.all([...this.#checks]);
    this.throwFailure(fn);
  }

  // The error of a failed batch (none of its dispatches is done): for a GPU error, the
  // caller's binding at fault where a probe finds it (the calls probed in turn); else the
  // error's first line.
  async #explain(work, error, gpuError) {
    for (const w of gpuError ? work : []) {
      const culprit = await this.#probe(w.fn, w.bindings.filter(([, buffer]) => !this.#ours.has(buffer) && !w.temporaries.includes(buffer)));
      if (culprit) return culprit;
    }
    const message = String(error?.message).split('\n')[0];
    return new Error(`${work[0].fn}: the GPU refused the work of ${work.length} call${work.length > 1 ? 's' : ''}: ${message}`, { cause: error });
  }

  // The uniform buffer holding `params`'s bytes: made once per distinct block (the 256 last
  // used kept), found by the block's object where a caller passes the same one again.
  #uniform(params) {
    const same = this.#uniformOf.get(params);
    if (same && this.#uniforms.get(same[0]) === same[1]) return same[1];
    const key = String.fromCharCode.apply(null, new Uint16Array(params.buffer, params.byteOffset, params.byteLength >> 1));
    let buffer = this.#uniforms.get(key);
    if (buffer) {
      this.#uniforms.delete(key);
    } else {
      buffer = this.#device.createBuffer({ size: Math.max(16, Math.ceil(params.byteLength / 16) * 16), usage: 0x40 /* UNIFORM */, mappedAtCreation: true });
      new Uint8Array(buffer.getMappedRange()).set(new Uint8Array(params.buffer, params.byteOffset, params.byteLength));
      buffer.unmap();
      if (this.#uniforms.size >= 256) this.#uniforms.delete(this.#uniforms.keys().next().value);
    }
    this.#uniforms.set(key, buffer);
    this.#uniformOf.set(params, [key, buffer]);
    return buffer;
  }

  // The bind group of one dispatch: reused while its pipeline, uniform block and buffers are
  // the same; made anew for a call with temporaries.
  #bindGroup(w) {
    const uniform = this.#uniform(w.params);
    const make = () => {
      const entries = [{ binding: 0, resource: { buffer: uniform, size: w.params.byteLength } }];
      w.bindings.forEach(([, buffer, size], i) => entries.push({ binding: i + 1, resource: { buffer, offset: 0, size } }));
      return this.#device.createBindGroup({ layout: w.pipeline.getBindGroupLayout(0), entries });
    };
    if (w.temporaries.length) return make();
    // The last call's again (a call repeated): compared before the maps are walked.
    const last = this.#lastGroup;
    if (last && last.pipeline === w.pipeline && last.uniform === uniform && last.bindings.length === w.bindings.length
      && w.bindings.every(([, buffer, size], i) => last.bindings[i][1] === buffer && last.bindings[i][2] === size)) {
      return last.group;
    }
    let level = this.#bindGroups;
    for (const key of [w.pipeline, uniform, ...w.bindings.map(([, buffer]) => buffer)]) {
      let next = level.get(key);
      if (!next) {
        next = new WeakMap();
        level.set(key, next);
      }
      level = next;
    }
    const sizes = w.bindings.map(([, , size]) => size).join(' ');
    const bySize = level.get(SIZES) ?? level.set(SIZES, new Map()).get(SIZES);
    let group = bySize.get(sizes);
    if (!group) {
      group = make();
      bySize.set(sizes, group);
    }
    this.#lastGroup = { pipeline: w.pipeline, uniform, bindings: w.bindings, group };
    return group;
  }
}
