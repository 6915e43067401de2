#!/usr/bin/env bash
# The CPU benchmark in one go (issue #16; a measurement, not a test). It
#  1. builds `gir` (Release, in BUILD_DIR, default build-cpu), unless GIR_BENCH_GIR names a gir binary to use;
#  2. makes a virtual environment BUILD_DIR/bench-venv (Debian's python3, --system-site-packages) and
#     installs the peers from PyPI: onnxruntime, openvino, torch (PyPI's x86-64 wheels pull several GB
#     of CUDA wheels), jax[cpu], plus numpy, onnx and matplotlib. A peer that fails to install is skipped,
#     and the report says why (pip's last line; the whole log is BUILD_DIR/bench-pip-NAME.log);
#  3. runs bench/cpu/bench_cpu.py with T threads (GIR_BENCH_THREADS, default 2), which interleaves per
#     scenario STREAM copy, GIR and the peers, and writes bench/cpu/REPORT.md and bench/cpu/speedup.png.
# Usage: bench/cpu/run_bench.sh [BUILD_DIR] [bench_cpu.py options: --only NAME,NAME --rounds N ...]
# Environment: GIR_BENCH_GIR=/path/to/gir (skip the build), GIR_BENCH_THREADS=T, GIR_BENCH_NO_INSTALL=1
# (use the venv as it is, install nothing).
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=$(pwd)
BUILD=build-cpu
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then BUILD=$1; shift; fi
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
VENV="$BUILD/bench-venv"
T=${GIR_BENCH_THREADS:-2}

if [ -n "${GIR_BENCH_GIR:-}" ]; then
  GIR=$GIR_BENCH_GIR
  [ -x "$GIR" ] || { echo "run_bench: GIR_BENCH_GIR=$GIR is not an executable" >&2; exit 2; }
else
  GIR="$BUILD/cli/gir"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$BUILD" --target gir -j2 >/dev/null || {
    echo "run_bench: cannot build gir in $BUILD" >&2
    exit 2
  }
fi

# Debian's interpreter, so the venv also sees Debian's python3 packages.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ -x "$VENV/bin/python" ] || "$PY" -m venv --system-site-packages "$VENV" || { echo "run_bench: cannot make $VENV" >&2; exit 2; }
SKIPS="$BUILD/bench-skips.tsv"
: >"$SKIPS"
install() {  # install LOGNAME PEERS PACKAGES...: a failure becomes the skip reason of each of PEERS
  local log="$BUILD/bench-pip-$1.log" peers=$2
  shift 2
  [ "${GIR_BENCH_NO_INSTALL:-0}" = 1 ] && return
  echo "run_bench: pip install $*"
  if ! timeout 3600 "$VENV/bin/pip" install -q "$@" >"$log" 2>&1; then
    local why="pip install $* failed: $(grep -v '^\s*$' "$log" | tail -1 | cut -c1-200)"
    for p in $peers; do printf '%s\t%s\n' "$p" "$why" >>"$SKIPS"; done
  fi
}
install base "" numpy "onnx>=1.16" matplotlib
install onnxruntime onnxruntime onnxruntime
install openvino openvino openvino
install torch "torch-eager torch-compile" torch
install jax jax-jit "jax[cpu]"
"$VENV/bin/python" -c "import numpy, onnx, matplotlib" || { echo "run_bench: the venv lacks numpy, onnx or matplotlib" >&2; exit 2; }

# The same thread count everywhere; glibc keeps large freed blocks (no fresh page faults per call).
export OMP_NUM_THREADS=$T MKL_NUM_THREADS=$T OPENBLAS_NUM_THREADS=$T NUMEXPR_NUM_THREADS=$T
export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296
exec "$VENV/bin/python" bench/cpu/bench_cpu.py --gir "$GIR" --source "$SRC" --cache "$BUILD/bench-cache" \
  --work "$BUILD/bench-work" --raw "$BUILD/bench-raw.json" --skip-file "$SKIPS" --threads "$T" "$@"
