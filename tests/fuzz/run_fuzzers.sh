#!/usr/bin/env bash
# Runs libFuzzer targets, as many at once as there are cores (FUZZ_JOBS), each for SECONDS from a
# scratch copy of its corpus in tests/fuzz/corpus (new units stay in BUILD_DIR/work); exit
# status 1 on any finding.
# Usage: [FUZZ_JOBS=N] tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS FUZZER...
set -euo pipefail

if (($# < 3)); then
  echo "usage: $0 BUILD_DIR SECONDS FUZZER..." >&2
  exit 2
fi
build=$(cd "$1" && pwd)
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${FUZZ_JOBS:-$(nproc)}

# One target, one job: -timeout: an input running 10 s is a finding (a hang); -rss_limit_mb:
# so is one using 2 GB. Its report goes to $work/report, printed when every target is done.
fuzz_one() {
  local fuzzer=$1 work=$build/work/$1 status start
  start=$(date +%s)
  if "$build/$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1; then
    status=ok
  else
    status=FAILED
  fi
  if [ -n "$(ls -A "$work/artifacts")" ]; then status=FAILED; fi
  {
    # The last progress line (DONE: cov, ft, corp, exec/s) and the final statistics.
    grep -E '^#[0-9]+[[:space:]]+DONE' "$work/log" | tail -1 || true
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
      "$work/log" || true
    echo "== $fuzzer: $status after $(($(date +%s) - start)) s"
    if [ "$status" != ok ]; then
      grep -A40 -E '=== gridsample fuzz finding|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error|SUMMARY' \
        "$work/log" | head -80 || tail -40 "$work/log"
      ls -l "$work/artifacts"
      echo "   reproduce: $build/$fuzzer $work/artifacts/<file>"
      echo "   minimise:  $build/$fuzzer -minimize_crash=1 -runs=20000 $work/artifacts/<file>"
    fi
  } >"$work/report"
  [ "$status" = ok ]
}

running=0
for fuzzer in "$@"; do
  work=$build/work/$fuzzer
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  seeds=$root/tests/fuzz/corpus/$fuzzer
  if [ -d "$seeds" ]; then cp "$seeds"/* "$work/corpus/" 2>/dev/null || true; fi
  echo "== $fuzzer: ${seconds} s from $(ls "$work/corpus" | wc -l) seeds (log: $work/log)"
  if ((running == jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$fuzzer" &
  running=$((running + 1))
done
wait || true

failed=()
for fuzzer in "$@"; do
  report=$build/work/$fuzzer/report
  cat "$report" 2>/dev/null || echo "== $fuzzer: no report (log: $build/work/$fuzzer/log)"
  if ! grep -q "^== $fuzzer: ok " "$report" 2>/dev/null; then failed+=("$fuzzer"); fi
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]}"
  exit 1
fi
echo "fuzz: no findings in $* (${seconds} s each, $jobs at once)"
