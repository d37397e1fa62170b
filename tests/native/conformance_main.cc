// gridsample_conformance: replays every golden case of a directory and prints the failures.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "case_loader.h"
#include "gridsample/types.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

void PrintUsage(std::FILE* to) {
  std::fprintf(to,
               "usage: gridsample_conformance DIR [--filter SUBSTR] [--verbose] [--reference]\n"
               "  DIR          directory of golden cases (<name>.json + <name>.*.bin)\n"
               "  --filter S   only cases whose name contains S\n"
               "  --verbose    also print passing cases\n"
               "  --reference  replay through the scalar reference instead of the public API\n"
               "Prints every failure, pass counts per category and a last line\n"
               "\"N passed, M failed\"; exits 1 on any failure or when no case runs.\n");
}

struct CategoryCount {
  int passed = 0;
  int failed = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  std::string filter;
  bool verbose = false;
  bool use_reference = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--verbose" || arg == "-v") {
      verbose = true;
    } else if (arg == "--reference") {
      use_reference = true;
    } else if (arg == "--filter") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gridsample_conformance: --filter needs a value\n");
        PrintUsage(stderr);
        return kExitUsage;
      }
      filter = argv[++i];
    } else if (arg.rfind("--filter=", 0) == 0) {
      filter = arg.substr(std::strlen("--filter="));
    } else if (arg == "--help" || arg == "-h") {
      PrintUsage(stdout);
      return kExitOk;
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "gridsample_conformance: unknown option %s\n", arg.c_str());
      PrintUsage(stderr);
      return kExitUsage;
    } else if (dir.empty()) {
      dir = arg;
    } else {
      std::fprintf(stderr, "gridsample_conformance: more than one DIR (%s, %s)\n", dir.c_str(),
                   arg.c_str());
      PrintUsage(stderr);
      return kExitUsage;
    }
  }
  if (dir.empty()) {
    PrintUsage(stderr);
    return kExitUsage;
  }

  namespace gc = gridsample::conformance;
  std::vector<std::string> names;
  std::string error;
  if (!gc::ListCases(dir, &names, &error)) {
    std::fprintf(stderr, "gridsample_conformance: %s\n", error.c_str());
    return kExitFailed;
  }
  if (names.empty()) {
    std::fprintf(stderr, "gridsample_conformance: no cases (*.json other than index.json) in %s\n",
                 dir.c_str());
    return kExitFailed;
  }
  std::vector<std::string> selected;
  for (const std::string& name : names) {
    if (name.find(filter) != std::string::npos) selected.push_back(name);
  }
  // A mistyped filter must not look like a clean run.
  if (selected.empty()) {
    std::fprintf(stderr, "gridsample_conformance: no case in %s matches --filter %s\n", dir.c_str(),
                 filter.c_str());
    return kExitFailed;
  }

  const gc::Implementation impl =
      use_reference ? gc::ReferenceImplementation() : gc::PublicImplementation();
  std::printf("gridsample_conformance: %zu cases from %s through %s (SIMD target %s)\n",
              selected.size(), dir.c_str(), impl.name.c_str(), gridsample::ActiveTarget());

  std::map<std::string, CategoryCount> categories;
  int passed = 0;
  int failed = 0;
  for (const std::string& name : selected) {
    const gc::CaseResult r = gc::LoadAndRunCase(dir, name, impl);
    CategoryCount& count = categories[r.category.empty() ? "(none)" : r.category];
    if (r.passed) {
      ++passed;
      ++count.passed;
    } else {
      ++failed;
      ++count.failed;
    }
    if (!r.passed || verbose) std::printf("%s\n", gc::DescribeResult(r).c_str());
  }
  for (const auto& [category, count] : categories) {
    std::printf("category %s: %d/%d passed\n", category.c_str(), count.passed,
                count.passed + count.failed);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? kExitOk : kExitFailed;
}
