// Benchmark (not a test): greedy optimizer time on generated merged GIR-Graphs of about 1k, 10k and
// 50k nodes (a chain of per-op kernels: load -> elementwise -> store, joined by device syncs whose
// read patterns are the writer's own row, or its pair partner's in the same block).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "bench/BenchSupport.h"
#include "rewrite/GreedyOptimizer.h"

using namespace gir;

namespace {

Graph chain(int ops) {
  Graph g;
  g.name = "chain";
  g.units = 64;
  g.unitsPerBlock = 4;
  g.levels = {{"dram", Scope::Device, 0}, {"smem", Scope::Block, 0}, {"reg", Scope::Unit, 0}};
  const int64_t w = 8, n = g.units * w;
  auto buffer = [&](const char* level, BufferRole role) {
    return g.addBuffer(Buffer{"b" + std::to_string(g.buffers().size()), level, {n}, role});
  };
  auto slice = [&](BufferId b, AffineIndex off) { return g.addSlice(MemorySlice{b, off, {w}, {1}}); };
  BufferId prev = buffer("dram", BufferRole::Input);
  SliceId prevStore;
  for (int i = 0; i < ops; ++i) {
    bool last = i + 1 == ops;
    AffineIndex pat = i % 3 == 2 ? AffineIndex::unit(w, w).addTerm(UnitTermKind::Mod, 2, -2 * w) : AffineIndex::unit(w);
    if (i == 0) pat = AffineIndex::unit(w);
    SliceId in = slice(prev, pat);
    if (i > 0) g.addNode(Node{SyncPayload{Scope::Device}, {prevStore}, {in}, std::nullopt});
    SliceId r1 = slice(buffer("reg", BufferRole::Temp), AffineIndex::unit(w));
    SliceId r2 = slice(buffer("reg", BufferRole::Temp), AffineIndex::unit(w));
    BufferId out = buffer("dram", last ? BufferRole::Output : BufferRole::Temp);
    SliceId st = slice(out, AffineIndex::unit(w));
    g.addNode(Node{MovePayload{}, {in}, {r1}, std::nullopt});
    g.addNode(Node{ElementwisePayload{i % 2 ? ElementwiseOp::Exp : ElementwiseOp::Neg, {{0, 0}}}, {r1}, {r2}, std::nullopt});
    g.addNode(Node{MovePayload{}, {r2}, {st}, std::nullopt});
    prev = out;
    prevStore = st;
  }
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  double budgetSeconds = argc > 1 ? std::atof(argv[1]) : 120;
  std::printf("greedy optimizer on generated chains (unchecked mode, median of 3 where under 10 s)\n");
  std::printf("%10s %10s %10s %12s %14s\n", "nodes", "steps", "kernels", "dram after", "greedy ms");
  double lastSeconds = 0;
  size_t lastNodes = 0;
  for (int ops : {250, 2500, 12500}) {
    Graph g = chain(ops);
    size_t nodes = g.liveNodeCount();
    // match() is linear in the graph and a run is linear in steps: project quadratically.
    double projected = lastNodes ? lastSeconds * (double(nodes) / lastNodes) * (double(nodes) / lastNodes) : 0;
    if (projected > budgetSeconds) {
      std::printf("%10zu %10s %10s %12s %14s  (projected %.0f s from the previous size; over the %.0f s budget)\n", nodes, "-", "-",
                  "-", "not run", projected, budgetSeconds);
      continue;
    }
    std::vector<double> ms;
    GreedyResult r;
    Stepper* last = nullptr;
    std::vector<std::unique_ptr<Stepper>> keep;
    for (int rep = 0; rep < 3; ++rep) {
      keep.push_back(std::make_unique<Stepper>(g, std::nullopt, false, 1, /*recordCosts=*/false));
      auto t0 = std::chrono::steady_clock::now();
      r = runGreedy(*keep.back());
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      last = keep.back().get();
      if (ms.back() > 10000) break;
    }
    double med = gir::bench::median(ms);
    std::printf("%10zu %10zu %10d %12lld %14.1f\n", nodes, r.steps, last->cost().kernels,
                static_cast<long long>(last->cost().dramBytes), med);
    lastSeconds = med / 1000;
    lastNodes = nodes;
  }
  return 0;
}
