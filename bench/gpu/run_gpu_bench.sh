#!/usr/bin/env bash
# GPU benchmark (issue 7): builds `gir` (or uses --gir PATH), generates CUDA for every scenario's GIR
# and per-op plans, builds and checks them, times them against PyTorch eager, torch.compile and a
# device-to-device copy, and writes bench/gpu/REPORT.md. On a machine without a GPU use --dry-run
# (codegen + nvcc builds only; add --no-compile to skip nvcc too).
# Usage: bench/gpu/run_gpu_bench.sh [--gir PATH] [--work DIR] [--target nvidia-h100|nvidia-a100]
#                                   [--dry-run] [--no-compile] [--report FILE] [--repeat N]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
GIR=""
WORK="$ROOT/build-gpu-bench/work"
PASS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gir) GIR="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    *) PASS+=("$1"); shift ;;
  esac
done
NVCC="${NVCC:-$(command -v nvcc || true)}"
[ -n "$NVCC" ] || { [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ] && NVCC="$CUDA_HOME/bin/nvcc"; } || true
[ -n "$NVCC" ] || NVCC=/usr/local/cuda/bin/nvcc
if [ -z "$GIR" ]; then
  cmake -S "$ROOT" -B "$ROOT/build-gpu-bench" -DCMAKE_BUILD_TYPE=Release -DGIR_BUILD_TESTS=OFF >/dev/null
  cmake --build "$ROOT/build-gpu-bench" --target gir -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
  GIR="$ROOT/build-gpu-bench/cli/gir"
fi
exec python3 "$ROOT/bench/gpu/gpu_bench.py" --gir "$GIR" --work "$WORK" --nvcc "$NVCC" ${PASS[@]+"${PASS[@]}"}
