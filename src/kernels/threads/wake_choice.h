// Whether a call that finds the pool's workers asleep wakes them, learnt from the calls before it.
#ifndef GRIDSAMPLE_THREADS_WAKE_CHOICE_H_
#define GRIDSAMPLE_THREADS_WAKE_CHOICE_H_

#include <array>
#include <cstdint>

namespace gridsample {

// A worker wakes in microseconds on an idle desktop; on a VM whose cores have both been idle,
// the other core can take a millisecond or more to come back, and meanwhile the two threads
// share one (bench/README.md, "Threads"), so a call of a few milliseconds ran slower on 2
// threads than on 1. A call that finds its workers asleep runs a first slice alone, which
// estimates the rest (`estimate_us`, on one thread); calls are grouped by that estimate
// (powers of 2), and in each group the way (waking them or not) whose recent calls took less
// time per microsecond of estimate is chosen, each way tried now and then so that the choice
// follows the machine. Not thread-safe: the pool's call lock guards it.
class WakeChoice {
 public:
  // Whether to wake the workers for a call whose rest is estimated at `estimate_us`.
  bool Wake(int64_t estimate_us);
  // What such a call took from its estimate to its end, woken or not.
  void Record(int64_t estimate_us, bool woke, int64_t took_us);

 private:
  static constexpr int kGroups = 10;      // below 256 us, ..., 64 ms and above
  static constexpr int kKept = 4;         // calls remembered per group and way
  static constexpr int kRetryEvery = 16;  // the other way's turn, in a group's calls
  static constexpr int64_t kAlwaysUs = int64_t{1} << 16;  // from here, always woken

  struct Way {
    std::array<float, kKept> per_us{};  // took_us / estimate_us of its last calls
    int seen = 0;
    float Median() const;
  };
  struct Group {
    Way way[2];  // [0] alone, [1] woken
    int calls = 0;
  };
  static int GroupOf(int64_t estimate_us);
  std::array<Group, kGroups> groups_{};
};

// Tests: true wakes sleeping workers for every call split on the pool (no WakeChoice), so that
// the pool runs every call they split; false (the default) lets WakeChoice decide.
void SetAlwaysWakeForTest(bool always);
bool AlwaysWake();

}  // namespace gridsample

#endif  // GRIDSAMPLE_THREADS_WAKE_CHOICE_H_
