// The fused deformable-attention kernel's view of a validated problem (drivers/attention_driver.cc,
// which foreach_target re-includes per target: its types live here, once).
#ifndef GRIDSAMPLE_DRIVERS_ATTENTION_ARGS_H_
#define GRIDSAMPLE_DRIVERS_ATTENTION_ARGS_H_

#include <cstdint>

#include "drivers/fast.h"
#include "threads/parallel.h"

namespace gridsample {
namespace fast {
// A validated problem as the kernel sees it (value and y float32 or float16 bits, locations and
// weights of any float dtype), with its levels laid out per point: entry
// j of the level tables belongs to point j of a head's sum(P_l) points (level l's P_l points
// after the levels before it), padded with kAttentionPad entries of a 1x1 level so that whole
// vectors may be read.
struct AttentionArgs {
  const void* value;  // float32, or float16 bits (value_dtype); y the same
  const void* locations;
  const void* weights;
  void* y;
  DType value_dtype, locations_dtype, weights_dtype;
  int64_t n, s, heads, channels, queries, points;  // points: sum(P_l) per query and head
  const float* level_w;                            // W_l, H_l as floats
  const float* level_h;
  const int32_t* level_wi;  // W_l, H_l
  const int32_t* level_hi;
  const int32_t* level_start;  // first row of S (S < 2^31 on this path)
  Threads threads;
  DeformableSampling sampling;
  void* plane;      // room for plane_slots heads' S x D values each (value_dtype), or nullptr
  int plane_slots;  // 1: the threads share one plane, head by head; more: one per thread
};
constexpr int64_t kAttentionPad = 64;  // at least the most float lanes of any target
// Most channels of a float16 value on the fast path: its float32 sums stay on the stack.
constexpr int64_t kAttentionHalfChannels = 512;
// A head's rows are gathered into one plane of S x D values (AttentionArgs::plane) before its
// queries read them when the value is too large for the caches (a head's plane is an eighth of it
// at 8 heads), each row is read several times (an encoder's queries are its rows and read each
// about L * P = 16 times; a decoder's 300 queries read 8,400 rows fewer than once), and
// consecutive queries sample far apart (on average kAttentionGatherSpread in unit coordinates, the
// first point of head 0 at up to 64 pairs): queries that sample near each other, as an encoder's
// in raster order, find their rows in the caches anyway, and the plane's pass per head then only
// costs. Measured in bench/README.md ("Multi-scale deformable attention"): natively 1.25x at
// 8.7 MB (640x640 encoder, uniform locations), 1.7x at 22.8 MB (800x1333); wasm 1.5x at 22.8 MB
// but 0.8x at 8.7 MB, and 0.85x at 22.8 MB with local locations.
// With T > 1 threads and at least 2T heads per item, each thread takes whole heads into a plane
// of its own (T planes, at most half the value's bytes): no wait between heads, and one thread's
// gather overlaps the others' queries (800x1333 in wasm on 2 threads, the same module: 1.47-1.62x
// one thread's speed with one shared plane).
constexpr int64_t kAttentionGatherReads = 4;
constexpr float kAttentionGatherSpread = 0.25f;
#if defined(__EMSCRIPTEN__)
constexpr int64_t kAttentionGatherBytes = int64_t{16} << 20;
#else
constexpr int64_t kAttentionGatherBytes = int64_t{8} << 20;
#endif
}  // namespace fast
}  // namespace gridsample

#endif  // GRIDSAMPLE_DRIVERS_ATTENTION_ARGS_H_
