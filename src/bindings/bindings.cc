// embind registration of every module's utilities: heap, errors, names, SIMD target, threads.
#include <emscripten/bind.h>
#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "gridsample/types.h"
#include "module_state.h"
#include "threads/parallel.h"

namespace gridsample {
namespace {

using bindings::LastMessage;
using bindings::ModuleThreads;
using bindings::ToCallStatus;

// Hands the message to JavaScript and clears it, so that no message stays allocated.
std::string TakeLastError() {
  std::string message;
  message.swap(LastMessage());
  return message;
}

// 1 to kMaxThreads threads; returns the count in use (always 1 in a build without threads).
int SetThreads(int count) {
#ifdef __EMSCRIPTEN_PTHREADS__
  ModuleThreads().count = count < 1 ? 1 : count > kMaxThreads ? kMaxThreads : count;
#else
  (void)count;
#endif
  return ModuleThreads().count;
}

// The names JS asks for instead of repeating them: the enum codes of mode, padding and dtype
// names, and the canonical names of codes.
std::string ModeNameAdapter(int mode) { return ModeName(static_cast<Mode>(mode)); }
std::string PaddingNameAdapter(int padding) { return PaddingName(static_cast<Padding>(padding)); }

// The enum's value for `name`, or -1 with the parser's message kept for takeLastError.
template <typename Enum>
int CodeOf(const Status& s, Enum value) {
  if (!s.ok()) {
    ToCallStatus(s);
    return -1;
  }
  return static_cast<int>(value);
}

int ParseModeAdapter(const std::string& name) {
  Mode mode = Mode::kLinear;
  const Status s = ParseMode(name, &mode);
  return CodeOf(s, mode);
}

int ParsePaddingAdapter(const std::string& name) {
  Padding padding = Padding::kZeros;
  const Status s = ParsePadding(name, &padding);
  return CodeOf(s, padding);
}

int ParseDTypeAdapter(const std::string& name) {
  DType dtype = DType::kFloat32;
  const Status s = ParseDType(name, &dtype);
  return CodeOf(s, dtype);
}

// 0 when the heap cannot grow that far; the JS layer turns that into a RangeError.
uintptr_t Allocate(double bytes) {
  if (!(bytes >= 0) || bytes > 4294967295.0) return 0;
  return reinterpret_cast<uintptr_t>(std::malloc(static_cast<size_t>(bytes ? bytes : 1)));
}

void Release(uintptr_t p) { std::free(reinterpret_cast<void*>(p)); }

// Bytes in use by malloc: flat across calls when nothing leaks.
double HeapUsed() { return static_cast<double>(mallinfo().uordblks); }

std::string Target() { return ActiveTarget(); }

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample) {
  using namespace emscripten;
  using namespace gridsample;
  function("modeName", &ModeNameAdapter);
  function("paddingName", &PaddingNameAdapter);
  function("parseMode", &ParseModeAdapter);
  function("parsePadding", &ParsePaddingAdapter);
  function("parseDType", &ParseDTypeAdapter);
  function("allocate", &Allocate);
  function("release", &Release);
  function("heapUsed", &HeapUsed);
  function("takeLastError", &TakeLastError);
  function("activeTarget", &Target);
  function("setThreads", &SetThreads);
}
