// The gathered path of the deformable-attention kernel (drivers/attention_driver.cc): a head's
// rows copied into a plane of their own, and the planes that threads taking whole heads take.
#ifndef GRIDSAMPLE_DRIVERS_ATTENTION_PLANES_H_
#define GRIDSAMPLE_DRIVERS_ATTENTION_PLANES_H_

#include <atomic>
#include <cstdint>

#include "hwy/base.h"

namespace gridsample {
namespace fast {

// Rows [begin, end) of a head (D values every `row`) copied into its plane of D values a row.
template <typename T>
HWY_INLINE void GatherRows(const T* head, int64_t row, int64_t channels, int64_t begin, int64_t end,
                           T* plane) {
  for (int64_t r = begin; r < end; ++r) {  // (a loop: wasm's memcpy is a call per row)
    const T* HWY_RESTRICT from = head + r * row;
    T* HWY_RESTRICT to = plane + r * channels;
    for (int64_t c = 0; c < channels; ++c) to[c] = from[c];
  }
}

// An idle plane's index among `idle`'s set bits, taken (cleared); -1 when none is idle. A
// piece's writes to its plane happen before the next piece that takes it reads (release when
// given back, acquire here).
inline int TakePlane(std::atomic<uint32_t>* idle) {
  uint32_t bits = idle->load(std::memory_order_relaxed);
  while (bits != 0) {
    const int slot = static_cast<int>(hwy::Num0BitsBelowLS1Bit_Nonzero32(bits));
    if (idle->compare_exchange_weak(bits, bits & ~(uint32_t{1} << slot), std::memory_order_acquire,
                                    std::memory_order_relaxed)) {
      return slot;
    }
  }
  return -1;
}

}  // namespace fast
}  // namespace gridsample

#endif  // GRIDSAMPLE_DRIVERS_ATTENTION_PLANES_H_
