// Calls by block for the wasm module (call_block.h): prepared once (a kept plan) or on the stack,
// then run in one crossing; each operator's preparer is registered by its own embind file.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "call_block.h"

namespace gridsample {
namespace {

using bindings::BlockOp;
using bindings::CallBlock;
using bindings::kBlockDims;
using bindings::ToCallStatus;

// The library's prepare step (api/sampler_plan.h) for the call the block describes, by the
// operator's registered preparer.
Status PrepareFromBlock(const CallBlock& b, SamplerPlan* plan) {
  if (b.rank[0] < 0 || b.rank[0] > kBlockDims || b.rank[1] < 0 || b.rank[1] > kBlockDims) {
    return Status::InvalidArgument("prepare: a rank outside 0.." + std::to_string(kBlockDims));
  }
  if (b.fill_count < 0 || b.fill_count > 4 ||
      (b.fill_count > 0 && (b.rank[0] != 4 || b.shape[0][3] != b.fill_count))) {
    return Status::InvalidArgument("prepare: a fill of " + std::to_string(b.fill_count) +
                                   " values for an image of another channel count");
  }
  const bool known = b.op >= 0 && b.op < static_cast<int32_t>(BlockOp::kCount);
  const bindings::BlockPreparer preparer =
      known ? bindings::PreparerOf(static_cast<BlockOp>(b.op)) : nullptr;
  if (preparer == nullptr) {
    return Status::InvalidArgument("prepare: operator " + std::to_string(b.op) +
                                   " is not in this module");
  }
  return preparer(b, plan);
}

// Runs `plan` on heap addresses (the first plan.input_count of x, `coordinates` and `more`: a
// second map plane) into y, of its output.
int RunOn(const SamplerPlan& plan, uintptr_t x, uintptr_t coordinates, uintptr_t more,
          uintptr_t y) {
  const void* inputs[3] = {reinterpret_cast<const void*>(x),
                           reinterpret_cast<const void*>(coordinates),
                           reinterpret_cast<const void*>(more)};
  const PlannedTensor& out = plan.output;
  return ToCallStatus(RunPlan(plan, inputs, plan.input_count,
                              {reinterpret_cast<void*>(y), out.dtype, out.shape, out.rank}));
}

// A new prepared call (gs.prepareGridSample and its kin) for the block at `block`, its output
// shape written there, or 0 with the message kept for takeLastError.
uintptr_t Prepare(uintptr_t block) {
  auto* b = reinterpret_cast<CallBlock*>(block);
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
  KeepFill(plan);  // (it pointed into the block, which the next call rewrites)
  b->out_rank = static_cast<int32_t>(plan->output.rank);
  for (size_t i = 0; i < plan->output.rank; ++i) b->out_shape[i] = plan->output.shape[i];
  return reinterpret_cast<uintptr_t>(plan);
}

void ReleasePrepared(uintptr_t plan) { delete reinterpret_cast<SamplerPlan*>(plan); }

// Whether this module links operator `op` (a BlockOp code): the JS API offers what it links.
bool OffersOp(int op) {
  return op >= 0 && op < static_cast<int>(BlockOp::kCount) &&
         bindings::PreparerOf(static_cast<BlockOp>(op)) != nullptr;
}

}  // namespace
}  // namespace gridsample

// The one crossing of a call: plain exports (no embind invoker), called by js/core/prepared.mjs.
// gridsample_run runs a prepared call; gridsample_call prepares the call its block describes on
// the stack and runs it (the unprepared calls: nothing kept, nothing allocated).
extern "C" EMSCRIPTEN_KEEPALIVE int gridsample_run(uintptr_t plan, uintptr_t x,
                                                   uintptr_t coordinates, uintptr_t more,
                                                   uintptr_t y) {
  return gridsample::RunOn(*reinterpret_cast<const gridsample::SamplerPlan*>(plan), x, coordinates,
                           more, y);
}

extern "C" EMSCRIPTEN_KEEPALIVE int gridsample_call(uintptr_t block, uintptr_t x,
                                                    uintptr_t coordinates, uintptr_t more,
                                                    uintptr_t y) {
  gridsample::SamplerPlan plan;
  const gridsample::Status s = gridsample::PrepareFromBlock(
      *reinterpret_cast<const gridsample::bindings::CallBlock*>(block), &plan);
  if (!s.ok()) return gridsample::bindings::ToCallStatus(s);
  return gridsample::RunOn(plan, x, coordinates, more, y);
}

EMSCRIPTEN_BINDINGS(gridsample_prepared) {
  emscripten::function("prepare", &gridsample::Prepare);
  emscripten::function("releasePrepared", &gridsample::ReleasePrepared);
  emscripten::function("offersOp", &gridsample::OffersOp);
}
