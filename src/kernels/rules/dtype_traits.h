// Compile-time facts per element type: storage type, compute type, load/store with rounding.
#ifndef GRIDSAMPLE_RULES_DTYPE_TRAITS_H_
#define GRIDSAMPLE_RULES_DTYPE_TRAITS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "gridsample/types.h"
#include "rules/half.h"

namespace gridsample {

// Storage tags for the two 16-bit float formats (raw bit patterns in memory).
struct Float16 {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

// Compute: float for everything a float32 holds exactly (8/16-bit integers,
// float16, bfloat16, float32); double for float64 and 32-bit integers.
template <typename T>
struct DTypeTraits {
  static_assert(std::is_integral_v<T>, "integer storage types only here");
  using Compute = std::conditional_t<(sizeof(T) >= 4), double, float>;
  static Compute Load(const T* p) { return static_cast<Compute>(*p); }
  // Round half to even, saturate to T's range (NaN, which no valid input makes, gives 0).
  static T Store(Compute v) {
    constexpr Compute kLo = static_cast<Compute>(std::numeric_limits<T>::min());
    constexpr Compute kHi = static_cast<Compute>(std::numeric_limits<T>::max());
    v = std::nearbyint(v);
    if (!(v == v)) return T(0);
    if (v <= kLo) return std::numeric_limits<T>::min();
    if (v >= kHi) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  }
};

template <>
struct DTypeTraits<float> {
  using Compute = float;
  static float Load(const float* p) { return *p; }
  static float Store(float v) { return v; }
};

template <>
struct DTypeTraits<double> {
  using Compute = double;
  static double Load(const double* p) { return *p; }
  static double Store(double v) { return v; }
};

template <>
struct DTypeTraits<Float16> {
  using Compute = float;
  static float Load(const Float16* p) { return HalfToFloat(p->bits); }
  static Float16 Store(float v) { return Float16{FloatToHalf(v)}; }
};

template <>
struct DTypeTraits<BFloat16> {
  using Compute = float;
  static float Load(const BFloat16* p) { return BFloat16ToFloat(p->bits); }
  static BFloat16 Store(float v) { return BFloat16{FloatToBFloat16(v)}; }
};

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>{}) for the storage type of a float `dtype`; returns false for any other.
template <typename Fn>
bool VisitFloatDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat32: fn(TypeTag<float>{}); return true;
    case DType::kFloat64: fn(TypeTag<double>{}); return true;
    case DType::kFloat16: fn(TypeTag<Float16>{}); return true;
    case DType::kBFloat16: fn(TypeTag<BFloat16>{}); return true;
    default: return false;
  }
}

// The same for every dtype; returns false for a value outside the enum.
template <typename Fn>
bool VisitDType(DType dtype, Fn&& fn) {
  if (VisitFloatDType(dtype, fn)) return true;
  switch (dtype) {
    case DType::kInt8: fn(TypeTag<int8_t>{}); return true;
    case DType::kUint8: fn(TypeTag<uint8_t>{}); return true;
    case DType::kInt16: fn(TypeTag<int16_t>{}); return true;
    case DType::kUint16: fn(TypeTag<uint16_t>{}); return true;
    case DType::kInt32: fn(TypeTag<int32_t>{}); return true;
    case DType::kUint32: fn(TypeTag<uint32_t>{}); return true;
    default: return false;
  }
}

// Whether `dtype`'s values are computed in double (DTypeTraits::Compute): float64, int32, uint32.
inline bool ComputesInDouble(DType dtype) {
  return dtype == DType::kFloat64 || dtype == DType::kInt32 || dtype == DType::kUint32;
}

// Element i of an array of `dtype` as Acc, its Compute type (DTypeTraits::Load): for code
// compiled once per compute type rather than once per dtype.
template <typename Acc>
Acc LoadAs(DType dtype, const void* data, int64_t i) {
  Acc v = 0;
  VisitDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<typename DTypeTraits<T>::Compute, Acc>) {
      v = DTypeTraits<T>::Load(static_cast<const T*>(data) + i);
    }
  });
  return v;
}

// Stores v, computed in `dtype`'s Compute type Acc, as element i (DTypeTraits::Store).
template <typename Acc>
void StoreAs(DType dtype, void* data, int64_t i, Acc v) {
  VisitDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<typename DTypeTraits<T>::Compute, Acc>) {
      static_cast<T*>(data)[i] = DTypeTraits<T>::Store(v);
    }
  });
}

// The dtypes of a matrix LoadMatrix reads: float32 and float64.
inline bool IsMatrixDType(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64;
}

// The matrix of batch item n (`count` entries of a float32 or float64 tensor: WarpAffine's
// theta, WarpPerspective's H) as doubles.
inline void LoadMatrix(DType dtype, const void* data, int64_t n, int count, double* out) {
  for (int k = 0; k < count; ++k) {
    out[k] = dtype == DType::kFloat64
                 ? static_cast<const double*>(data)[n * count + k]
                 : static_cast<double>(static_cast<const float*>(data)[n * count + k]);
  }
}

inline bool IsFloatDType(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16;
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_DTYPE_TRAITS_H_
