#!/usr/bin/env bash
# The CPU benchmark in one go (issue #6, not a test): builds `gir`, makes a virtual environment under
# the build directory, installs the peers from PyPI (each may fail: it is then skipped with the reason),
# and runs bench/cpu/bench_cpu.py, which interleaves per scenario STREAM copy, the GIR and eager plans
# through the same code generator, ONNX Runtime, PyTorch eager, torch.compile, JAX jit and Apache TVM,
# all with 2 threads, and writes bench/cpu/REPORT.md.
# Usage: bench/cpu/run_bench.sh [BUILD_DIR]   (default build-cpu)
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=$(pwd)
BUILD=${1:-build-cpu}
VENV="$BUILD/bench-venv"

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$BUILD" --target gir -j2 >/dev/null || {
  echo "run_bench: cannot build gir in $BUILD" >&2
  exit 2
}

# Debian's interpreter, so the venv also sees python3-onnx (and python3-torch, the fallback for PyTorch).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ -d "$VENV" ] || "$PY" -m venv --system-site-packages "$VENV"
PIP="$VENV/bin/pip"
SKIPS=()
install() {  # install NAME PACKAGES...: a failure becomes a skip reason for that peer
  local name=$1
  shift
  if ! timeout 900 "$PIP" install -q "$@" >"$BUILD/bench-pip-$name.log" 2>&1; then
    SKIPS+=("$name=pip install $* failed: $(tail -1 "$BUILD/bench-pip-$name.log" | cut -c1-150 | tr ',' ';')")
  fi
}
install base numpy "onnx>=1.16"  # TVM's ONNX frontend needs a newer onnx than Debian's
install onnxruntime onnxruntime
install jax-jit "jax[cpu]"
install tvm apache-tvm
# PyTorch: PyPI's x86-64 Linux wheels pull in several GB of CUDA wheels and PyPI has no CPU-only build.
# Use it only if it is already importable (Debian's python3-torch through the system site packages, or a
# previous opt-in install with GIR_BENCH_TORCH_FROM_PYPI=1).
if [ "${GIR_BENCH_TORCH_FROM_PYPI:-0}" = 1 ]; then install torch-eager torch; fi
if ! "$VENV/bin/python" -c "import torch" >/dev/null 2>&1; then
  why="no CPU-only torch on PyPI (its x86-64 wheels depend on CUDA wheels of several GB) and Debian's python3-torch is not installed; set GIR_BENCH_TORCH_FROM_PYPI=1 to install the CUDA wheels anyway"
  SKIPS+=("torch-eager=$why" "torch-compile=$why")
fi

SKIP_ARG=$(IFS=,; echo "${SKIPS[*]:-}")
# 2 threads (the goal's setting), then 1 thread: on a shared, oversubscribed machine a descheduled
# worker stalls every barrier, and the single-thread table shows the code without that noise.
APPEND=""
for T in 2 1; do
  export OMP_NUM_THREADS=$T MKL_NUM_THREADS=$T OPENBLAS_NUM_THREADS=$T TVM_NUM_THREADS=$T
  export XLA_FLAGS="--xla_cpu_multi_thread_eigen=$([ "$T" = 1 ] && echo false || echo true) intra_op_parallelism_threads=$T"
  "$VENV/bin/python" bench/cpu/bench_cpu.py --gir "$BUILD/cli/gir" --source "$SRC" --cache "$BUILD/bench-cache" \
    --report bench/cpu/REPORT.md --skip "$SKIP_ARG" --threads "$T" $APPEND
  APPEND="--append"
done
