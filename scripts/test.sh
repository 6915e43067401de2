#!/usr/bin/env bash
# The whole test suite: setup + build, every CTest test, then the bad-input corpus again under ASan/UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc 2>/dev/null || echo 2)

scripts/setup.sh
echo "== tests (build/)"
ctest --test-dir build --output-on-failure -j"$JOBS"

echo "== bad-input corpus under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGIR_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$JOBS" --target gir test_cli
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$JOBS" -L cli
