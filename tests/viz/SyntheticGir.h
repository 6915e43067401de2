// Synthetic GIR-Graphs of a chosen size for the viz tests and bench_layout: `kernels` kernels, each a
// load, `ops` elementwise ops in registers and a store, joined by device syncs (ops + 3 nodes each).
#pragma once

#include <string>

namespace gir::test {

inline std::string syntheticGirText(int kernels, int ops) {
  std::string s = "gir @synthetic target=nvidia-h100 units=64 block=4\nlevel dram device\nlevel smem block capacity=232448\n"
                  "level reg unit capacity=32640\n";
  auto k = [](int i) { return std::to_string(i); };
  s += "%t0 = buffer dram f32[64,16] input\n";
  for (int i = 1; i <= kernels; ++i) s += "%t" + k(i) + " = buffer dram f32[64,16]" + (i == kernels ? " output" : "") + "\n";
  for (int i = 0; i < kernels; ++i)
    for (int j = 0; j <= ops; ++j) s += "%r" + k(i) + "_" + k(j) + " = buffer reg f32[1024]\n";
  for (int i = 0; i <= kernels; ++i) {
    s += "%t" + k(i) + "_w = slice %t" + k(i) + " offset(16*u) shape[16] strides[1]\n";
    s += "%t" + k(i) + "_r = slice %t" + k(i) + " offset(16*u) shape[16] strides[1]\n";
  }
  for (int i = 0; i < kernels; ++i)
    for (int j = 0; j <= ops; ++j) s += "%r" + k(i) + "_" + k(j) + "_u = slice %r" + k(i) + "_" + k(j) + " offset(16*u) shape[16] strides[1]\n";
  static const char* fns[] = {"neg", "abs", "relu", "sqrt"};  // bounded: no overflow along long chains
  for (int i = 0; i < kernels; ++i) {
    std::string in = i == 0 ? "%t0_w" : "%t" + k(i) + "_r";
    s += "move " + in + " -> %r" + k(i) + "_0_u\n";
    for (int j = 0; j < ops; ++j)
      s += std::string("ew.") + fns[(i + j) % 4] + " %r" + k(i) + "_" + k(j) + "_u -> %r" + k(i) + "_" + k(j + 1) + "_u\n";
    s += "move %r" + k(i) + "_" + k(ops) + "_u -> %t" + k(i + 1) + "_w\n";
    if (i + 1 < kernels) s += "sync device (%t" + k(i + 1) + "_w) -> (%t" + k(i + 1) + "_r)\n";
  }
  return s;
}

}  // namespace gir::test
