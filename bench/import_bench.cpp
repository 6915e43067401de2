// Benchmark (not a test): ONNX import + preprocessing time for the largest bundled scenario
// (by file size), median of repeated runs, on the cpu-host target description; then the reference
// evaluator's time on every bundled scenario (the ONNX tests check its values, this its speed).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "bench/BenchSupport.h"
#include "core/compute/Preprocess.h"
#include "core/compute/ReferenceEvaluator.h"
#include "core/onnx/OnnxImporter.h"

using namespace gir;
using namespace gir::compute;
namespace fs = std::filesystem;

namespace {

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

fs::path largestScenario() {
  fs::path best;
  for (const auto& e : fs::directory_iterator(fs::path(GIR_SOURCE_DIR) / "scenarios"))
    if (e.path().extension() == ".onnx" && (best.empty() || fs::file_size(e.path()) > fs::file_size(best))) best = e.path();
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
  fs::path model = largestScenario();
  auto hw = loadHardwareByName("cpu-host");
  if (model.empty() || !hw) {
    std::fprintf(stderr, "bench_import: no scenario or no cpu-host hardware description\n");
    return 2;
  }
  std::vector<double> importMs, preprocessMs, totalMs;
  size_t ops = 0, subgraphs = 0;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto g = importOnnxFile(model.string());
    if (!g) {
      std::fprintf(stderr, "%s\n", g.error().str().c_str());
      return 2;
    }
    double imported = msSince(start);
    auto mid = std::chrono::steady_clock::now();
    auto r = preprocess(*g, *hw);
    if (!r) return 2;
    preprocessMs.push_back(msSince(mid));
    importMs.push_back(imported);
    totalMs.push_back(msSince(start));
    ops = g->ops.size();
    subgraphs = r->subgraphs.size();
  }
  std::printf("scenario                    bytes    ops  subgraphs  import ms  preprocess ms  total ms (median of %d)\n", repeats);
  std::printf("%-24s %9ju %6zu %10zu %10.3f %14.3f %9.3f\n", model.filename().string().c_str(),
              static_cast<uintmax_t>(fs::file_size(model)), ops, subgraphs, gir::bench::median(importMs), gir::bench::median(preprocessMs),
              gir::bench::median(totalMs));
  std::printf("\nreference evaluator on random inputs (ms, median of 5)\n%-32s %8s %10s\n", "scenario", "ops", "evaluate");
  std::vector<fs::path> scenarios;
  for (const auto& e : fs::directory_iterator(fs::path(GIR_SOURCE_DIR) / "scenarios"))
    if (e.path().extension() == ".onnx") scenarios.push_back(e.path());
  std::sort(scenarios.begin(), scenarios.end());
  for (const auto& path : scenarios) {
    auto g = importOnnxFile(path.string());
    if (!g) continue;
    std::vector<TensorData> inputs;
    for (TensorId t : g->inputs) {
      TensorData d{DType::F32, g->tensor(t).dims, {}};
      d.values.assign(static_cast<size_t>(numElements(d.dims)), 0.5);
      inputs.push_back(std::move(d));
    }
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (!evaluate(*g, inputs)) break;
      ms.push_back(msSince(start));
    }
    if (!ms.empty()) std::printf("%-32s %8zu %10.1f\n", path.filename().string().c_str(), g->ops.size(), gir::bench::median(ms));
  }
  return 0;
}
