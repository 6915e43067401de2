// Timing several compiled graphs against each other on a noisy machine: in rounds, each round timing
// every graph in turn, so that a burst of another tenant's traffic falls on all of them alike
// (docs/cpu.md, "Reading `gir run`").
#pragma once

#include <vector>

#include "codegen/cpu/CpuLauncher.h"

namespace gir::codegen::cpu {

struct TimedGraph {
  CompiledKernel* kernel = nullptr;
  const TensorMap* inputs = nullptr;
  Timing whole;                  // gir_run, all kernels
  std::vector<Timing> perKernel;  // each kernel alone
};

// `rounds` rounds; in each, every graph is timed whole and kernel by kernel with budget / rounds, in
// the order roundOrder gives. A graph's figures are the median over rounds of each round's median
// (combineRounds).
Status timeInterleaved(std::vector<TimedGraph>& graphs, const TimingOptions& t, int rounds);

// The order in which round `round` times `n` graphs: forward in even rounds, backward in odd ones, so
// that no candidate is always the first timed after the builds (or always follows the same one).
std::vector<size_t> roundOrder(size_t n, int round);

// The median over rounds of the rounds' medians, p10 and p90; min and max over all; repeats summed.
Timing combineRounds(const std::vector<Timing>& rounds);

}  // namespace gir::codegen::cpu
