// `gir plan` end to end: a scenario's JSON parses and holds the totals per planner, the text form
// shows the decision log with rule ids, and bad input exits 2 with a message (this area also runs
// under ASan/UBSan in scripts/test.sh).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/cli/CliSupport.h"
#include "tests/support/TestSupport.h"

using gir::test::runGir;

using gir::test::sourcePath;

TEST_CASE("gir plan --json: softmax has the E1 kernel counts and the byte orderings", "[cli][plan]") {
  int rc = 0;
  std::string out = runGir("plan " + sourcePath("scenarios/softmax.onnx") + " --json", rc);
  REQUIRE(rc == 0);
  auto j = nlohmann::json::parse(out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  REQUIRE(j.contains("minimal_bytes"));
  int64_t minimal = j["minimal_bytes"].get<int64_t>();
  CHECK(minimal > 0);
  for (const char* name : {"eager", "xla", "tvm"}) {
    INFO(name);
    REQUIRE(j["planners"].contains(name));
    CHECK(j["planners"][name]["dram_bytes"].get<int64_t>() >= minimal);
  }
  // softmax.onnx is E1 (docs/baselines.md, "Worked examples E1-E6"): a max, a subtract, an exp, a sum and a divide.
  CHECK(j["planners"]["eager"]["kernels"] == 5);
  CHECK(j["planners"]["tvm"]["kernels"] == 4);
  CHECK(j["planners"]["xla"]["kernels"] == 3);
  CHECK(j["planners"]["tvm"]["dram_bytes"].get<int64_t>() <= j["planners"]["eager"]["dram_bytes"].get<int64_t>());
  REQUIRE(j["subgraphs"].is_array());
  CHECK(j["subgraphs"].size() >= 1);
}

TEST_CASE("gir plan --planner picks one planner, --decisions logs rule ids", "[cli][plan]") {
  int rc = 0;
  std::string out = runGir("plan " + sourcePath("scenarios/layernorm.onnx") + " --planner tvm --json", rc);
  REQUIRE(rc == 0);
  auto j = nlohmann::json::parse(out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["planners"].size() == 1);
  CHECK(j["planners"].contains("tvm"));
  std::string text = runGir("plan " + sourcePath("scenarios/softmax.onnx") + " --decisions", rc);
  CHECK(rc == 0);
  CHECK(text.find("tvm.path_not_injective") != std::string::npos);
  CHECK(text.find("xla.merged_into_users") != std::string::npos);
  CHECK(text.find("total: minimal") != std::string::npos);
}

TEST_CASE("gir plan on bad input exits 2 with a message", "[cli][plan]") {
  int rc = 0;
  std::string out = runGir("plan " + sourcePath("tests/data/no-such-model.onnx"), rc);
  CHECK(rc == 2);
  CHECK(out.find("error") != std::string::npos);
  out = runGir("plan " + sourcePath("scenarios/softmax.onnx") + " --planner fastest", rc);
  CHECK(rc == 2);
  CHECK(out.find("unknown planner") != std::string::npos);
  out = runGir("plan", rc);
  CHECK(rc == 2);
  out = runGir("plan " + sourcePath("scenarios/softmax.onnx") + " --target no-such-target", rc);
  CHECK(rc == 2);
}
