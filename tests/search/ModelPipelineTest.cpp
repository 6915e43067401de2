// The model pipeline (search/ModelPipeline.h): import -> preprocess -> lower -> greedy, each step's IR
// offered in order; a subgraph index out of range is an error at the model file; the row templates'
// greedy run and the search's own greedy both leave a graph that still computes the reference.
#include <catch2/catch.hpp>

#include "core/gir/Verifier.h"
#include "rewrite/Cost.h"
#include "search/ModelPipeline.h"
#include "search/templates/SubgraphCheck.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

HardwareDesc cpuHost() {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw.ok());
  return *hw;
}

}  // namespace

TEST_CASE("the model pipeline prints the IR after every step, in order", "[search][pipeline]") {
  HardwareDesc hw = cpuHost();
  std::vector<std::string> steps;
  std::string lowered, greedy;
  search::PrintAfter print = [&](const std::string& step, const std::string& ir) {
    steps.push_back(step);
    CHECK_FALSE(ir.empty());
    if (step == "lower") lowered = ir;
    if (step == "greedy") greedy = ir;
  };
  auto m = search::importModel(test::sourcePath("scenarios/layernorm.onnx"), hw, print);
  REQUIRE(m.ok());
  for (auto lowering : {search::LowerWith::RowTemplates, search::LowerWith::SearchedTemplates}) {
    steps.resize(2);
    search::CompileOptions co;
    co.lowering = lowering;
    co.printAfter = print;
    auto c = search::compileSubgraph(*m, 0, hw, co);
    INFO((c ? "" : c.error().str()));
    REQUIRE(c.ok());
    CHECK(steps == std::vector<std::string>{"import", "preprocess", "lower", "greedy"});
    CHECK(lowered.rfind("gir @layernorm", 0) == 0);  // the printed GIR, header first
    CHECK(verifyGraph(c->optimized).ok());
    // Greedy only removes traffic and kernels here: never more DRAM bytes than the lowered graph.
    CHECK(computeCost(c->optimized, &hw).dramBytes <= computeCost(c->lowered.gir, &hw).dramBytes);
    CHECK(lowered != greedy);
    auto check = search::checkAgainstReference(m->model, m->pre.subgraphs[0], c->lowered, c->optimized, 1);
    INFO((check ? "" : check.error().str()));
    CHECK(check.ok());
  }
}

TEST_CASE("the model pipeline names the model file and the subgraph count for a bad index", "[search][pipeline]") {
  HardwareDesc hw = cpuHost();
  std::string path = test::sourcePath("scenarios/layernorm.onnx");
  auto m = search::importModel(path, hw);
  REQUIRE(m.ok());
  for (int64_t bad : {int64_t{-1}, static_cast<int64_t>(m->pre.subgraphs.size())}) {
    auto c = search::compileSubgraph(*m, bad, hw, {});
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().location.file == path);
    CHECK(c.error().message.find("memory-bound subgraph(s); there is no subgraph " + std::to_string(bad)) != std::string::npos);
  }
  auto missing = search::importModel(test::sourcePath("scenarios/no_such_model.onnx"), hw);
  CHECK_FALSE(missing.ok());
}

TEST_CASE("without greedy the pipeline stops at the lowered GIR", "[search][pipeline]") {
  HardwareDesc hw = cpuHost();
  auto m = search::importModel(test::sourcePath("scenarios/softmax.onnx"), hw);
  REQUIRE(m.ok());
  search::CompileOptions co;
  co.lowering = search::LowerWith::RowTemplates;
  co.greedy = false;
  auto c = search::compileSubgraph(*m, 0, hw, co);
  REQUIRE(c.ok());
  CHECK(c->greedy.steps == 0);
  CHECK(computeCost(c->optimized, &hw).kernels == computeCost(c->lowered.gir, &hw).kernels);
}
