// `gir plan --library-epilogue` and `gir import --library-epilogue` end to end on the transformer
// block (cpu-host, where its eight matmuls are compute-bound): the JSON lists the folded ops per
// call, the plans stay valid, and without the flag nothing changes shape.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/cli/CliSupport.h"
#include "tests/support/TestSupport.h"

using gir::test::runGir;
using gir::test::sourcePath;

namespace {

nlohmann::json parseOrFail(const std::string& out) {
  auto j = nlohmann::json::parse(out, nullptr, false);
  INFO(out);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

}  // namespace

TEST_CASE("gir plan --library-epilogue --json lists the folded ops and plans the adjusted subgraphs", "[cli][plan][library-epilogue]") {
  const std::string model = sourcePath("scenarios/transformer_block.onnx");
  int rc = 0;
  auto off = parseOrFail(runGir("plan " + model + " --planner eager --json", rc));
  REQUIRE(rc == 0);
  CHECK_FALSE(off.contains("library_epilogues"));
  auto on = parseOrFail(runGir("plan " + model + " --planner eager --json --library-epilogue", rc));
  REQUIRE(rc == 0);
  REQUIRE(on.contains("library_epilogues"));
  const auto& calls = on["library_epilogues"]["calls"];
  REQUIRE(calls.size() == 7);  // every matmul but pv, whose output goes to a transpose
  bool sawFfn1 = false;
  for (const auto& c : calls) {
    if (c["library"] != "ffn1_matmul") continue;
    sawFfn1 = true;
    CHECK(c["ops"].size() == 7);  // bias broadcast and add, the five ops of the erf gelu
    CHECK(c["output"] == "ffn_act");
    CHECK(c["side_inputs"] == nlohmann::json::array({"ffn1_b"}));
  }
  CHECK(sawFfn1);
  CHECK(on["subgraphs"].size() + 1 == off["subgraphs"].size());  // the gelu subgraph is gone
  CHECK(on["minimal_bytes"] == on["library_epilogues"]["subgraph_min_bytes_after"]);
  CHECK(off["minimal_bytes"] == on["library_epilogues"]["subgraph_min_bytes_before"]);
  CHECK(on["planners"]["eager"]["valid"] == true);
  CHECK(on["planners"]["eager"]["dram_bytes"].get<int64_t>() < off["planners"]["eager"]["dram_bytes"].get<int64_t>());
  CHECK(on["planners"]["eager"]["kernels"].get<int64_t>() < off["planners"]["eager"]["kernels"].get<int64_t>());
}

TEST_CASE("gir import --library-epilogue prints the folded ops per call and the adjusted subgraphs", "[cli][import][library-epilogue]") {
  int rc = 0;
  std::string text = runGir("import " + sourcePath("scenarios/transformer_block.onnx") + " --library-epilogue", rc);
  REQUIRE(rc == 0);
  CHECK(text.find("library epilogues: 7 calls") != std::string::npos);
  CHECK(text.find("matmul 'ffn1_matmul' + 7 ops") != std::string::npos);
  CHECK(text.find("memory-bound subgraphs: 8") != std::string::npos);
  auto j = parseOrFail(runGir("import " + sourcePath("scenarios/transformer_block.onnx") + " --library-epilogue --json", rc));
  REQUIRE(rc == 0);
  CHECK(j["subgraphs"].size() == 8);
  CHECK(j["library_epilogues"]["calls"].size() == 7);
  // No compute-bound call on nvidia-h100: the flag folds nothing there.
  text = runGir("import " + sourcePath("scenarios/transformer_block.onnx") + " --target nvidia-h100 --library-epilogue", rc);
  REQUIRE(rc == 0);
  CHECK(text.find("library epilogues: 0 calls") != std::string::npos);
}
