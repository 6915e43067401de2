// Benchmark (not a test): planning time of each baseline planner (eager, xla-like, tvm-like) over
// all memory-bound subgraphs of the largest bundled scenario (by op count), median of repeats,
// on the cpu-host target description. Import and preprocessing are done once, outside the timing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "bench/BenchSupport.h"
#include "core/compute/GraphBuilder.h"
#include "core/compute/Preprocess.h"
#include "core/onnx/OnnxImporter.h"
#include "search/baselines/Planners.h"

using namespace gir;
using namespace gir::compute;
namespace fs = std::filesystem;

namespace {

struct Model {
  fs::path path;
  Graph graph;
};

std::optional<Model> largestScenario() {
  std::optional<Model> best;
  for (const auto& e : fs::directory_iterator(fs::path(GIR_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() != ".onnx") continue;
    auto g = importOnnxFile(e.path().string());
    if (g && (!best || g->ops.size() > best->graph.ops.size())) best = Model{e.path(), std::move(*g)};
  }
  return best;
}

// A scaling probe beyond the small scenarios: `blocks` chained layernorm + softmax blocks on
// [64,256] (about 20 nodes each), built directly, no library ops.
Graph syntheticChain(int blocks) {
  Graph g;
  g.name = "chain";
  GraphBuilder b(g);
  TensorId x = g.addTensor("x", DType::F32, {64, 256});
  g.inputs.push_back(x);
  auto ok = [](Expected<TensorId> t) { return *t; };
  for (int i = 0; i < blocks; ++i) {
    b.setContext("blk" + std::to_string(i), "");
    TensorId xc = ok(b.binary(ElementwiseOp::Sub, x, ok(b.reduce(ReduceOp::Sum, x, {1}, true))));
    TensorId var = ok(b.reduce(ReduceOp::Sum, ok(b.binary(ElementwiseOp::Mul, xc, xc)), {1}, true));
    TensorId xn = ok(b.binary(ElementwiseOp::Mul, xc, ok(b.unary(ElementwiseOp::Rsqrt, ok(b.binary(ElementwiseOp::Add, var, 1e-5))))));
    TensorId e = ok(b.unary(ElementwiseOp::Exp, ok(b.binary(ElementwiseOp::Sub, xn, ok(b.reduce(ReduceOp::Max, xn, {1}, true))))));
    x = ok(b.binary(ElementwiseOp::Div, e, ok(b.reduce(ReduceOp::Sum, e, {1}, true))));
  }
  g.outputs = {x};
  return g;
}

double timePlanner(const std::string& name, const std::vector<search::PlanProblem>& problems, int repeats,
                   int64_t& kernels, int64_t& bytes) {
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    kernels = bytes = 0;
    auto start = std::chrono::steady_clock::now();
    for (const search::PlanProblem& p : problems) {
      auto plan = search::runBaselinePlanner(name, p);
      if (!plan) {
        std::fprintf(stderr, "%s\n", plan.error().str().c_str());
        return -1;
      }
      kernels += plan->totals.kernels;
      bytes += plan->totals.dramBytes();
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return gir::bench::median(ms);
}

void printRows(const std::vector<search::PlanProblem>& problems, int repeats) {
  std::printf("%-8s %10s %12s %14s\n", "planner", "kernels", "dram_bytes", "median_ms");
  for (const std::string& name : search::baselinePlannerNames()) {
    int64_t kernels = 0, bytes = 0;
    double ms = timePlanner(name, problems, repeats, kernels, bytes);
    std::printf("%-8s %10lld %12lld %14.3f\n", name.c_str(), static_cast<long long>(kernels),
                static_cast<long long>(bytes), ms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
  auto model = largestScenario();
  auto hw = loadHardwareByName("cpu-host");
  if (!model || !hw) {
    std::fprintf(stderr, "bench_plan: no scenario or no cpu-host hardware description\n");
    return 2;
  }
  auto pre = preprocess(model->graph, *hw);
  if (!pre) return 2;
  std::vector<search::PlanProblem> problems;
  size_t nodes = 0;
  for (size_t s = 0; s < pre->subgraphs.size(); ++s) {
    auto p = search::makeProblem(model->graph, pre->subgraphs[s], "subgraph " + std::to_string(s));
    if (!p) return 2;
    nodes += p->nodes.size();
    problems.push_back(std::move(*p));
  }
  std::printf("model %s: %zu ops, %zu subgraphs, %zu plan nodes, %d repeats\n", model->path.filename().c_str(),
              model->graph.ops.size(), problems.size(), nodes, repeats);
  printRows(problems, repeats);
  for (int blocks : {8, 16, 32}) {
    Graph chain = syntheticChain(blocks);
    auto p = search::makeProblem(chain);
    if (!p) return 2;
    std::printf("\nsynthetic chain of %d layernorm+softmax blocks: %zu plan nodes\n", blocks, p->nodes.size());
    std::vector<search::PlanProblem> one;
    one.push_back(std::move(*p));
    printRows(one, std::max(1, repeats / 4));
  }
  return 0;
}
