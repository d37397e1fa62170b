// The native suites' owned dense tensor of any dtype (exact Get, rounding Set) and shape helpers.
#ifndef GRIDSAMPLE_TESTS_NATIVE_TEST_TENSOR_H_
#define GRIDSAMPLE_TESTS_NATIVE_TEST_TENSOR_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gridsample/types.h"
#include "gtest/gtest.h"
#include "test_dtypes.h"

namespace gridsample_test {

using gridsample::MutableTensorView;
using gridsample::TensorView;

// ---------------------------------------------------------------------------
// Shapes.

inline int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

inline int64_t Ravel(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  int64_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i) flat = flat * shape[i] + index[i];
  return flat;
}

inline std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = flat % shape[i];
    flat /= shape[i];
  }
  return index;
}

template <typename T>
std::string ToString(const std::vector<T>& v) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < v.size(); ++i) s << (i ? "," : "") << v[i];
  s << ']';
  return s.str();
}

// ---------------------------------------------------------------------------
// An owned dense tensor of any dtype. Get() is exact; Set() rounds like RoundToDType.

class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
    int64_t n = 1;
    for (int64_t d : shape_) n *= std::max<int64_t>(d, 0);
    // double-typed storage keeps every element naturally aligned.
    storage_.assign(static_cast<size_t>((n * static_cast<int64_t>(ElementSize(dtype_)) + 7) / 8),
                    0.0);
  }

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  int64_t size() const { return NumElements(shape_); }
  size_t bytes() const { return static_cast<size_t>(size()) * ElementSize(dtype_); }
  void* data() { return storage_.data(); }
  const void* data() const { return storage_.data(); }

  TensorView View() const {
    TensorView v;
    v.data = storage_.empty() ? nullptr : storage_.data();
    v.dtype = dtype_;
    v.shape = shape_.data();
    v.rank = shape_.size();
    return v;
  }
  MutableTensorView MutableView() {
    MutableTensorView v;
    v.data = storage_.empty() ? nullptr : storage_.data();
    v.dtype = dtype_;
    v.shape = shape_.data();
    v.rank = shape_.size();
    return v;
  }

  double Get(int64_t i) const {
    const auto* p = reinterpret_cast<const uint8_t*>(storage_.data()) + i * ElementSize(dtype_);
    switch (dtype_) {
      case DType::kFloat32: return Load<float>(p);
      case DType::kFloat64: return Load<double>(p);
      case DType::kFloat16: return HalfBitsToDouble(Load<uint16_t>(p));
      case DType::kBFloat16: return BFloat16BitsToDouble(Load<uint16_t>(p));
      case DType::kInt8: return Load<int8_t>(p);
      case DType::kUint8: return Load<uint8_t>(p);
      case DType::kInt16: return Load<int16_t>(p);
      case DType::kUint16: return Load<uint16_t>(p);
      case DType::kInt32: return Load<int32_t>(p);
      case DType::kUint32: return Load<uint32_t>(p);
    }
    return 0.0;
  }
  double Get(const std::vector<int64_t>& index) const { return Get(Ravel(index, shape_)); }

  void Set(int64_t i, double v) {
    auto* p = reinterpret_cast<uint8_t*>(storage_.data()) + i * ElementSize(dtype_);
    v = RoundToDType(v, dtype_);
    switch (dtype_) {
      case DType::kFloat32: Store(p, static_cast<float>(v)); break;
      case DType::kFloat64: Store(p, v); break;
      case DType::kFloat16: Store(p, HalfBitsFromDouble(v)); break;
      case DType::kBFloat16: Store(p, BFloat16BitsFromDouble(v)); break;
      case DType::kInt8: Store(p, static_cast<int8_t>(v)); break;
      case DType::kUint8: Store(p, static_cast<uint8_t>(v)); break;
      case DType::kInt16: Store(p, static_cast<int16_t>(v)); break;
      case DType::kUint16: Store(p, static_cast<uint16_t>(v)); break;
      case DType::kInt32: Store(p, static_cast<int32_t>(v)); break;
      case DType::kUint32: Store(p, static_cast<uint32_t>(v)); break;
    }
  }
  void Set(const std::vector<int64_t>& index, double v) { Set(Ravel(index, shape_), v); }

  void FillBytes(uint8_t b) {  // (memset on an empty vector's null data() would be undefined)
    if (!storage_.empty()) std::memset(storage_.data(), b, storage_.size() * sizeof(double));
  }
  // True when every byte of the storage (including padding) is b: nothing was written.
  bool AllBytesAre(uint8_t b) const {
    const auto* p = reinterpret_cast<const uint8_t*>(storage_.data());
    for (size_t i = 0; i < storage_.size() * sizeof(double); ++i) {
      if (p[i] != b) return false;
    }
    return true;
  }

  // Same values in another dtype (exact when representable there).
  Tensor Converted(DType t) const {
    Tensor out(t, shape_);
    for (int64_t i = 0; i < size(); ++i) out.Set(i, Get(i));
    return out;
  }

 private:
  template <typename T>
  static T Load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  template <typename T>
  static void Store(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
  }

  DType dtype_ = DType::kFloat32;
  std::vector<int64_t> shape_;
  std::vector<double> storage_;
};

inline Tensor MakeTensor(DType t, std::vector<int64_t> shape, const std::vector<double>& values) {
  Tensor out(t, std::move(shape));
  EXPECT_EQ(static_cast<int64_t>(values.size()), out.size()) << "test data has the wrong length";
  for (int64_t i = 0; i < out.size() && i < static_cast<int64_t>(values.size()); ++i) {
    out.Set(i, values[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_TEST_TENSOR_H_
