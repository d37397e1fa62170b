// Whole arrays of the dtypes computed in float, to and from float32, for the NCHW kernels that
// run in float32 around them; exactly as DTypeTraits' Load and Store (float16 by half_convert's
// vector loops).
#include <cstdint>
#include <type_traits>

#include "drivers/fast.h"
#include "rules/coordinate_rule.h"
#include "rules/dtype_traits.h"

namespace gridsample {
namespace fast {
namespace {

// Calls fn(TypeTag<T>{}) for `dtype` when its values are computed in float.
template <typename Fn>
void VisitFloatComputed(DType dtype, Fn&& fn) {
  VisitDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<typename DTypeTraits<T>::Compute, float>) fn(tag);
  });
}

}  // namespace

void LoadFloats(DType dtype, const void* src, int64_t n, float* dst) {
  if (dtype == DType::kFloat16) return HalfsToFloats(static_cast<const uint16_t*>(src), dst, n);
  VisitFloatComputed(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = static_cast<const T*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = DTypeTraits<T>::Load(s + i);
  });
}

void StoreFloats(DType dtype, const float* src, int64_t n, void* dst) {
  if (dtype == DType::kFloat16) return FloatsToHalfs(src, static_cast<uint16_t*>(dst), n);
  VisitFloatComputed(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* d = static_cast<T*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = DTypeTraits<T>::Store(src[i]);
  });
}

void LoadCoordinates(DType dtype, const void* src, int64_t n, Padding padding, float* dst) {
  VisitFloatDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = static_cast<const T*>(src);
    for (int64_t i = 0; i < n; ++i) {
      dst[i] = CoordinateAsFloat(static_cast<double>(DTypeTraits<T>::Load(s + i)), padding);
    }
  });
}

}  // namespace fast
}  // namespace gridsample
