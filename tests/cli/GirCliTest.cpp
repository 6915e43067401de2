// `gir` on good files exits 0 and on the bad-input corpus exits 2 with a clear message (run under ASan too).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "tests/cli/CliSupport.h"
#include "tests/support/TestSupport.h"

using gir::test::runGir;

using namespace gir;

namespace {

struct BadCase {
  std::string file, expect;
};

// tests/data/gir-bad/MANIFEST: "file | expected message fragment" per line.
std::vector<BadCase> badCases() {
  std::vector<BadCase> out;
  std::ifstream in(test::sourcePath("tests/data/gir-bad/MANIFEST"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto bar = line.find(" | ");
    if (bar == std::string::npos) continue;
    out.push_back({line.substr(0, bar), line.substr(bar + 3)});
  }
  return out;
}

}  // namespace

TEST_CASE("gir check on the bundled examples", "[cli]") {
  int code = -1;
  std::string out = runGir("check " + test::sourcePath("tests/golden/gir/softmax_block.gir"), code);
  INFO(out);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("memory model: ok"));
  out = runGir("check " + test::sourcePath("tests/golden/gir/softmax_race.gir"), code);
  CHECK(code == 1);
  CHECK_THAT(out, Catch::Contains("race:") && Catch::Contains("pmax_s"));
}

TEST_CASE("gir check --symbolic: verifier and symbolic checker only, the same exit codes", "[cli][symbolic]") {
  int code = -1;
  std::string out = runGir("check --symbolic " + test::sourcePath("tests/golden/gir/softmax_block.gir"), code);
  INFO(out);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("memory model (symbolic): ok"));
  CHECK_THAT(out, !Catch::Contains("output %"));  // nothing was run
  out = runGir("check --symbolic " + test::sourcePath("tests/golden/gir/softmax_race.gir"), code);
  CHECK(code == 1);
  CHECK_THAT(out, Catch::Contains("race:") && Catch::Contains("pmax_s"));
}

TEST_CASE("gir convert text -> JSON -> text is exact", "[cli]") {
  int code = -1;
  std::string json = test::binaryPath("tests/relu-roundtrip.json"), text = test::binaryPath("tests/relu-roundtrip.gir");
  runGir("convert " + test::sourcePath("tests/golden/gir/relu.gir") + " -o " + json, code);
  REQUIRE(code == 0);
  runGir("convert " + json + " -o " + text, code);
  REQUIRE(code == 0);
  std::string printed = runGir("print " + test::sourcePath("tests/golden/gir/relu.gir"), code);
  CHECK(test::readText(text) == printed);
}

TEST_CASE("usage errors exit 2", "[cli]") {
  int code = -1;
  runGir("", code);
  CHECK(code == 2);
  std::string out = runGir("frobnicate", code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("unknown command"));
  runGir("check", code);
  CHECK(code == 2);
  runGir("check --bogus x.gir", code);
  CHECK(code == 2);
  out = runGir("check /nonexistent/file.gir", code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("/nonexistent/file.gir"));
}

TEST_CASE("integer options are checked: not a number, trailing text, out of range", "[cli][malformed]") {
  // strtoull read "abc" as seed 0 and "3x" as site 3 without a word (issue #17).
  std::string relu = test::sourcePath("tests/golden/gir/relu.gir");
  std::string model = test::sourcePath("scenarios/softmax.onnx");
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"check " + relu + " --seed abc", "--seed expects a non-negative integer, got 'abc'"},
      {"check " + relu + " --seed -1", "--seed expects a non-negative integer, got '-1'"},
      {"opt " + relu + " --rule merge --site 3x", "--site expects a non-negative integer, got '3x'"},
      {"opt " + relu + " --greedy --seed 99999999999999999999", "got '99999999999999999999'"},
      {"lower " + model + " --rows-per-unit two", "--rows-per-unit expects a non-negative integer"},
      {"run " + model + " --threads 1e3", "--threads expects a non-negative integer, got '1e3'"},
      {"run " + model + " --threads 100000", "--threads expects at most 4096, got 100000"},
  };
  for (const Case& c : cases) {
    int code = -1;
    std::string out = runGir(c.args, code);
    INFO(c.args << "\n" << out);
    CHECK(code == 2);
    CHECK_THAT(out, Catch::Contains(c.expect));
  }
}

