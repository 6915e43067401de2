// `gir ascend-sync` / `gir ascend-sim`: malformed kernels exit 2 with file:line:col, never crash;
// an oracle finding exits 1; outputs written with -o re-judge as correct. Also run under ASan/UBSan.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/cli/CliSupport.h"
#include "tests/support/TestSupport.h"

using gir::test::runGir;

using namespace gir;

namespace {

std::string scratch(const std::string& name, const std::string& text) {
  std::filesystem::create_directories(test::binaryPath("ascend-cli"));
  std::string path = test::binaryPath("ascend-cli/" + name);
  test::writeText(path, text);
  return path;
}

const char* kHead = "kernel k\nbuffer x GM 4096 tile=1024\nbuffer u UB 1024\n";

}  // namespace

TEST_CASE("ascend commands reject malformed kernels with exit 2 and a located message", "[cli][ascend]") {
  struct Bad {
    std::string name, text, expect;
  };
  std::vector<Bad> cases = {
      {"empty.asck", "", "missing 'kernel NAME'"},
      {"pipe.asck", std::string(kHead) + "XYZ op u <- x[0]\n", "bad/pipe.asck:4:1"},
      {"brace.asck", std::string(kHead) + "loop i 2 {\n  MTE2 copy u <- x[i]\n", "never closed"},
      {"extra_brace.asck", std::string(kHead) + "}\n}\n", "unbalanced '}'"},
      {"range.asck", std::string(kHead) + "loop i 9 {\n  MTE2 copy u <- x[i]\n}\n", "has 4 tiles"},
      {"reach.asck", std::string(kHead) + "M mmad u <- x[0]\n", "cannot write UB"},
      {"garbage.asck", std::string("\x01\x02\xff kernel\n{{{{\n"), "error:"},
      {"huge_number.asck", std::string(kHead) + "loop i 99999999999999999999 {\n}\n", "trip count"},
      {"too_long.asck", std::string(kHead) + "loop i 1000000 {\n  loop j 1000 {\n    V relu u <- u\n  }\n}\n",
       "more than 2000000 dynamic instructions"},
      {"bad_mod.asck", std::string(kHead) + "MTE2 copy u <- x[(i+1)%0]\n", "error:"},
  };
  for (const auto& c : cases) {
    std::filesystem::create_directories(test::binaryPath("ascend-cli/bad"));
    std::string path = scratch("bad/" + c.name, c.text);
    for (const char* cmd : {"ascend-sync", "ascend-sim"}) {
      int code = -1;
      std::string out = runGir(std::string(cmd) + " " + path, code);
      INFO(cmd << " " << c.name << ":\n" << out);
      CHECK(code == 2);
      CHECK(out.find(c.expect) != std::string::npos);
    }
  }
  int code = -1;
  // Inputs hold no sync lines (outputs, judged by ascend-sim, do).
  std::string withSync = runGir("ascend-sync " + scratch("bad/sync.asck", std::string(kHead) + "pipe_barrier ALL\n"), code);
  CHECK(code == 2);
  CHECK(withSync.find("no sync lines") != std::string::npos);
  runGir("ascend-sync /nonexistent/k.asck", code);
  CHECK(code == 2);
  runGir("ascend-sync " + scratch("ok.asck", std::string(kHead) + "MTE2 copy u <- x[0]\n") + " --stage nope", code);
  CHECK(code == 2);
  runGir("ascend-sync " + scratch("ok2.asck", std::string(kHead) + "MTE2 copy u <- x[0]\n") + " --target nope", code);
  CHECK(code == 2);
}

TEST_CASE("ascend-sync writes an output that ascend-sim accepts, a broken one exits 1", "[cli][ascend]") {
  std::string in = test::sourcePath("tests/ascend/corpus/pingpong_explicit.asck");
  std::string out = test::binaryPath("ascend-cli/pingpong.out.asck");
  int code = -1;
  runGir("ascend-sync " + in + " -o " + out, code);
  REQUIRE(code == 0);
  std::string report = runGir("ascend-sim " + out, code);
  INFO(report);
  CHECK(code == 0);
  CHECK(report.find("correct, robust") != std::string::npos);
  std::string json = runGir("ascend-sim " + out + " --json", code);
  CHECK(json.find("\"overhead\"") != std::string::npos);
  std::string text = test::readText(out);
  size_t w = text.find("wait_flag");
  REQUIRE(w != std::string::npos);
  text.erase(w, text.find('\n', w) - w + 1);
  std::string broken = scratch("broken.asck", text);
  report = runGir("ascend-sim " + broken, code);
  INFO(report);
  CHECK(code == 1);
  CHECK(report.find("VIOLATION") != std::string::npos);
}

TEST_CASE("ascend-sync shows stages, statistics and a baseline", "[cli][ascend]") {
  std::string in = test::sourcePath("tests/ascend/corpus/many_live_loop.asck");
  int code = -1;
  std::string deps = runGir("ascend-sync " + in + " --stage deps", code);
  CHECK(code == 0);
  CHECK(deps.find("RAW MTE2 -> V") != std::string::npos);
  std::string stats = runGir("ascend-sync " + in + " --stats --target ascend910b", code);
  CHECK(code == 0);
  CHECK(stats.find("virtual IDs:") != std::string::npos);
  CHECK(stats.find("insertion time:") != std::string::npos);
  std::string json = runGir("ascend-sync " + in + " --json", code);
  CHECK(json.find("\"insertion\"") != std::string::npos);
  std::string base = runGir("ascend-sync " + in + " --baseline flag-per-dep", code);
  CHECK(code == 1);
  CHECK(base.find("one flag per dependency needs") != std::string::npos);
  runGir("ascend-sync " + in + " --baseline barrier-all", code);
  CHECK(code == 0);
}

TEST_CASE("ascend-sync --optimal reports the kept candidate and the gap to the exact optimum", "[cli][ascend]") {
  std::string kernel = test::sourcePath("tests/ascend/patterns/stencil3_ring4.asck");
  int code = -1;
  std::string out = runGir("ascend-sync " + kernel + " --optimal", code);
  INFO(out);
  CHECK(code == 0);
  CHECK(out.find("kept: cross-iteration cover") != std::string::npos);
  CHECK(out.find("also simulated:") != std::string::npos);
  CHECK(out.find("over the optimum with 4 IDs") != std::string::npos);
  CHECK(out.find("optimum with 8 IDs") != std::string::npos);
  CHECK(out.find(", proved") != std::string::npos);
  std::string js = runGir("ascend-sync " + kernel + " --optimal --json", code);
  INFO(js);
  CHECK(code == 0);
  auto j = nlohmann::json::parse(js.substr(js.find('{')));
  CHECK(j["insertion"]["portfolio"].size() == 4);  // three variants (no if to lift out of) and barrier-all
  CHECK(j["optimal"]["optimum"]["ids"] == 4);
  CHECK(j["optimal"]["other_optimum"]["ids"] == 8);
  CHECK(j["optimal"]["optimum"]["proved"] == true);
  CHECK(j["optimal"]["gap"].get<double>() <= 0.10);
  CHECK(j["optimal"]["ideal_cycles"].get<double>() <= j["optimal"]["optimum"]["cycles"].get<double>());
}
