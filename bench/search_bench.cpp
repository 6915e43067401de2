// Benchmark (not a test): the GIR planner's time and peak memory per model (the template search over
// every memory-bound subgraph, whole subgraph, with the validation of the chosen plan and, for large
// subgraphs, the full-size symbolic check; no baselines) on the bundled scenarios, two synthetic
// networks built directly, the DRAM-scale set (scenarios/scale) and the full models
// (scenarios/make_models.py, made on first use under the build directory). Each model runs in a
// child process of its own. Goals (docs/scale.md): a DRAM-scale subgraph under 0.2 s, a full model
// under 1 s and 1 GB.
#include <chrono>
#include <functional>
#include <iomanip>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
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
#include "core/gir/SymbolicCheck.h"
#include "core/onnx/OnnxImporter.h"
#include "search/GirSearch.h"

using gir::ElementwiseOp;
using gir::Expected;
using gir::Status;
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
  double pruned = 0;
  int64_t explored = 0, kernels = 0, bytes = 0, minimal = 0, memoHits = 0, reduced = 0, inconclusive = 0;
  double seconds = 0, searchSeconds = 0, validateSeconds = 0, checkSeconds = 0;
  long peakKb = 0;
  std::string failure;
};

double since(std::chrono::steady_clock::time_point start) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }

// One subgraph as the GIR planner takes it: the search (on the reduced instance when the subgraph
// is large), and for a large one the full-size symbolic check that the planner adds (docs/scale.md).
Status planOne(const Graph& g, const Subgraph& sub, const HardwareDesc& hw, search::SearchOptions& options, Row& r, bool verbose) {
  auto found = search::searchTemplates(g, sub, hw, options);
  if (!found) return found.takeError();
  if (!found->stats.reducedInstance.empty()) {
    ++r.reduced;
    auto start = std::chrono::steady_clock::now();
    auto report = gir::checkMemoryModelSymbolic(found->optimized);
    r.checkSeconds += since(start);
    // As the planner does (ScaleCheck.h): isl over its operation budget leaves the plan to the
    // verifier and the reduced instance, and the table counts it.
    if (!report) ++r.inconclusive;
    else if (!report->clean()) return gir::makeError("the full-size plan is not clean: " + report->str());
  }
  if (verbose) {
    std::string choice;
    for (const auto& t : found->choice) choice += " " + t.str();
    std::fprintf(stderr, "  %s subgraph of %zu ops: explored %lld, memo %lld, search %.3f s, validate %.3f s, kernels %d, %.2fx minimal;%s%s\n",
                 r.model.c_str(), sub.ops.size(), static_cast<long long>(found->stats.explored), static_cast<long long>(found->stats.memoHits),
                 found->stats.seconds, found->stats.validateSeconds, found->cost.kernels,
                 static_cast<double>(found->cost.dramBytes) / static_cast<double>(std::max<int64_t>(1, sub.minBytes)), choice.c_str(),
                 found->stats.reducedInstance.empty() ? "" : (" [reduced: " + found->stats.reducedInstance + "]").c_str());
  }
  r.explored += found->stats.explored;
  r.memoHits += found->stats.memoHits;
  r.searchSeconds += found->stats.seconds;
  r.validateSeconds += found->stats.validateSeconds;
  r.pruned += found->stats.pruned;
  r.kernels += found->cost.kernels;
  r.bytes += found->cost.dramBytes;
  return gir::success();
}

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
    r.ops = r.memoHits = r.explored = r.kernels = r.bytes = r.minimal = r.reduced = r.inconclusive = 0;
    r.pruned = 0;
    r.searchSeconds = r.validateSeconds = r.checkSeconds = 0;
    auto start = std::chrono::steady_clock::now();
    search::SearchMemo memo;  // as the model planner does: repeated blocks are searched once
    search::SearchOptions options;
    options.memo = &memo;
    for (size_t i = 0; i < pre->subgraphs.size(); ++i) {
      const auto& sub = pre->subgraphs[i];
      r.ops += sub.ops.size();
      r.minimal += sub.minBytes;
      if (auto st = planOne(g, sub, hw, options, r, verbose && k == 0); !st) {
        r.failure = "subgraph " + std::to_string(i) + ": " + st.error().str();
        r.seconds = since(start);
        return r;
      }
    }
    times.push_back(since(start));
  }
  r.seconds = gir::bench::median(times);
  return r;
}

// The row's numbers in one order, for the child to write and the parent to read back.
template <typename F>
void forEachNumber(Row& r, F&& f) {
  f(r.subgraphs), f(r.ops), f(r.explored), f(r.pruned), f(r.kernels), f(r.bytes), f(r.minimal), f(r.memoHits), f(r.reduced), f(r.inconclusive);
  f(r.seconds), f(r.searchSeconds), f(r.validateSeconds), f(r.checkSeconds);
}

