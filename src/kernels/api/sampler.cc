// Sampler (gridsample/sampler.h) and RunPlan: a prepared call's data checks and run, shared with
// the free functions. The preparing functions live beside their operators' rules (api/*.cc), so
// a build that links one operator links only its kernels.
#include "gridsample/sampler.h"

#include <algorithm>
#include <new>
#include <string>

#include "api/sampler_plan.h"
#include "problem/checks.h"

namespace gridsample {

PlannedTensor PlannedTensor::Of(const TensorView& view, int64_t count) {
  PlannedTensor t;
  t.dtype = view.dtype;
  t.rank = view.rank;
  std::copy(view.shape, view.shape + view.rank, t.shape);
  t.count = count;
  return t;
}

void PlanInputs(const char* op, const TensorView& x, const char* coordinates,
                const TensorView& coords, SamplerPlan* plan) {
  plan->op = op;
  plan->input_names[0] = "X";
  plan->input_names[1] = coordinates;
  plan->input_count = 2;
  plan->inputs[0] = PlannedTensor::Of(x, ElementCount(x));
  plan->inputs[1] = PlannedTensor::Of(coords, ElementCount(coords));
}

void PlanOutput(DType dtype, const int64_t* shape, size_t rank, SamplerPlan* plan) {
  const TensorView view = {nullptr, dtype, shape, rank};
  plan->output = PlannedTensor::Of(view, ElementCount(view));
}

Status RunPlan(const SamplerPlan& plan, const void* const* inputs, size_t count,
               const MutableTensorView& y) {
  if (count != plan.input_count || (count > 0 && inputs == nullptr)) {
    return Invalid(plan.op, "expected " + std::to_string(plan.input_count) +
                                (plan.input_count == 1 ? " input" : " inputs") + ", got " +
                                std::to_string(inputs == nullptr ? 0 : count));
  }
  TensorView views[SamplerPlan::kMaxInputs];
  for (size_t i = 0; i < count; ++i) {
    views[i] = plan.inputs[i].View(inputs[i]);
    const Status s = CheckData(plan.op, plan.input_names[i], views[i]);
    if (!s.ok()) return s;
  }
  const PlannedTensor& out = plan.output;
  const Input first{views[0], plan.inputs[0].count};
  const Input second{views[1], plan.inputs[1].count};
  const Status s =
      count == 1
          ? CheckOutput(plan.op, plan.output_name, y, out.dtype, out.shape, out.rank, {first})
      : count == 2 ? CheckOutput(plan.op, plan.output_name, y, out.dtype, out.shape, out.rank,
                                 {first, second})
                   : CheckOutput(plan.op, plan.output_name, y, out.dtype, out.shape, out.rank,
                                 {first, second, {views[2], plan.inputs[2].count}});
  if (!s.ok()) return s;
  return plan.execute(plan, views, y);
}

void KeepFill(SamplerPlan* plan) {
  if (plan->fill == nullptr) return;
  plan->fill_storage.assign(plan->fill, plan->fill + plan->pixels.c);
  plan->fill = plan->fill_storage.data();
}

Sampler::Sampler() = default;
Sampler::~Sampler() = default;
Sampler::Sampler(Sampler&&) noexcept = default;
Sampler& Sampler::operator=(Sampler&&) noexcept = default;

Status AdoptPlan(const SamplerPlan& plan, Sampler* sampler) {
  auto* copy = new (std::nothrow) SamplerPlan(plan);
  if (copy == nullptr) {
    return Status::OutOfRange(std::string(plan.op) + ": could not allocate a prepared call");
  }
  KeepFill(copy);
  sampler->plan_.reset(copy);
  return Status::Ok();
}

size_t Sampler::input_count() const { return plan_ ? plan_->input_count : 0; }
DType Sampler::output_dtype() const { return plan_ ? plan_->output.dtype : DType::kFloat32; }
size_t Sampler::output_rank() const { return plan_ ? plan_->output.rank : 0; }
const int64_t* Sampler::output_shape() const { return plan_ ? plan_->output.shape : nullptr; }
size_t Sampler::plan_bytes() const { return plan_ ? PlanExtraBytes(*plan_) : 0; }
size_t Sampler::output_bytes() const {
  return plan_ ? static_cast<size_t>(plan_->output.count) * DTypeSize(plan_->output.dtype) : 0;
}

Status Sampler::Run(const void* const* inputs, size_t count, const MutableTensorView& y) const {
  if (!plan_) return Status::InvalidArgument("Sampler::Run: the Sampler is not prepared");
  return RunPlan(*plan_, inputs, count, y);
}

Status Sampler::Run(const void* const* inputs, size_t count, void* y) const {
  if (!plan_) return Status::InvalidArgument("Sampler::Run: the Sampler is not prepared");
  const PlannedTensor& out = plan_->output;
  return RunPlan(*plan_, inputs, count, {y, out.dtype, out.shape, out.rank});
}

}  // namespace gridsample
