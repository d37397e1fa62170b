// Running gridsample's shaders on one GPUDevice: pipelines compiled once per key, uniform blocks, uploads, dispatch sizes, and GPU errors caught in error scopes and thrown as ours (at once for a call's first use of a buffer, later for batched calls: batch.mjs).
import { Batch, listenTo } from './batch.mjs';
import { allocationBytes, bindingBytes, checkBoundBuffer, USAGE } from './tensors.mjs';
import { WORKGROUP } from './grid_sample_wgsl.mjs';

/** Storage for results: bound by our shaders and onnxruntime's, copied out by read() and fallbacks. */
export const RESULT_USAGE = USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST;

/** The first line of a GPU error's message (Dawn adds lines of context): ours are one line. */
export const firstLine = (e) => String(e?.message).split('\n')[0];

// run()'s defaults, made once: a call repeated allocates neither.
const NONE = Object.freeze([]);
const NO_OPTIONS = Object.freeze({});

// A RangeError of `fn` for `what` the GPU refused, with its error's first line.
const refused = (fn, what, e) => new RangeError(`${fn}: ${what}: ${firstLine(e)}`, { cause: e });

export class Dispatcher {
  #device;
  #pipelines = new Map(); // key -> Promise of its pipeline
  #compiled = new Map(); // key -> its pipeline, once compiled
  #lost = null;
  #probeLayout = null;
  #batch;
  #limits; // the device's limits used here, read once (each read is a call into the browser)

