#!/usr/bin/env bash
# Installs every Debian package GIR Workbench uses (idempotent), then configures and builds.
# Usage: scripts/setup.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake pkg-config
  nlohmann-json3-dev catch2
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx libonnx-testdata
  libopenblas-dev
  libmimalloc-dev  # the executables' malloc (CMakeLists.txt, docs/scale.md "Plan time")
  libisl-dev  # symbolic bounds and memory-model checks (core/gir/SymbolicCheck.cpp)
  qt6-base-dev qt6-svg-dev qt6-charts-dev libgl-dev libgraphviz-dev
  libqt6opengl6-dev  # Qt6Charts' CMake config needs Qt6OpenGL's, which qt6-charts-dev does not pull in
  xvfb xauth
  hipcc  # HIP code generation compile tests (brings clang-15, lld and rocm-device-libs for gfx908)
  clang-14 libclang-rt-14-dev llvm-14  # the clang build: ASan/UBSan suites, libFuzzer targets, symbolized reports (docs/fuzzing.md)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ "${1:-}" = "--no-build" ] && exit 0

JOBS=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$JOBS"