// Each model in a child process of its own, so that its peak resident memory is its own.
Row measured(const std::function<Row()>& run) {
  int fds[2];
  if (pipe(fds) != 0) return run();
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Row r = run();
    std::ostringstream os;
    os << std::setprecision(17);
    forEachNumber(r, [&](auto& v) { os << v << ' '; });
    os << '\n' << r.model << '\n' << r.failure;
    std::string text = os.str();
    if (write(fds[1], text.data(), text.size()) < 0) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  Row r;
  std::istringstream is(text);
  forEachNumber(r, [&](auto& v) { is >> v; });
  if (!is || !std::getline(is >> std::ws, r.model)) {
    r.failure = "the measuring process died (status " + std::to_string(status) + ")";
    return r;
  }
  std::getline(is, r.failure, '\0');
  r.peakKb = usage.ru_maxrss;
  return r;
}

// The full models are 10-60 MB of random weights: made on first use, never committed.
std::vector<fs::path> fullModels() {
  fs::path dir = fs::path(GIR_BINARY_DIR) / "models";
  if (!fs::exists(dir / "gpt2_decode_b8.onnx")) {
    std::string cmd = "/usr/bin/python3 " + (fs::path(GIR_SOURCE_DIR) / "scenarios" / "make_models.py").string() + " " + dir.string() + " 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not make the full models (%s)\n", cmd.c_str());
  }
  std::vector<fs::path> out;
  for (const char* m : {"shufflenet_v2_x1_0", "efficientnet_b0", "vit_small", "bert_encoder", "gpt2_decode_b1", "gpt2_decode_b8"})
    if (fs::exists(dir / (std::string(m) + ".onnx"))) out.push_back(dir / (std::string(m) + ".onnx"));
  return out;
}

std::vector<fs::path> scaleScenarios() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(GIR_SOURCE_DIR) / "scenarios" / "scale"))
    if (e.path().extension() == ".onnx") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

Row importAndSearch(const fs::path& file, const HardwareDesc& hw, int repeats) {
  auto g = importOnnxFile(file.string());
  if (!g) {
    Row r;
    r.model = file.stem().string();
    r.failure = g.error().str();
    return r;
  }
  return searchModel(file.stem().string(), *g, hw, repeats);
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
    fs::path file = fs::path(GIR_SOURCE_DIR) / "scenarios" / (std::string(s) + ".onnx");
    rows.push_back(measured([&] { return importAndSearch(file, *hw, 3); }));
  }
  if (wanted("shufflenetv2_sized")) rows.push_back(measured([&] { return searchModel("shufflenetv2_sized", shufflenetV2(), *hw, 3); }));
  if (wanted("efficientnetb0_sized")) rows.push_back(measured([&] { return searchModel("efficientnetb0_sized", efficientnetB0(), *hw, 3); }));
  for (const auto& file : scaleScenarios())
    if (wanted(file.stem().string())) rows.push_back(measured([&] { return importAndSearch(file, *hw, 1); }));
  for (const auto& file : fullModels())
    if (wanted(file.stem().string())) rows.push_back(measured([&] { return importAndSearch(file, *hw, 1); }));
  std::printf("GIR planner time per model on %s (median of 3 for the bundled scenarios, 1 run for the DRAM-scale set and the full models;\n"
              "whole-subgraph search; search = choosing the templates, validate = memory model + reference evaluator on the chosen plan\n"
              "(on the reduced instance for large subgraphs), check = the full-size symbolic memory-model check of those;\n"
              "repeats = subgraphs answered by the memo; reduced = subgraphs searched on a reduced instance; isl_gave_up = of those, checks\n"
              "the integer-set library gave up on (its operation budget: verifier and reduced instance only); peak = the process's max RSS)\n",
              target.c_str());
  std::printf("%-40s %5s %7s %7s %11s %5s %8s %7s %12s %9s %8s %8s %8s %8s %8s\n", "model", "subg", "repeats", "reduced", "isl_gave_up", "ops",
              "explored", "kernels", "dram_bytes", "x minimal", "search_s", "valid_s", "check_s", "total_s", "peak_MB");
  for (const auto& r : rows) {
    if (!r.failure.empty()) {
      std::printf("%-40s failed after %.3f s, peak %.0f MB: %s\n", r.model.c_str(), r.seconds, static_cast<double>(r.peakKb) / 1024.0,
                  r.failure.substr(0, 300).c_str());
      continue;
    }
    std::printf("%-40s %5zu %7lld %7lld %11lld %5zu %8lld %7lld %12lld %9.2f %8.3f %8.3f %8.3f %8.3f %8.0f\n", r.model.c_str(), r.subgraphs,
                static_cast<long long>(r.memoHits), static_cast<long long>(r.reduced), static_cast<long long>(r.inconclusive), r.ops, static_cast<long long>(r.explored),
                static_cast<long long>(r.kernels), static_cast<long long>(r.bytes),
                r.minimal ? static_cast<double>(r.bytes) / static_cast<double>(r.minimal) : 0.0, r.searchSeconds, r.validateSeconds,
                r.checkSeconds, r.seconds, static_cast<double>(r.peakKb) / 1024.0);
  }
  return 0;
}
