// onnxruntime's tensor type names and the typed array that holds each (float16 and bfloat16 as their bits, bool as bytes), shared by gridsample/onnx's modules.

/** Type name -> typed array class. */
export const ARRAY_CLASSES = Object.freeze({
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, bfloat16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, bool: Uint8Array,
});

/** A tensor of `type` from little-endian bytes (copied into an array of its own). */
export function fromBytes(type, bytes) {
  const ArrayClass = ARRAY_CLASSES[type];
  const data = new ArrayClass(bytes.length / ArrayClass.BYTES_PER_ELEMENT);
  new Uint8Array(data.buffer).set(bytes);
  return data;
}
