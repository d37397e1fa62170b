// Running gridsample's shaders on one GPUDevice: pipelines compiled once per key, uniform blocks, uploads, dispatch sizes, and GPU errors caught in error scopes and thrown as ours.
import { allocationBytes, bindingBytes, USAGE } from './tensors.mjs';
import { WORKGROUP } from './grid_sample_wgsl.mjs';

/** Storage for results: bound by our shaders and onnxruntime's, copied out by read() and fallbacks. */
export const RESULT_USAGE = USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST;

export class Dispatcher {
  #device;
  #pipelines = new Map();
  #lost = null;

  constructor(device) {
    this.#device = device;
    device.lost?.then((info) => { this.#lost = info; });
  }

  /** Throws when the device was lost: every later call would fail less clearly. */
  checkDevice(fn) {
    if (this.#lost) {
      throw new Error(`${fn}: the GPU device was lost (${this.#lost.reason ?? 'unknown'}${this.#lost.message ? `: ${this.#lost.message}` : ''}); create a new one with createGpu()`);
    }
  }

  /** Whether `bytes` fit one storage binding of this device. */
  checkBinding(fn, what, bytes) {
    const limit = this.#device.limits.maxStorageBufferBindingSize;
    if (bindingBytes(bytes) > limit) {
      throw new RangeError(`${fn}: ${what} takes ${bytes} bytes, more than this GPU binds at once (maxStorageBufferBindingSize ${limit}); split the work (a batch, or an image into bands)`);
    }
  }

  /** The compute pipeline for `key`, compiled from `wgsl()` the first time (shader errors thrown with the WGSL's first line). */
  async pipeline(fn, key, wgsl) {
    let p = this.#pipelines.get(key);
    if (!p) {
      p = this.#compile(fn, wgsl());
      this.#pipelines.set(key, p);
      p.catch(() => this.#pipelines.delete(key));
    }
    return p;
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
      const where = first ? ` (line ${first.lineNum}: ${first.message})` : '';
      return new Error(`${fn}: the GPU did not compile gridsample's shader (${code.slice(0, code.indexOf('\n'))}): ${message}${where}`, { cause });
    };
    let result;
    try {
      result = await pipeline;
    } catch (e) {
      throw await failed(e.message, e);
    }
    const error = await scope;
    if (error) throw await failed(error.message);
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
    const max = this.#device.limits.maxComputeWorkgroupsPerDimension;
    const total = Math.ceil(invocations / WORKGROUP);
    const y = Math.max(1, Math.ceil(total / max));
    if (y > max) throw new RangeError(`${fn}: ${invocations} invocations exceed this GPU's dispatch limit (${max} x ${max} workgroups of ${WORKGROUP})`);
    const x = Math.max(1, Math.ceil(total / y));
    return { x, y, width: x * WORKGROUP };
  }

  /**
   * Records `pipeline` over `groups` with the uniform block `params` and the storage
   * `bindings` ([buffer, bytes]) into `encoder`, or into a new one that is submitted; GPU
   * errors of that work are thrown as RangeErrors naming `fn`. `temporaries` are destroyed
   * once submitted (with the caller's encoder they are left to the garbage collector, which
   * frees them after the caller's submission).
   */
  async run(fn, pipeline, params, bindings, groups, { encoder, temporaries = [] } = {}) {
    const device = this.#device;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    const uniform = this.buffer(params.byteLength, USAGE.UNIFORM, params);
    const entries = [{ binding: 0, resource: { buffer: uniform, size: params.byteLength } }];
    bindings.forEach(([buffer, bytes], i) => {
      entries.push({ binding: i + 1, resource: { buffer, offset: 0, size: bindingBytes(bytes) } });
    });
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    const own = encoder === undefined;
    const enc = own ? device.createCommandEncoder() : encoder;
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(groups.x, groups.y);
    pass.end();
    if (own) device.queue.submit([enc.finish()]);
    const validation = device.popErrorScope();
    const memory = device.popErrorScope();
    if (own) {
      uniform.destroy();
      for (const t of temporaries) t.destroy();
    }
    const error = (await validation) ?? (await memory);
    if (error) throw new RangeError(`${fn}: the GPU refused the work: ${error.message}`);
  }

  /** Bytes [0, bytes) of `buffer`, read back (a copy into a mappable buffer, then mapped). */
  async download(fn, buffer, bytes) {
    const device = this.#device;
    device.pushErrorScope('validation');
    const staging = device.createBuffer({ size: bindingBytes(bytes), usage: USAGE.MAP_READ | USAGE.COPY_DST });
    const enc = device.createCommandEncoder();
    enc.copyBufferToBuffer(buffer, 0, staging, 0, bindingBytes(bytes));
    device.queue.submit([enc.finish()]);
    const error = await device.popErrorScope();
    if (error) {
      staging.destroy();
      throw new RangeError(`${fn}: the GPU refused to copy the tensor out: ${error.message}`);
    }
    try {
      await staging.mapAsync(1 /* GPUMapMode.READ */);
      return new Uint8Array(staging.getMappedRange(0, bindingBytes(bytes)).slice(0, bytes));
    } catch (e) {
      this.checkDevice(fn);
      throw new Error(`${fn}: reading the tensor back failed: ${e.message}`, { cause: e });
    } finally {
      staging.destroy();
    }
  }

  /** Writes `data`'s bytes to the start of `buffer` (queue order: before later submissions). */
  upload(buffer, data) {
    // Copies: the queue refuses views of a SharedArrayBuffer in some hosts (threaded wasm heaps).
    const bytes = new Uint8Array(data.byteLength + (4 - (data.byteLength % 4)) % 4);
    bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    this.#device.queue.writeBuffer(buffer, 0, bytes);
  }
}
