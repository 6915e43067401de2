// Every bundled scenario (scenarios/*.onnx), imported and preprocessed for cpu-host, plans with
// all three baselines on every memory-bound subgraph without error; each plan covers the
// subgraph, stays above the lower bound, and tvm-like never duplicates a node.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::compute;

namespace {

std::vector<std::string> scenarioFiles() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath("scenarios")))
    if (e.path().extension() == ".onnx") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("every bundled scenario plans with every baseline", "[baselines][scenarios]") {
  auto hw = test::valueOrFail(loadHardwareByName("cpu-host"));
  std::vector<std::string> files = scenarioFiles();
  REQUIRE(files.size() >= 10);
  for (const std::string& file : files) {
    INFO(file);
    Graph g = test::valueOrFail(importOnnxFile(file));
    PreprocessResult pre = test::valueOrFail(preprocess(g, hw));
    REQUIRE(!pre.subgraphs.empty());
    for (size_t s = 0; s < pre.subgraphs.size(); ++s) {
      auto p = test::valueOrFail(search::makeProblem(g, pre.subgraphs[s], "subgraph " + std::to_string(s)));
      // The planners' lower bound is the preprocessing's minimal bytes up to scalar constants,
      // which they fold into consumers.
      CHECK(search::lowerBoundBytes(p) <= pre.subgraphs[s].minBytes);
      std::map<std::string, search::PlanTotals> totals;
      for (const std::string& name : search::baselinePlannerNames()) {
        INFO(name << " on subgraph " << s);
        search::Plan plan = test::planOrFail(name, p);
        totals[name] = plan.totals;
        CHECK(plan.totals.kernels >= 1);
        CHECK(plan.lowerBound <= plan.totals.dramBytes());
        size_t instances = plan.views.size();
        for (const auto& k : plan.kernels) instances += k.instances.size();
        if (name == "tvm") CHECK(instances == p.nodes.size());
        else CHECK(instances >= p.nodes.size());
      }
      // The random-DAG orderings hold on every bundled subgraph. (A Split whose slices cannot fuse
      // could break them, since eager writes all its outputs in one kernel: docs/baselines.md, "Tests".)
      CHECK(totals["xla"].kernels <= totals["eager"].kernels);
      CHECK(totals["tvm"].kernels <= totals["eager"].kernels);
      CHECK(totals["tvm"].dramBytes() <= totals["eager"].dramBytes());
    }
  }
}