TEST_CASE("every malformed GIR or hardware file gives a clear message and exit code 2", "[cli][malformed]") {
  auto cases = badCases();
  REQUIRE(cases.size() >= 25);
  for (const auto& c : cases) {
    std::string path = test::sourcePath("tests/data/gir-bad/" + c.file);
    bool isHardware = c.file.rfind("hw-", 0) == 0;
    int code = -1;
    std::string out = runGir((isHardware ? "hardware " : "check ") + path, code);
    INFO(c.file << "\n" << out);
    CHECK(code == 2);
    CHECK_THAT(out, Catch::Contains("error:") && Catch::Contains(c.expect));
  }
}

TEST_CASE("gir check refuses a valid graph over the interpreter's budget before allocating, and --symbolic checks it", "[cli][malformed]") {
  // Valid graphs (the app opens them, codegen emits them) that the interpreter cannot hold or finish:
  // a 400 GB input used to die in std::bad_alloc, 2^31 - 1 units used to run for minutes (issue #19).
  for (auto [file, limit] : {std::pair{"buffer-over-interpreter-budget.gir", "over the interpreter's budget of 4294967296 bytes (kInterpreterBudgetBytes)"},
                             std::pair{"units-over-interpreter-budget.gir", "the interpreter's budget (kInterpreterBudgetElements)"}}) {
    std::string path = test::sourcePath(std::string("tests/data/gir-budget/") + file);
    int code = -1;
    std::string out = runGir("check " + path, code);
    INFO(file << "\n" << out);
    CHECK(code == 2);
    CHECK_THAT(out, Catch::Contains(limit) && Catch::Contains("gir check --symbolic"));
    out = runGir("check " + path + " --symbolic", code);
    CHECK((code == 0 || code == 1));  // a verdict (these toy graphs race: every unit writes %y's first elements)
    CHECK_THAT(out, Catch::Contains("memory model (symbolic)"));
  }
}

TEST_CASE("gir opt: greedy with verification, trace and replay", "[cli]") {
  int code = -1;
  std::string file = test::sourcePath("tests/golden/gir/shufflenet_source.gir");
  std::string trace = test::binaryPath("tests/shufflenet-trace.json"), out1 = test::binaryPath("tests/shufflenet-greedy.gir"),
              out2 = test::binaryPath("tests/shufflenet-replayed.gir");
  std::string out = runGir("opt " + file + " --greedy --verify-each --trace " + trace + " -o " + out1, code);
  INFO(out);
  REQUIRE(code == 0);
  CHECK_THAT(out, Catch::Contains("after: kernels 1, dram bytes 1455104"));
  CHECK_THAT(out, Catch::Contains("verified"));
  out = runGir("opt " + file + " --replay " + trace + " --quiet -o " + out2, code);
  REQUIRE(code == 0);
  CHECK(test::readText(out1) == test::readText(out2));
  CHECK_FALSE(test::readText(out1).empty());
}

TEST_CASE("gir opt --print-after-each prints the graph after every step", "[cli]") {
  // It printed only the final graph, once (issue #17).
  int code = -1;
  std::string file = test::sourcePath("tests/golden/gir/shufflenet_source.gir");
  std::string final = test::binaryPath("tests/shufflenet-print-after-each.gir");
  std::string out = runGir("opt " + file + " --greedy --print-after-each -o " + final, code);
  INFO(out);
  REQUIRE(code == 0);
  size_t steps = test::countOf(out, "\nstep ");
  REQUIRE(steps >= 2);
  CHECK(test::countOf(out, "gir @") == steps);
  // Graphs follow their step lines; the last is the graph written to -o, the first differs from it.
  size_t first = out.find("gir @"), last = out.rfind("gir @");
  std::string lastGraph = out.substr(last, out.find("\nafter: ") - last);
  CHECK(lastGraph == test::readText(final));
  CHECK(out.substr(first, lastGraph.size()) != lastGraph);
}

