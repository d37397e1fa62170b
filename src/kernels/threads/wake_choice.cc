// WakeChoice (wake_choice.h): the pool's choice, per size of call, between waking its sleeping
// workers and running the call alone.
#include "threads/wake_choice.h"

#include <algorithm>
#include <atomic>

namespace gridsample {
namespace {
std::atomic<bool> always_wake{false};
}  // namespace

void SetAlwaysWakeForTest(bool always) { always_wake.store(always, std::memory_order_relaxed); }
bool AlwaysWake() { return always_wake.load(std::memory_order_relaxed); }

int WakeChoice::GroupOf(int64_t estimate_us) {
  int group = 0;
  for (int64_t e = estimate_us >> 8; e > 0 && group < kGroups - 1; e >>= 1) ++group;
  return group;
}

float WakeChoice::Way::Median() const {
  std::array<float, kKept> last = per_us;
  const int kept = std::min(seen, kKept);
  std::nth_element(last.begin(), last.begin() + kept / 2, last.begin() + kept);
  return last[kept / 2];
}

bool WakeChoice::Wake(int64_t estimate_us) {
  if (estimate_us >= kAlwaysUs) return true;
  Group& g = groups_[GroupOf(estimate_us)];
  const Way &alone = g.way[0], &woken = g.way[1];
  if (woken.seen < 2) return true;
  if (alone.seen < 2) return false;
  const bool better = woken.Median() <= alone.Median();
  return ++g.calls % kRetryEvery == 0 ? !better : better;
}

void WakeChoice::Record(int64_t estimate_us, bool woke, int64_t took_us) {
  Way& w = groups_[GroupOf(estimate_us)].way[woke ? 1 : 0];
  w.per_us[w.seen % kKept] =
      static_cast<float>(took_us) / static_cast<float>(std::max<int64_t>(estimate_us, 1));
  ++w.seen;
}

}  // namespace gridsample