  constructor(device) {
    this.#device = device;
    const { maxStorageBufferBindingSize, maxComputeWorkgroupsPerDimension } = device.limits;
    this.#limits = { maxStorageBufferBindingSize, maxComputeWorkgroupsPerDimension };
    device.lost?.then((info) => { this.#lost ??= info; });
    this.#batch = new Batch(device, (fn, bindings) => this.#culprit(fn, bindings));
    // device.lost settles later: calls made in between would resolve with tensors of a dead device.
    if (device.queue) listenTo(device, ['destroy'], this, 'destroying');
  }

  /** The device's destroy() was called. */
  destroying() {
    this.#lost ??= { reason: 'destroyed', message: 'device.destroy() was called' };
  }

  /**
   * Throws when the device was lost (every later call would fail less clearly), or when work
   * batched by earlier calls failed (once: batch.mjs).
   */
  checkDevice(fn) {
    if (this.#lost) {
      throw new Error(`${fn}: the GPU device was lost (${this.#lost.reason ?? 'unknown'}${this.#lost.message ? `: ${this.#lost.message}` : ''}); create a new one with createGpu()`);
    }
    this.#batch.throwFailure(fn);
  }

  /** Submits the batched work and waits for its errors: the first is thrown. */
  async settle(fn) {
    await this.#batch.settle(fn);
    this.checkDevice(fn);
  }

  /** Our own `buffer`, which calls may bind without a check of their own. */
  own(buffer) {
    this.#batch.know(buffer, true);
    return buffer;
  }

  /** Submits batched work (which may bind `buffer`) before `buffer` is destroyed. */
  release(buffer) {
    this.#batch.release(buffer);
  }

  /** Whether `bytes` fit one storage binding of this device. */
  checkBinding(fn, what, bytes) {
    const limit = this.#limits.maxStorageBufferBindingSize;
    if (bindingBytes(bytes) > limit) {
      throw new RangeError(`${fn}: ${what} takes ${bytes} bytes, more than this GPU binds at once (maxStorageBufferBindingSize ${limit}); split the work (a batch, or an image into bands)`);
    }
  }

  /** The compute pipeline for `key`, compiled from `wgsl()` the first time (shader errors thrown with the WGSL's first line). */
  pipeline(fn, key, wgsl) {
    let p = this.#pipelines.get(key);
    if (!p) {
      p = this.#compile(fn, wgsl());
      this.#pipelines.set(key, p);
      p.then((compiled) => this.#compiled.set(key, compiled), () => this.#pipelines.delete(key));
    }
    return p;
  }

  /** The compute pipeline for `key` once compiled, else null (pipeline() compiles it). */
  compiled(key) {
    return this.#compiled.get(key) ?? null;
  }

  async #compile(fn, code) {
    const device = this.#device;
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code });
    const pipeline = device.createComputePipelineAsync
      ? device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } })
      : Promise.resolve(device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } }));
    const scope = device.popErrorScope();
    // The compiler's first error, where the host reports it, names the line.
    const failed = async (message, cause) => {
      const info = await module.getCompilationInfo?.().catch(() => null);
      const first = info?.messages?.find((m) => m.type === 'error');
      const where = first ? ` (line ${first.lineNum}: ${firstLine(first)})` : '';
      return new Error(`${fn}: the GPU did not compile gridsample's shader (${code.slice(0, code.indexOf('\n'))}): ${message}${where}`, { cause });
    };
    let result;
    try {
      result = await pipeline;
    } catch (e) {
      throw await failed(firstLine(e), e);
    }
    const error = await scope;
    if (error) throw await failed(firstLine(error));
    return result;
  }

  /** A new buffer of `bytes` (rounded up as allocationBytes says) holding `data`'s bytes when given. */
  buffer(bytes, usage, data) {
    const buffer = this.#device.createBuffer({ size: allocationBytes(bytes), usage, mappedAtCreation: Boolean(data) });
    if (data) {
      new Uint8Array(buffer.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      buffer.unmap();
    }
    return buffer;
  }

  /**
   * The workgroup grid for `invocations` (x, y) and its width in invocations: as few rows as the
   * limit allows, as even as they can be (65,536 workgroups: 2 rows of 32,768, not 65,535 and
   * a second row of which one is used).
   */
  groups(fn, invocations) {
    const max = this.#limits.maxComputeWorkgroupsPerDimension;
    const total = Math.ceil(invocations / WORKGROUP);
    const y = Math.max(1, Math.ceil(total / max));
    if (y > max) throw new RangeError(`${fn}: ${invocations} invocations exceed this GPU's dispatch limit (${max} x ${max} workgroups of ${WORKGROUP})`);
    const x = Math.max(1, Math.ceil(total / y));
    return { x, y, width: x * WORKGROUP };
  }

  /**
   * Records `pipeline` over `groups` with the uniform block `params` and the storage
   * `bindings` ([name, buffer, bytes]). Without `encoder`, where every binding is a buffer of
   * ours or one bound before without an error (or one of `temporaries`), into the batch
   * (batch.mjs: its errors thrown by a later call). Otherwise into `encoder`, or into a new
   * one that is submitted at once: GPU errors of that work are thrown naming `fn` and, where
   * the probes find it, the binding or options.encoder at fault; the error scopes are popped
   * whatever throws; `temporaries` are destroyed once submitted (with the caller's encoder:
   * once the caller submits it), or when the work fails. Returns null where the work was
   * batched, else the promise of its checks.
   */
  run(fn, pipeline, params, bindings, groups, { encoder, temporaries = NONE } = NO_OPTIONS) {
    const theirs = temporaries.length ? bindings.filter(([, buffer]) => !temporaries.includes(buffer)) : bindings;
    if (encoder === undefined && this.#batch.knows(theirs)) {
      this.#batch.add(fn, pipeline, params, bindings.map(([name, buffer, bytes]) => [name, buffer, bindingBytes(bytes)]), groups, temporaries);
      return null;
    }
    return this.#runChecked(fn, pipeline, params, bindings, groups, encoder, temporaries, theirs);
  }

  // run() on its own, in error scopes awaited (its errors thrown by the call).
  async #runChecked(fn, pipeline, params, bindings, groups, encoder, temporaries, theirs) {
    const device = this.#device;
    const own = encoder === undefined;
    // Work batched earlier goes first.
    this.#batch.submit();
    const made = [...temporaries];
    let thrown = null;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let validation;
    let memory;
    try {
      const uniform = this.buffer(params.byteLength, USAGE.UNIFORM, params);
      made.push(uniform);
      const entries = [{ binding: 0, resource: { buffer: uniform, size: params.byteLength } }];
      bindings.forEach(([, buffer, bytes], i) => {
        entries.push({ binding: i + 1, resource: { buffer, offset: 0, size: bindingBytes(bytes) } });
      });
      const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
      const enc = own ? device.createCommandEncoder() : encoder;
      const pass = enc.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(groups.x, groups.y);
      pass.end();
      if (own) device.queue.submit([enc.finish()]);
      else this.#batch.adopt(encoder, made);
    } catch (e) {
      thrown = e;
    } finally {
      validation = device.popErrorScope();
      memory = device.popErrorScope();
      if (own || thrown) for (const t of made) t.destroy();
    }
    const error = (await validation) ?? (await memory);
    // The caller's encoder is invalid now: nothing will read the temporaries.
    if (error) for (const t of made) t.destroy();
    this.checkDevice(fn);
    if (thrown || error) {
      // Our own temporaries (destroyed by now; not in `theirs`) are not the cause.
      throw (await this.#culprit(fn, theirs, encoder)) ?? refused(fn, 'the GPU refused the work', thrown ?? error);
    }
    if (own) for (const [, buffer] of theirs) this.#batch.know(buffer);
  }

  /**
   * The error naming what made the work fail, or null: options.encoder finished, or a binding
   * ([name, buffer]) mapped, not a GPUBuffer, of another GPUDevice, or destroyed. Probed one by
   * one in error scopes of their own (a debug marker; a bind group of that buffer alone, then a
   * submitted pass that binds it and dispatches nothing).
   */
  async #culprit(fn, bindings, encoder) {
    const device = this.#device;
    if (encoder !== undefined && await this.#refuses(() => encoder.insertDebugMarker('gridsample')) === 'refused') {
      return new TypeError(`${fn}: options.encoder: this GPUCommandEncoder was finished; record into a new one`);
    }
    this.#probeLayout ??= device.createBindGroupLayout({ entries: [{ binding: 0, visibility: 4 /* COMPUTE */, buffer: { type: 'read-only-storage' } }] });
    for (const [name, buffer] of bindings) {
      try {
        checkBoundBuffer(fn, name, buffer);
      } catch (e) {
        return e;
      }
      let group;
      const bound = await this.#refuses(() => { group = device.createBindGroup({ layout: this.#probeLayout, entries: [{ binding: 0, resource: { buffer, size: 4 } }] }); });
      if (bound === 'threw') return new TypeError(`${fn}: ${name}: the GPU does not take its buffer as a GPUBuffer (a Proxy or another wrapper of one?)`);
      if (bound) return new TypeError(`${fn}: ${name}: its GPUBuffer belongs to another GPUDevice (or is invalid)`);
      const submitted = () => {
        const enc = device.createCommandEncoder();
        const pass = enc.beginComputePass();
        pass.setBindGroup(0, group);
        pass.end();
        device.queue.submit([enc.finish()]);
      };
      if (await this.#refuses(submitted)) return new TypeError(`${fn}: ${name}: its GPUBuffer was destroyed`);
    }
    return null;
  }

  // Whether `work` throws ('threw') or raises a validation error ('refused'; in a scope of its own), or null.
  async #refuses(work) {
    this.#device.pushErrorScope('validation');
    let threw = false;
    try {
      work();
    } catch {
      threw = true;
    }
    const error = await this.#device.popErrorScope();
    return threw ? 'threw' : error ? 'refused' : null;
  }

  /** Bytes [0, bytes) of `buffer` (the argument `what`'s), read back (a copy into a mappable buffer, then mapped). */
  async download(fn, what, buffer, bytes) {
    if (!(buffer.usage & USAGE.COPY_SRC)) {
      throw new TypeError(`${fn}: ${what}: its GPUBuffer lacks COPY_SRC usage (usage ${buffer.usage}), which reading it back needs; create it with GPUBufferUsage.COPY_SRC`);
    }
    const device = this.#device;
    let staging = null;
    let thrown = null;
    let scope;
    device.pushErrorScope('validation');
    try {
      staging = device.createBuffer({ size: bindingBytes(bytes), usage: USAGE.MAP_READ | USAGE.COPY_DST });
      const enc = device.createCommandEncoder();
      enc.copyBufferToBuffer(buffer, 0, staging, 0, bindingBytes(bytes));
      device.queue.submit([enc.finish()]);
    } catch (e) {
      thrown = e;
    } finally {
      scope = device.popErrorScope();
    }
    // The map is asked for after the scope settles: asked for with it, in flight together, a
    // read() took 1.4x the time in Chromium (SwiftShader; bench/js/gpu_call_cost.mjs), though
    // 0.85x in Node.
    const error = await scope;
    if (thrown || error || this.#lost) {
      staging?.destroy();
      this.checkDevice(fn);
      throw (await this.#culprit(fn, [[what, buffer]])) ?? refused(fn, 'the GPU refused to copy the tensor out', thrown ?? error);
    }
    let data;
    try {
      await staging.mapAsync(1 /* GPUMapMode.READ */);
      data = new Uint8Array(staging.getMappedRange(0, bindingBytes(bytes)).slice(0, bytes));
    } catch (e) {
      this.checkDevice(fn);
      throw new Error(`${fn}: reading the tensor back failed: ${firstLine(e)}`, { cause: e });
    } finally {
      staging.destroy();
    }
    // Where batched work failed (that which wrote the buffer, perhaps), its bytes are no result.
    await this.settle(fn);
    return data;
  }

  /**
   * Writes `data`'s bytes to the start of `buffer` (the argument `what`'s; queue order: before
   * later submissions); what the GPU refuses is thrown as run() throws it.
   */
  async upload(fn, what, buffer, data) {
    // Copies: the queue refuses views of a SharedArrayBuffer in some hosts (threaded wasm heaps).
    const bytes = new Uint8Array(data.byteLength + (4 - (data.byteLength % 4)) % 4);
    bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const refusal = await this.#refuses(() => this.#device.queue.writeBuffer(buffer, 0, bytes));
    this.checkDevice(fn);
    if (refusal) throw (await this.#culprit(fn, [[what, buffer]])) ?? new RangeError(`${fn}: the GPU refused to copy the result into ${what}`);
  }
}
