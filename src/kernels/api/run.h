// Runs a validated sampling problem (problem/problem.h): on a fast path where one covers it,
// else on the reference.
#ifndef GRIDSAMPLE_API_RUN_H_
#define GRIDSAMPLE_API_RUN_H_

#include "drivers/fast.h"
#include "problem/problem.h"
#include "reference/reference.h"

namespace gridsample {

template <class Problem>
void Run(const Problem& problem) {
  if (!fast::Try(problem)) reference::Run(problem);
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_API_RUN_H_
