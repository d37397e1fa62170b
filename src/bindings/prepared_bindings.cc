// Calls by block for the wasm module (api/sampler_plan.h): the JS layer writes a call's operator,
// options, dtypes and shapes into the heap (js/core/prepared.mjs), then runs it in one crossing,
// prepared once (a kept plan) or on the stack.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "api/sampler_plan.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::ModuleThreads;
using bindings::ToCallStatus;

// Dimensions a tensor may list in the block: as many as the JS layer accepts (MAX_DIMS of
// js/core/plain_args.mjs), so that the library's own rules judge every rank.
constexpr int kBlockDims = 32;

// The call to prepare, as js/core/prepared.mjs writes it (its BLOCK offsets); prepare writes
// the output's rank and shape back.
struct PrepareBlock {
  int32_t op;  // PreparedOp
  int32_t mode, padding, align_corners;
  int32_t dtype[2];
  int32_t rank[2];
  int64_t shape[2][kBlockDims];
  int32_t size_len, out_rank;
  int64_t size[5];  // AffineGrid's size: its first 5 values (a longer one is refused unread)
  int64_t out_shape[2 + kMaxSpatialRank];
};
static_assert(sizeof(PrepareBlock) == 672 && offsetof(PrepareBlock, shape) == 32 &&
                  offsetof(PrepareBlock, size_len) == 544 && offsetof(PrepareBlock, size) == 552 &&
                  offsetof(PrepareBlock, out_shape) == 592,
              "js/core/prepared.mjs writes this layout");

enum class PreparedOp : int32_t {
  kGridSample = 0,
  kGridSampleChannelsLast,
  kWarpFlow,
  kAffineGrid
};

TensorView Spec(const PrepareBlock& b, int i) {
  return {nullptr, static_cast<DType>(b.dtype[i]), b.shape[i], static_cast<size_t>(b.rank[i])};
}

// The library's prepare step (api/sampler_plan.h) for the call the block describes.
Status PrepareFromBlock(const PrepareBlock& b, SamplerPlan* plan) {
  if (b.rank[0] < 0 || b.rank[0] > kBlockDims || b.rank[1] < 0 || b.rank[1] > kBlockDims) {
    return Status::InvalidArgument("prepare: a rank outside 0.." + std::to_string(kBlockDims));
  }
  GridSampleOptions options;
  options.mode = static_cast<Mode>(b.mode);
  options.padding = static_cast<Padding>(b.padding);
  options.align_corners = b.align_corners != 0;
  options.threads = ModuleThreads();
  switch (static_cast<PreparedOp>(b.op)) {
    case PreparedOp::kGridSample: return PrepareGridSample(Spec(b, 0), Spec(b, 1), options, plan);
    case PreparedOp::kGridSampleChannelsLast:
      return PrepareGridSampleChannelsLast(Spec(b, 0), Spec(b, 1), options, plan);
    case PreparedOp::kWarpFlow: return PrepareWarpFlow(Spec(b, 0), Spec(b, 1), options, plan);
    case PreparedOp::kAffineGrid: {
      AffineGridOptions affine;
      affine.align_corners = options.align_corners;
      affine.threads = options.threads;
      // A length other than 4 or 5 is refused before size is read.
      const size_t len = static_cast<size_t>(b.size_len < 0 ? 0 : b.size_len);
      return PrepareAffineGrid(Spec(b, 0), b.size, len, affine, plan);
    }
  }
  return Status::InvalidArgument("prepare: unknown operator " + std::to_string(b.op));
}

// Runs `plan` on heap addresses (`coordinates` ignored by one-input calls) into y, of its output.
int RunOn(const SamplerPlan& plan, uintptr_t x, uintptr_t coordinates, uintptr_t y) {
  const void* inputs[2] = {reinterpret_cast<const void*>(x),
                           reinterpret_cast<const void*>(coordinates)};
  const PlannedTensor& out = plan.output;
  return ToCallStatus(RunPlan(plan, inputs, plan.input_count,
                              {reinterpret_cast<void*>(y), out.dtype, out.shape, out.rank}));
}

// A new prepared call (gs.prepareGridSample and its kin) for the block at `block`, its output
// shape written there, or 0 with the message kept for takeLastError.
uintptr_t Prepare(uintptr_t block) {
  auto* b = reinterpret_cast<PrepareBlock*>(block);
  auto* plan = new (std::nothrow) SamplerPlan();
  if (plan == nullptr) {
    ToCallStatus(Status::OutOfRange("prepare: could not allocate a prepared call"));
    return 0;
  }
  const Status s = PrepareFromBlock(*b, plan);
  if (!s.ok()) {
    delete plan;
    ToCallStatus(s);
    return 0;
  }
  b->out_rank = static_cast<int32_t>(plan->output.rank);
  for (size_t i = 0; i < plan->output.rank; ++i) b->out_shape[i] = plan->output.shape[i];
  return reinterpret_cast<uintptr_t>(plan);
}

void ReleasePrepared(uintptr_t plan) { delete reinterpret_cast<SamplerPlan*>(plan); }

}  // namespace
}  // namespace gridsample

// The one crossing of a call: plain exports (no embind invoker), called by js/core/prepared.mjs.
// gridsample_run runs a prepared call; gridsample_call prepares the call its block describes on
// the stack and runs it (the unprepared calls: nothing kept, nothing allocated).
extern "C" EMSCRIPTEN_KEEPALIVE int gridsample_run(uintptr_t plan, uintptr_t x,
                                                   uintptr_t coordinates, uintptr_t y) {
  return gridsample::RunOn(*reinterpret_cast<const gridsample::SamplerPlan*>(plan), x, coordinates,
                           y);
}

extern "C" EMSCRIPTEN_KEEPALIVE int gridsample_call(uintptr_t block, uintptr_t x,
                                                    uintptr_t coordinates, uintptr_t y) {
  gridsample::SamplerPlan plan;
  const gridsample::Status s = gridsample::PrepareFromBlock(
      *reinterpret_cast<const gridsample::PrepareBlock*>(block), &plan);
  if (!s.ok()) return gridsample::bindings::ToCallStatus(s);
  return gridsample::RunOn(plan, x, coordinates, y);
}

EMSCRIPTEN_BINDINGS(gridsample_prepared) {
  emscripten::function("prepare", &gridsample::Prepare);
  emscripten::function("releasePrepared", &gridsample::ReleasePrepared);
}
