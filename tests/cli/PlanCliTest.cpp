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
  CHECK(text.find("total over 1 of 1 subgraph(s): minimal") != std::string::npos);
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

// Partial coverage (issue #18): one subgraph that no planner lowers and one that only the GIR planner
// lowers no longer fail the model; each is listed with its reason and the totals say what they cover.
TEST_CASE("gir plan lists the subgraphs that do not lower and totals the others", "[cli][plan]") {
  int rc = 0;
  std::string model = sourcePath("tests/data/partial/partial_coverage.onnx");
  std::string text = runGir("plan " + model, rc);
  CHECK(rc == 0);
  CHECK_THAT(text, Catch::Contains("subgraph 0: 4 ops, minimal 4194304 B: GIR (") && Catch::Contains("), not compared: eager plan: ") &&
                       Catch::Contains("subgraph 1: 1 ops, minimal 2097156 B: not GIR: no GIR plan: ") &&
                       Catch::Contains("total over 1 of 3 subgraph(s) (the others are left out, above): minimal 2097152 B"));
  auto j = nlohmann::json::parse(runGir("plan " + model + " --json", rc), nullptr, false);
  REQUIRE(rc == 0);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["covered_subgraphs"] == 1);
  CHECK(j["minimal_bytes"] == 2097152);
  REQUIRE(j["not_covered"].size() == 2);
  CHECK(j["not_covered"][0]["index"] == 0);
  CHECK(j["not_covered"][0]["gir"] == true);
  CHECK(j["not_covered"][0]["failed_planner"] == "eager");
  CHECK(j["not_covered"][1]["gir"] == false);
  CHECK(j["not_covered"][1]["failed_planner"] == "gir");
  CHECK(j["subgraphs"].size() == 1);
  // The GIR planner alone covers subgraphs 0 and 2: nothing is left to compare against.
  auto gir = nlohmann::json::parse(runGir("plan " + model + " --planner gir --json", rc), nullptr, false);
  CHECK(rc == 0);
  REQUIRE_FALSE(gir.is_discarded());
  CHECK(gir["covered_subgraphs"] == 2);
  REQUIRE(gir["not_covered"].size() == 1);
  CHECK(gir["not_covered"][0]["index"] == 1);
  // A baseline alone: its failures are "not planned", not "not GIR" (the GIR planner was not asked).
  std::string eager = runGir("plan " + model + " --planner eager", rc);
  CHECK(rc == 0);
  CHECK_THAT(eager, Catch::Contains("subgraph 0: 4 ops, minimal 4194304 B: not planned: eager plan: ") &&
                        Catch::Contains("total over 1 of 3 subgraph(s)"));
  CHECK(eager.find("not GIR") == std::string::npos);
}

TEST_CASE("gir lower --print-after-each prints the IR after import, preprocess, lower and greedy", "[cli]") {
  int code = -1;
  std::string out = gir::test::runGir("lower " + gir::test::sourcePath("scenarios/layernorm.onnx") +
                                          " --target cpu-host --templates rows --print-after-each -o /dev/null",
                                      code);
  INFO(out);
  CHECK(code == 0);
  size_t at = 0;
  for (const char* step : {"# after import", "# after preprocess", "# after lower", "# after greedy"}) {
    size_t next = out.find(step, at);
    CHECK(next != std::string::npos);
    at = next == std::string::npos ? at : next;
  }
}