TEST_CASE("gir opt --debug-rewrites says on stderr why the final graph's candidate anchors gave no site", "[cli]") {
  int code = -1;
  // Indexed by destination, greedy stops at three kernels: both device syncs exchange across blocks.
  std::string out = runGir("opt " + test::sourcePath("tests/golden/gir/shufflenet_dest.gir") + " --greedy --quiet --debug-rewrites", code);
  INFO(out);
  REQUIRE(code == 0);
  CHECK_THAT(out, Catch::Contains("sync-insertion: node #3 (sync device (%s3) -> (%s6)): buffer %c: the exchange needs device scope and the sync already is device"));
  CHECK_THAT(out, Catch::Contains("sync-insertion: node #6 (sync device (%s7) -> (%s8, %s9)): buffer %t: the exchange needs device scope"));
  // Indexed by source it reaches one kernel: no sync is left to refuse, only the final stores.
  out = runGir("opt " + test::sourcePath("tests/golden/gir/shufflenet_source.gir") + " --greedy --quiet --debug-rewrites", code);
  REQUIRE(code == 0);
  CHECK(test::countOf(out, "sync-insertion:") == 0);
  CHECK(test::countOf(out, "the movement writes a graph input or output, not a temporary") == 4);
  // Without the flag, nothing of it.
  out = runGir("opt " + test::sourcePath("tests/golden/gir/shufflenet_source.gir") + " --greedy --quiet", code);
  CHECK(test::countOf(out, "match refusals") == 0);
}

TEST_CASE("gir opt: listing, a missing site, a bad trace", "[cli][malformed]") {
  int code = -1;
  std::string file = test::sourcePath("tests/golden/gir/softmax_device.gir");
  std::string out = runGir("opt " + file + " --list", code);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("sync-insertion --site 0") && Catch::Contains("block scope"));
  out = runGir("opt " + file + " --rule sync-insertion --site 9", code);
  CHECK(code == 1);
  CHECK_THAT(out, Catch::Contains("there is no site 9"));
  out = runGir("opt " + file + " --rule no-such-rule", code);
  CHECK(code == 1);
  CHECK_THAT(out, Catch::Contains("unknown rule 'no-such-rule'"));
  std::string bad = test::binaryPath("tests/bad-trace.json");
  test::writeText(bad, "{\"steps\": [{\"rule\": 3}]}");
  out = runGir("opt " + file + " --replay " + bad, code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("steps[0]"));
  test::writeText(bad, "{\"gir_trace\": 1, \"steps\": [");
  out = runGir("opt " + file + " --replay " + bad, code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("not valid JSON"));
}

TEST_CASE("gir lower: a model's subgraph becomes GIR that gir opt fuses to the minimal bytes", "[cli]") {
  int code = -1;
  std::string gir = test::binaryPath("tests/softmax-lowered.gir");
  std::string out = runGir("lower " + test::sourcePath("scenarios/softmax.onnx") + " -o " + gir, code);
  INFO(out);
  REQUIRE(code == 0);
  out = runGir("check " + gir + " --quiet", code);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("7 kernel(s)") && Catch::Contains("memory model: ok"));
  out = runGir("opt " + gir + " --greedy --verify-each --quiet", code);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("after: kernels 1, dram bytes 524288"));
}

TEST_CASE("gir lower: bad requests exit 2 naming the problem", "[cli][malformed]") {
  int code = -1;
  std::string model = test::sourcePath("scenarios/softmax.onnx");
  std::string out = runGir("lower " + model + " --subgraph 9", code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("there is no subgraph 9"));
  out = runGir("lower " + model + " --rows-per-unit x", code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("--rows-per-unit expects"));
  out = runGir("lower " + model + " --templates rows --rows-per-unit 7", code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("do not split into units of 7 rows"));
  // A plan that fails says which target it was planned for, and that the GPU default can be changed.
  CHECK_THAT(out, Catch::Contains("planned for target nvidia-h100 (the default; --target picks another)"));
  out = runGir("lower " + model + " --target cpu-host --templates rows --rows-per-unit 7", code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("planned for target cpu-host") && !Catch::Contains("the default"));
  out = runGir("lower " + test::sourcePath("scenarios/shufflenet.onnx") + " --templates rows", code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("shufflenet.onnx") && Catch::Contains("row template"));
  out = runGir("lower " + model + " --templates fastest", code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("--templates expects"));
  // The searched templates take what the row templates refuse.
  out = runGir("lower " + test::sourcePath("scenarios/shufflenet.onnx"), code);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("gir @shufflenet"));
}
