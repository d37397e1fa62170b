#!/usr/bin/env bash
# Runs make steps one after another and prints each one's wall time in a table at the end
# (also after a failing step, which ends the run): `scripts/timed_steps.sh MAKE STEP...`,
# a STEP being make's arguments as one word list ("test-fuzz FUZZ_SECONDS=30").
set -uo pipefail
make_cmd=$1
shift

rows=()
total=0
status=0
print_table() {
  echo
  echo "| step | wall s |"
  echo "| --- | ---: |"
  for row in "${rows[@]}"; do echo "$row"; done
  echo "| total | $total |"
}

for step in "$@"; do
  start=$(date +%s)
  # shellcheck disable=SC2086 # a step is make's arguments, split on spaces
  $make_cmd $step
  status=$?
  seconds=$(($(date +%s) - start))
  total=$((total + seconds))
  if ((status)); then
    rows+=("| $step (failed: exit $status) | $seconds |")
    break
  fi
  rows+=("| $step | $seconds |")
done
print_table
exit $status
