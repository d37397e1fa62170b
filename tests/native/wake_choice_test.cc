// WakeChoice (threads/wake_choice.h): a call that finds the pool's workers asleep wakes them only
// where recent calls of its size gained by it, and each way is tried again now and then.
#include "threads/wake_choice.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace gridsample_test {
namespace {

using gridsample::WakeChoice;

// Runs `calls` calls of `estimate_us` through `choice`, each taking `woken_us` when it wakes the
// workers and `alone_us` when it does not; returns how many woke them.
int Calls(WakeChoice& choice, int calls, int64_t estimate_us, int64_t alone_us, int64_t woken_us) {
  int woke = 0;
  for (int i = 0; i < calls; ++i) {
    const bool wake = choice.Wake(estimate_us);
    woke += wake;
    choice.Record(estimate_us, wake, wake ? woken_us : alone_us);
  }
  return woke;
}

TEST(WakeChoice, WakesWhereWakingGained) {
  WakeChoice choice;
  // Two threads at half the time: after the two calls that try each way, every call but one in
  // 16 (the other way's turn) wakes them.
  EXPECT_EQ(Calls(choice, 64, 4000, 4000, 2100), 64 - 2 - 3);
}

TEST(WakeChoice, StaysAloneWhereWakingLost) {
  WakeChoice choice;
  // A VM whose other core comes back late: woken calls took longer than calls alone.
  EXPECT_EQ(Calls(choice, 64, 1000, 1000, 1300), 2 + 3);
}

TEST(WakeChoice, FollowsTheMachineWhenItChanges) {
  WakeChoice choice;
  Calls(choice, 64, 1000, 1000, 1300);
  // The cores now wake at once: the retries find woken calls faster, and the choice turns.
  Calls(choice, 64, 1000, 1000, 550);
  EXPECT_GE(Calls(choice, 32, 1000, 1000, 550), 30);
}

TEST(WakeChoice, DecidesEachSizeByItself) {
  WakeChoice choice;
  Calls(choice, 64, 1000, 1000, 1300);    // small calls lose by waking
  Calls(choice, 64, 16000, 16000, 8500);  // large ones gain
  EXPECT_LE(Calls(choice, 32, 1000, 1000, 1300), 2);
  EXPECT_GE(Calls(choice, 32, 16000, 16000, 8500), 30);
}

TEST(WakeChoice, AlwaysWakesForLongCalls) {
  WakeChoice choice;
  EXPECT_EQ(Calls(choice, 40, int64_t{1} << 17, int64_t{1} << 17, int64_t{1} << 18), 40);
}

}  // namespace
}  // namespace gridsample_test
