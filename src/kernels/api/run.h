// Runs a validated sampling problem (problem/problem.h): on a fast path where one covers it,
// else on the reference.
#ifndef GRIDSAMPLE_API_RUN_H_
#define GRIDSAMPLE_API_RUN_H_

#include <variant>

#include "drivers/fast.h"
#include "problem/problem.h"
#include "reference/reference.h"

namespace gridsample {

template <class Problem>
void Run(const Problem& problem) {
  if (!fast::Try(problem)) reference::Run(problem);
}

// Run for a problem the caller built with a source of type Source: the fast path of that source
// alone is reached from the caller, where Run reaches every source's (the linker keeps what is
// reached: GridSample's call links no flow kernels, as the wasm core module needs).
template <class Source, class Problem>
void RunFrom(const Problem& problem) {
  if (!fast::Try(problem, *std::get_if<Source>(&problem.source))) reference::Run(problem);
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_API_RUN_H_
