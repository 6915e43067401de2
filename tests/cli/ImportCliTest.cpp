// `gir import` end to end: scenarios print their summary (text, --json, --dot) and exit 0; every
// malformed model of tests/data/onnx-bad/ exits 2 with its message and never crashes (this area
// also runs under ASan/UBSan in scripts/test.sh).
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/CliSupport.h"
#include "tests/support/TestSupport.h"

using gir::test::runGir;

using gir::test::sourcePath;

TEST_CASE("gir import prints the ShuffleNet summary", "[cli][import]") {
  int rc = 0;
  std::string out = runGir("import " + sourcePath("scenarios/shufflenet.onnx") + " --target nvidia-a100", rc);
  CHECK(rc == 0);
  CHECK(out.find("memory-bound subgraphs: 1") != std::string::npos);
  CHECK(out.find("minimal DRAM bytes 1455104") != std::string::npos);
}

TEST_CASE("gir import --json and --dot", "[cli][import]") {
  int rc = 0;
  std::string json = runGir("import " + sourcePath("scenarios/efficientnet.onnx") + " --target nvidia-a100 --json", rc);
  CHECK(rc == 0);
  CHECK(json.find("\"decision\": \"compute-bound\"") != std::string::npos);
  CHECK(json.find("\"decision\": \"memory-bound\"") != std::string::npos);
  auto parsed = nlohmann::json::parse(json, nullptr, false);
  REQUIRE_FALSE(parsed.is_discarded());
  CHECK(parsed["subgraphs"].size() == 1);
  CHECK(parsed["library_calls"].size() == 3);
  std::string dot = runGir("import " + sourcePath("scenarios/efficientnet.onnx") + " --dot", rc);
  CHECK(rc == 0);
  CHECK(dot.rfind("digraph", 0) == 0);
  CHECK(dot.find("cluster_0") != std::string::npos);
}

TEST_CASE("gir import usage errors exit 2", "[cli][import]") {
  int rc = 0;
  runGir("import", rc);
  CHECK(rc == 2);
  std::string out = runGir("import " + sourcePath("scenarios/silu.onnx") + " --target no-such-target", rc);
  CHECK(rc == 2);
  runGir("import " + sourcePath("scenarios/silu.onnx") + " --json --dot", rc);
  CHECK(rc == 2);
}

TEST_CASE("gir import refuses every malformed model with exit 2 and its message", "[cli][import][bad-input]") {
  std::ifstream in(sourcePath("tests/data/onnx-bad/expected.tsv"));
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::string file = line.substr(0, tab), text = line.substr(tab + 1);
    int rc = 0;
    std::string out = runGir("import " + sourcePath("tests/data/onnx-bad/" + file), rc);
    INFO(file << ": " << out);
    CHECK(rc == 2);  // not 1, not a signal (a crash or a sanitizer report reads 128+)
    CHECK(out.find("error: ") != std::string::npos);
    CHECK(out.find(text) != std::string::npos);
    ++cases;
  }
  CHECK(cases >= 20);
}
