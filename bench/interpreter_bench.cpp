// Benchmark (not a test): interpreter + memory-model checker time on a 1024-unit, 30-node GIR-Graph.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "bench/BenchSupport.h"
#include "core/gir/Graph.h"
#include "core/gir/MemoryChecker.h"
#include "core/gir/Validity.h"

using namespace gir;

namespace {

// 1024 units, 64 elements each: load, 28 elementwise ops alternating over reg buffers, store = 30 nodes.
Graph buildChain() {
  Graph g;
  g.name = "chain30";
  g.units = 1024;
  g.unitsPerBlock = 4;
  g.levels = {{"dram", Scope::Device, 0}, {"smem", Scope::Block, 232448}, {"reg", Scope::Unit, 32640}};
  const int64_t per = 64, n = g.units * per;
  auto slice = [&](BufferId b) { return g.addSlice(MemorySlice{b, AffineIndex::unit(per), {per}, {1}}); };
  BufferId x = g.addBuffer({"x", "dram", {n}, BufferRole::Input});
  BufferId y = g.addBuffer({"y", "dram", {n}, BufferRole::Output});
  SliceId prev = slice(g.addBuffer({"r0", "reg", {n}, BufferRole::Temp}));
  g.addNode(Node{MovePayload{}, {slice(x)}, {prev}, std::nullopt});
  const ElementwiseOp ops[] = {ElementwiseOp::Mul, ElementwiseOp::Add, ElementwiseOp::Tanh, ElementwiseOp::Max};
  for (int i = 1; i <= 28; ++i) {
    SliceId next = slice(g.addBuffer({"r" + std::to_string(i), "reg", {n}, BufferRole::Temp}));
    ElementwiseOp op = ops[i % 4];
    ElementwisePayload p{op, {}};
    if (elementwiseArity(op) == 2) p.operands = {{0, 0}, {-1, 0.5}};
    else p.operands = {{0, 0}};
    g.addNode(Node{p, {prev}, {next}, std::nullopt});
    prev = next;
  }
  g.addNode(Node{MovePayload{}, {prev}, {slice(y)}, std::nullopt});
  return g;
}

}  // namespace

int main() {
  Graph g = buildChain();
  TensorMap in = randomInputs(g, 1);
  std::vector<double> interp, checked;
  for (int rep = 0; rep < 7; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    auto out = interpret(g, in);
    auto t1 = std::chrono::steady_clock::now();
    ValidityReport r = checkValidity(g, in);
    auto t2 = std::chrono::steady_clock::now();
    if (!out || !r.valid()) {
      std::fprintf(stderr, "benchmark graph is not valid:\n%s", r.str().c_str());
      return 1;
    }
    interp.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    checked.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::printf("GIR interpreter + memory-model checker, %zu nodes, %lld units, %lld elements per unit (median of 7)\n",
              g.liveNodeCount(), static_cast<long long>(g.units), 64LL);
  std::printf("%-40s %10s\n", "phase", "ms");
  std::printf("%-40s %10.2f\n", "interpreter alone", gir::bench::median(interp));
  std::printf("%-40s %10.2f\n", "verify + interpreter + checker", gir::bench::median(checked));
  std::printf("%-40s %10.2f\n", "checker overhead (ratio)", gir::bench::median(checked) / gir::bench::median(interp));
  return 0;
}
