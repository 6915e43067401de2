#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang++-14, ASan and UBSan (build-clang/), and fuzzes each
# for a while from its seeds (docs/fuzzing.md). Exits 1 when any target finds a crash, a sanitizer report,
# a broken invariant, a leak, a timeout or an out-of-memory; the input that did it is kept and named.
# Usage: scripts/fuzz.sh [--seconds N] [--jobs J] [--timeout T] [--out DIR] [--no-build] [TARGET...]
#   --seconds N  time per target (default 60, as in CI); --jobs J  targets fuzzed at once (default 1)
#   --timeout T  seconds one input may take (default 10). libFuzzer's timer is wall-clock: a niced run
#                starved by builds on the same cores reports false timeouts, so long runs use 60
#   --out DIR    logs, scratch corpora and findings (default build-clang/fuzz; one per concurrent run)
#   TARGET       gir_text gir_json hardware_json interpreter asck onnx_import (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_TARGET=60
JOBS=1
TIMEOUT=10
BUILD_FIRST=1
TARGETS=()
OUT_DIR=
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_PER_TARGET=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --no-build) BUILD_FIRST=0; shift ;;
    --out) OUT_DIR=$2; shift 2 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(gir_text gir_json hardware_json interpreter asck onnx_import)
BUILD=$ROOT/build-clang
OUT=${OUT_DIR:-$BUILD/fuzz}

if [ "$BUILD_FIRST" = 1 ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGIR_SANITIZE=ON -DGIR_FUZZ=ON >/dev/null
  cmake --build "$BUILD" -j"$(nproc 2>/dev/null || echo 2)" --target "${TARGETS[@]/#/fuzz_}"
fi

dict_of() {
  case "$1" in
    gir_text|interpreter) echo "$ROOT/tests/fuzz/dict/gir.dict" ;;
    gir_json|hardware_json) echo "$ROOT/tests/fuzz/dict/json.dict" ;;
    asck) echo "$ROOT/tests/fuzz/dict/asck.dict" ;;
    *) echo "" ;;
  esac
}

# Seeds (tests/fuzz/SEEDS) are copied into a scratch corpus that the run may grow; the tree is never written.
seed_corpus() {
  local name=$1 dir=$OUT/corpus/$1
  mkdir -p "$dir"
  local paths
  paths=$(sed -n "s/^$name: *//p" "$ROOT/tests/fuzz/SEEDS")
  for p in $paths; do
    if [ -d "$ROOT/$p" ]; then find "$ROOT/$p" -maxdepth 1 -type f -exec cp -n {} "$dir/" \; ; else cp -n "$ROOT/$p" "$dir/"; fi
  done
  echo "$dir"
}

fuzz_one() {
  local name=$1 corpus dict log=$OUT/$1.log
  corpus=$(seed_corpus "$name")
  dict=$(dict_of "$name")
  mkdir -p "$OUT/artifacts/$name"
  local args=(-max_total_time="$SECONDS_PER_TARGET" -timeout="$TIMEOUT" -rss_limit_mb=2048 -max_len=65536
              -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$name/")
  [ -n "$dict" ] && args+=(-dict="$dict")
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      "$BUILD/tests/fuzz/fuzz_$name" "${args[@]}" "$corpus" >"$log" 2>&1; then
    echo "ok" >"$OUT/$name.status"
  else
    echo "FINDING" >"$OUT/$name.status"
  fi
}

mkdir -p "$OUT"
running=0
for t in "${TARGETS[@]}"; do
  rm -f "$OUT/$t.status"
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
done
wait

failed=0
printf '%-14s %-8s %12s %8s %8s %8s  %s\n' target verdict executions cov ft corpus log
for t in "${TARGETS[@]}"; do
  log=$OUT/$t.log
  verdict=$(cat "$OUT/$t.status" 2>/dev/null || echo "no-run")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
  printf '%-14s %-8s %12s %8s %8s %8s  %s\n' "$t" "$verdict" "${execs:--}" "${cov:--}" "${ft:--}" "${corp:--}" "$log"
  if [ "$verdict" != ok ]; then
    failed=1
    grep -E "ERROR: |SUMMARY: |fuzz invariant broken|runtime error|Test unit written" "$log" | head -8 | sed 's/^/    /'
  fi
done
exit $failed
