// What the wasm module's embind files share: the last failed call's message, the module's threads.
#ifndef GRIDSAMPLE_BINDINGS_MODULE_STATE_H_
#define GRIDSAMPLE_BINDINGS_MODULE_STATE_H_

#include <cstdint>
#include <string>

#include "gridsample/threads.h"
#include "gridsample/types.h"

// Inline functions, so that each static below is one object however many files include this.
namespace gridsample::bindings {

// The message of the last call that failed. Calls return only the status code: a successful
// call allocates nothing here, so it cannot fail for want of heap (the JS layer makes sure
// there is room for a message before each call, see ensureHeadroom in js/core/wasm_heap.mjs).
inline std::string& LastMessage() {
  static std::string message;
  return message;
}

inline int ToCallStatus(const Status& s) {
  if (s.ok()) return 0;
  LastMessage() = s.message();
  return static_cast<int>(s.code());
}

// Threads every call of this module may use (the library's pool): set once by load() in the
// threaded build (setThreads in bindings.cc), 1 otherwise.
inline Threads& ModuleThreads() {
  static Threads threads;
  return threads;
}

// Every pointer the JS layer passes is a byte offset into the wasm heap; shapes are int64
// arrays there.
inline const int64_t* Shape(uintptr_t p) { return reinterpret_cast<const int64_t*>(p); }

}  // namespace gridsample::bindings

#endif  // GRIDSAMPLE_BINDINGS_MODULE_STATE_H_
