// Benchmark (not a test): the GIR planner's search time per model (the template search over every
// memory-bound subgraph, whole subgraph, with the validation of the chosen plan; no baselines), median of 3, on every
// full-model scenario and on two synthetic networks sized like ShuffleNetV2 (16 shuffle units) and
// EfficientNet-B0 (16 MBConv blocks), built directly. Goal: under 1 s per model.
#include <chrono>
#include <climits>
#include <tuple>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/BenchSupport.h"
#include "core/compute/GraphBuilder.h"
#include "core/compute/Preprocess.h"
#include "core/onnx/OnnxImporter.h"
#include "search/GirSearch.h"

using gir::ElementwiseOp;
using gir::Expected;
using gir::HardwareDesc;
using gir::ReduceOp;
using gir::loadHardwareByName;
namespace search = gir::search;
using namespace gir::compute;
namespace fs = std::filesystem;

namespace {

TensorId in(Graph& g, const std::string& name, Dims d) {
  TensorId t = g.addTensor(name, DType::F32, std::move(d));
  g.inputs.push_back(t);
  return t;
}
TensorId ok(Expected<TensorId> t) {
  if (!t) {
    std::fprintf(stderr, "%s\n", t.error().str().c_str());
    std::exit(2);
  }
  return *t;
}

TensorId pointwise(Graph& g, GraphBuilder& b, TensorId x, int64_t cin, int64_t cout, const std::string& n) {
  return ok(b.conv(x, in(g, n + "_w", {cout, cin, 1, 1}), std::nullopt, ConvAttrs{}));
}
TensorId depthwise(Graph& g, GraphBuilder& b, TensorId x, int64_t c, int64_t stride, const std::string& n) {
  ConvAttrs a;
  a.group = c;
  a.pads = {1, 1, 1, 1};
  a.strides = {stride, stride};
  return ok(b.conv(x, in(g, n + "_w", {c, 1, 3, 3}), in(g, n + "_b", {c}), a));
}

// ShuffleNetV2 1.0x stages: [116, 232, 464] channels at [28, 14, 7], 4 + 8 + 4 units (stride-1 form).
Graph shufflenetV2() {
  Graph g;
  g.name = "shufflenetv2_sized";
  GraphBuilder b(g);
  int unit = 0;
  for (auto [c, hw, blocks] : {std::tuple{116, 28, 4}, std::tuple{232, 14, 8}, std::tuple{464, 7, 4}}) {
    TensorId x = in(g, "stage" + std::to_string(c), {1, c, hw, hw});
    for (int i = 0; i < blocks; ++i, ++unit) {
      std::string n = "u" + std::to_string(unit);
      b.setContext(n, "");
      auto halves = *b.split(x, 1, {c / 2, c / 2});
      TensorId y = pointwise(g, b, halves[1], c / 2, c / 2, n + "_pw1");
      y = ok(b.unary(ElementwiseOp::Relu, y));
      y = depthwise(g, b, y, c / 2, 1, n + "_dw");
      y = ok(b.unary(ElementwiseOp::Relu, pointwise(g, b, y, c / 2, c / 2, n + "_pw2")));
      TensorId cat = ok(b.concat({halves[0], y}, 1));
      x = ok(b.reshape(ok(b.transpose(ok(b.reshape(cat, {1, 2, c / 2, hw, hw})), {0, 2, 1, 3, 4})), {1, c, hw, hw}));
    }
    g.outputs.push_back(x);
  }
  return g;
}

// EfficientNet-B0-like MBConv blocks: expand (library), depthwise + swish, squeeze-excite (mean over
// the plane, two small matmuls), scale, project (library), residual.
Graph efficientnetB0() {
  Graph g;
  g.name = "efficientnetb0_sized";
  GraphBuilder b(g);
  int blk = 0;
  for (auto [c, hw, blocks] : {std::tuple{24, 56, 2}, std::tuple{40, 28, 2}, std::tuple{80, 14, 3}, std::tuple{112, 14, 3},
                               std::tuple{192, 7, 4}, std::tuple{320, 7, 2}}) {
    TensorId x = in(g, "stage" + std::to_string(c), {1, c, hw, hw});
    for (int i = 0; i < blocks; ++i, ++blk) {
      std::string n = "b" + std::to_string(blk);
      b.setContext(n, "");
      int64_t e = 6 * c;
      TensorId h = pointwise(g, b, x, c, e, n + "_expand");
      h = depthwise(g, b, h, e, 1, n + "_dw");
      h = ok(b.binary(ElementwiseOp::Mul, h, ok(b.unary(ElementwiseOp::Sigmoid, h))));
      TensorId s = ok(b.reshape(ok(b.reduce(ReduceOp::Sum, h, {2, 3}, false)), {1, e}));
      s = ok(b.unary(ElementwiseOp::Relu, ok(b.matmul(s, in(g, n + "_se1", {e, c / 4})))));
      s = ok(b.unary(ElementwiseOp::Sigmoid, ok(b.matmul(s, in(g, n + "_se2", {c / 4, e})))));
      h = ok(b.binary(ElementwiseOp::Mul, h, ok(b.broadcastTo(ok(b.reshape(s, {1, e, 1, 1})), {1, e, hw, hw}))));
      x = ok(b.binary(ElementwiseOp::Add, x, pointwise(g, b, h, e, c, n + "_project")));
    }
    g.outputs.push_back(x);
  }
  return g;
}

struct Row {
  std::string model;
  size_t subgraphs = 0, ops = 0;
  int64_t explored = 0, pruned = 0, kernels = 0, bytes = 0, minimal = 0, memoHits = 0;
  double seconds = 0, searchSeconds = 0, validateSeconds = 0;
  std::string failure;
};

// GIR_BENCH_VERBOSE=1 prints every subgraph's search on stderr (first repeat).
Row searchModel(const std::string& name, const Graph& g, const HardwareDesc& hw, int repeats) {
  static const bool verbose = std::getenv("GIR_BENCH_VERBOSE") != nullptr;
  Row r;
  r.model = name;
  auto pre = preprocess(g, hw);
  if (!pre) {
    r.failure = pre.error().str();
    return r;
  }
  r.subgraphs = pre->subgraphs.size();
  std::vector<double> times;
  for (int k = 0; k < repeats; ++k) {
    r.ops = r.memoHits = r.explored = r.pruned = r.kernels = r.bytes = r.minimal = 0;
    r.searchSeconds = r.validateSeconds = 0;
    auto start = std::chrono::steady_clock::now();
    search::SearchMemo memo;  // as the model planner does: repeated blocks are searched once
    search::SearchOptions options;
    options.memo = &memo;
    for (const auto& sub : pre->subgraphs) {
      r.ops += sub.ops.size();
      r.minimal += sub.minBytes;
      auto found = search::searchTemplates(g, sub, hw, options);
      if (!found) {
        r.failure = found.error().str();
        return r;
      }
      if (verbose && k == 0) {
        std::string choice;
        for (const auto& t : found->choice) choice += " " + t.str();
        std::fprintf(stderr, "  %s subgraph of %zu ops: explored %lld, memo %lld, search %.3f s, validate %.3f s, kernels %d, %.2fx minimal;%s\n",
                     name.c_str(), sub.ops.size(), static_cast<long long>(found->stats.explored), static_cast<long long>(found->stats.memoHits),
                     found->stats.seconds, found->stats.validateSeconds, found->cost.kernels,
                     static_cast<double>(found->cost.dramBytes) / static_cast<double>(std::max<int64_t>(1, sub.minBytes)), choice.c_str());
      }
      r.explored += found->stats.explored;
      r.memoHits += found->stats.memoHits;
      r.searchSeconds += found->stats.seconds;
      r.validateSeconds += found->stats.validateSeconds;
      r.pruned = std::min<int64_t>(INT64_MAX / 4, r.pruned + found->stats.pruned);
      r.kernels += found->cost.kernels;
      r.bytes += found->cost.dramBytes;
    }
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  r.seconds = gir::bench::median(times);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string target = argc > 1 ? argv[1] : "cpu-host";
  auto hw = loadHardwareByName(target);
  if (!hw) {
    std::fprintf(stderr, "%s\n", hw.error().str().c_str());
    return 2;
  }
  // An optional second argument keeps only the models whose name contains it (for profiling one).
  std::string only = argc > 2 ? argv[2] : "";
  auto wanted = [&](const std::string& name) { return name.find(only) != std::string::npos; };
  std::vector<Row> rows;
  for (const char* s : {"transformer_block", "gpt2_decode_attention", "efficientnet", "shufflenet", "bert_bias_residual_layernorm"}) {
    if (!wanted(s)) continue;
    auto g = importOnnxFile((fs::path(GIR_SOURCE_DIR) / "scenarios" / (std::string(s) + ".onnx")).string());
    if (!g) {
      std::fprintf(stderr, "%s\n", g.error().str().c_str());
      return 2;
    }
    rows.push_back(searchModel(s, *g, *hw, 3));
  }
  if (wanted("shufflenetv2_sized")) rows.push_back(searchModel("shufflenetv2_sized", shufflenetV2(), *hw, 3));
  if (wanted("efficientnetb0_sized")) rows.push_back(searchModel("efficientnetb0_sized", efficientnetB0(), *hw, 3));
  std::printf("GIR planner time per model on %s (median of 3 of the total; whole-subgraph search; search = choosing the templates,\n"
              "validate = memory model + reference evaluator on the chosen plan, both from the last repeat;\n"
              "repeats = subgraphs answered by the memo of an identical earlier one)\n", target.c_str());
  std::printf("%-28s %9s %7s %5s %8s %14s %7s %12s %9s %8s %8s %8s\n", "model", "subgraphs", "repeats", "ops", "explored", "pruned", "kernels", "dram_bytes",
              "x minimal", "search_s", "valid_s", "total_s");
  for (const auto& r : rows) {
    if (!r.failure.empty()) {
      std::printf("%-28s failed: %s\n", r.model.c_str(), r.failure.c_str());
      continue;
    }
    std::printf("%-28s %9zu %7lld %5zu %8lld %14lld %7lld %12lld %9.2f %8.3f %8.3f %8.3f\n", r.model.c_str(), r.subgraphs,
                static_cast<long long>(r.memoHits), r.ops, static_cast<long long>(r.explored),
                static_cast<long long>(r.pruned), static_cast<long long>(r.kernels), static_cast<long long>(r.bytes),
                r.minimal ? static_cast<double>(r.bytes) / static_cast<double>(r.minimal) : 0.0, r.searchSeconds, r.validateSeconds, r.seconds);
  }
  return 0;
}
