#include "codegen/schedule/BlockOrder.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <vector>

namespace gir::codegen {

namespace {

constexpr int64_t kSampledSteps = 1024;  // consecutive pairs of blocks compared, spread over the kernel
constexpr double kRequiredGain = 2.0;    // another order must bring consecutive blocks this much closer

struct DeviceAccess {
  const MemorySlice* slice;
  UnitDomain domain;
};

std::vector<DeviceAccess> deviceAccesses(const Graph& g, const Schedule& s, const KernelSchedule& k) {
  std::vector<DeviceAccess> out;
  for (const Stage& st : k.stages)
    for (NodeId id : st.nodes) {
      const Node& n = g.node(id);
      for (const auto* list : {&n.inputs, &n.outputs})
        for (SliceId sl : *list) {
          const MemorySlice& slice = g.slice(sl);
          if (s.buffers[slice.buffer.value].deviceLevel) out.push_back({&slice, g.domainOf(n)});
        }
    }
  return out;
}

// The divisors k of the unit terms u/k and u%k: where the unit index is a mixed radix.
std::set<int64_t> unitDivisors(const std::vector<DeviceAccess>& accesses) {
  std::set<int64_t> out;
  for (const DeviceAccess& a : accesses)
    for (const UnitTerm& t : a.slice->offset.terms())
      if (t.kind != UnitTermKind::Identity) out.insert(t.divisor);
  return out;
}

// The mean distance, in elements, between the first units of the blocks visited t-th and (t+1)-th,
// over sampled t and every access that runs for both units.
double meanStep(const std::vector<DeviceAccess>& accesses, const BlockOrder& order, int64_t blocks, int64_t unitsPerBlock) {
  int64_t pairs = blocks - 1, samples = std::min(pairs, kSampledSteps);
  double sum = 0;
  int64_t counted = 0;
  for (int64_t i = 0; i < samples; ++i) {
    int64_t t = i * (pairs / samples);
    int64_t u = order.block(t) * unitsPerBlock, v = order.block(t + 1) * unitsPerBlock;
    for (const DeviceAccess& a : accesses) {
      if (!a.domain.contains(u) || !a.domain.contains(v)) continue;
      sum += static_cast<double>(std::llabs(a.slice->offset.eval(v) - a.slice->offset.eval(u)));
      ++counted;
    }
  }
  return counted == 0 ? 0.0 : sum / static_cast<double>(counted);
}

// The blocks that run some node of the kernel: those of the units between its domains' first and last.
BlockOrder blocksWithWork(const Graph& g, const Schedule& s, const KernelSchedule& k) {
  int64_t begin = s.units, end = 0;
  for (const Stage& st : k.stages)
    for (NodeId id : st.nodes) {
      UnitDomain d = g.domainOf(g.node(id));
      if (d.begin < d.end) begin = std::min(begin, d.begin), end = std::max(end, d.end);
    }
  if (begin >= end) return BlockOrder{};
  int64_t first = begin / s.unitsPerBlock, last = (end + s.unitsPerBlock - 1) / s.unitsPerBlock;
  return BlockOrder{first, last - first};
}

}  // namespace

BlockOrder blockOrder(const Graph& g, const Schedule& s, const KernelSchedule& k) {
  BlockOrder index = blocksWithWork(g, s, k);
  if (index.first != 0 || index.count != s.blocks || s.blocks < 4) return index;
  auto accesses = deviceAccesses(g, s, k);
  BlockOrder best = index;
  double bestStep = meanStep(accesses, best, s.blocks, s.unitsPerBlock), indexStep = bestStep;
  for (int64_t divisor : unitDivisors(accesses)) {
    // The slow dim must be whole blocks of whole steps: u = step * divisor + rest, blocks inside a step.
    if (divisor % s.unitsPerBlock != 0 || s.units % divisor != 0 || divisor / s.unitsPerBlock < 2 || s.units / divisor < 2) continue;
    BlockOrder candidate{0, s.blocks, divisor / s.unitsPerBlock, s.units / divisor};
    double step = meanStep(accesses, candidate, s.blocks, s.unitsPerBlock);
    if (step < bestStep) best = candidate, bestStep = step;
  }
  return bestStep * kRequiredGain <= indexStep ? best : index;
}

}  // namespace gir::codegen
