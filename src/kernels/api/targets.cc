// Which SIMD target the fast paths dispatch to: the public query and override (types.h).
#include "hwy/targets.h"

#include <string>
#include <vector>

#include "drivers/fast.h"
#include "gridsample/types.h"

namespace gridsample {
namespace {

// Highway's target bits, best first. Natively: compiled in and supported by this CPU, read
// once, before any SetTarget (which narrows what Highway reports as supported).
const std::vector<int64_t>& TargetBits() {
#if GRIDSAMPLE_STATIC_DISPATCH
  static const std::vector<int64_t> bits = {HWY_STATIC_TARGET};
#else
  static const std::vector<int64_t> bits = hwy::SupportedAndGeneratedTargets();
#endif
  return bits;
}

// Dispatch to exactly `bits` from now on; 0 restores Highway's own choice.
void UseTarget(int64_t bits) {
#if GRIDSAMPLE_STATIC_DISPATCH
  (void)bits;
#else
  hwy::SetSupportedTargetsForTest(bits);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
#endif
}

}  // namespace

const char* ActiveTarget() { return fast::TargetName(); }

std::vector<std::string> AvailableTargets() {
  std::vector<std::string> names;
  for (int64_t bits : TargetBits()) names.emplace_back(hwy::TargetName(bits));
  return names;
}

Status SetTarget(std::string_view name) {
  if (name.empty()) {
    UseTarget(0);
    return Status::Ok();
  }
  std::string names;
  for (int64_t bits : TargetBits()) {
    if (name == hwy::TargetName(bits)) {
      UseTarget(bits);
      return Status::Ok();
    }
    names += (names.empty() ? "'" : ", '") + std::string(hwy::TargetName(bits)) + "'";
  }
  return Status::InvalidArgument("target: expected one of this CPU's SIMD targets (" + names +
                                 ") or '' for the default choice, got '" + std::string(name) + "'");
}

}  // namespace gridsample
