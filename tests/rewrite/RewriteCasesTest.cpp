// File-driven rewrite tests (docs/rewrites.md, "Rewrite cases"): each tests/golden/rewrite/cases/*.gir
// holds an input graph, a `# pipeline:` line and, after a `# expect:` line, the printed graph the
// pipeline must give (every line behind "# "), or an `# expect-error:` line with text the error must
// contain. Steps run in checked mode. GIR_BLESS=1 rewrites the expect block, after the output has
// been parsed back, verified and run through the memory-model checker.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/gir/Interpreter.h"
#include "core/gir/MemoryChecker.h"
#include "core/gir/Parser.h"
#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"
#include "rewrite/GreedyOptimizer.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

struct RewriteCase {
  std::string pipeline;          // "greedy", "merge-raw", "sync-insertion@1", comma-separated
  std::string expected;          // the printed graph
  std::string expectedError;     // or text the error must contain
  std::string beforeExpect;      // the file up to the `# expect` line (kept when blessing)
};

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

RewriteCase readCase(const std::string& text) {
  RewriteCase c;
  std::istringstream in(text);
  std::string line;
  bool expecting = false;
  while (std::getline(in, line)) {
    if (expecting) {
      c.expected += (line.rfind("# ", 0) == 0 ? line.substr(2) : line == "#" ? "" : line) + "\n";
      continue;
    }
    if (line.rfind("# expect:", 0) == 0) {
      expecting = true;
      continue;
    }
    if (line.rfind("# expect-error:", 0) == 0) c.expectedError = trim(line.substr(15));
    else c.beforeExpect += line + "\n";
    if (line.rfind("# pipeline:", 0) == 0) c.pipeline = trim(line.substr(11));
  }
  return c;
}

// Runs the pipeline; the printed result, or the error's text (prefixed "error: ").
std::string runPipeline(const Graph& input, const std::string& pipeline) {
  Stepper st(input, std::nullopt, true);
  std::istringstream steps(pipeline);
  std::string step;
  while (std::getline(steps, step, ',')) {
    step = trim(step);
    if (step == "greedy") {
      GreedyResult r = runGreedy(st);
      if (r.stop != StopReason::Converged) return "error: greedy stopped: " + std::string(stopReasonName(r.stop)) + " " + r.failure;
      continue;
    }
    size_t at = step.find('@');
    size_t site = at == std::string::npos ? 0 : static_cast<size_t>(std::stoul(step.substr(at + 1)));
    auto rec = st.apply(step.substr(0, at), site);
    if (!rec) return "error: " + rec.error().str();
  }
  return printGraph(st.graph());
}

// What blessing checks before it writes: the output parses back to itself, verifies, and the
// memory-model checker finds nothing on random inputs.
void checkBlessable(const std::string& printed) {
  auto g = parseGirText(printed, "blessed output");
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  CHECK(printGraph(*g) == printed);
  auto verified = verifyGraph(*g);
  INFO((verified ? "" : verified.error().str()));
  REQUIRE(verified);
  auto report = checkMemoryModel(*g, randomInputs(*g, 7));
  REQUIRE(report);
  INFO(report->summary());
  REQUIRE(report->clean());
}

std::string expectBlock(const std::string& printed) {
  std::string out = "# expect:\n";
  std::istringstream in(printed);
  std::string line;
  while (std::getline(in, line)) out += (line.empty() ? "#" : "# " + line) + "\n";
  return out;
}

}  // namespace

TEST_CASE("rewrite cases: each file's pipeline gives its expected graph or error", "[rewrite][golden]") {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath("tests/golden/rewrite/cases")))
    if (e.path().extension() == ".gir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 8);
  for (const auto& path : files) {
    INFO(path.filename().string() << " (GIR_BLESS=1 rewrites its expect block; review the diff)");
    std::string text = test::readText(path.string());
    RewriteCase c = readCase(text);
    REQUIRE_FALSE(c.pipeline.empty());
    auto input = parseGirText(text, path.string());
    INFO((input ? "" : input.error().str()));
    REQUIRE(input);
    std::string actual = runPipeline(*input, c.pipeline);
    if (!c.expectedError.empty()) {
      CHECK_THAT(actual, Catch::StartsWith("error: ") && Catch::Contains(c.expectedError));
      continue;
    }
    REQUIRE_THAT(actual, !Catch::StartsWith("error: "));
    if (test::blessMode()) {
      checkBlessable(actual);
      test::writeText(path.string(), c.beforeExpect + expectBlock(actual));
      c.expected = actual;
    }
    CHECK(actual == c.expected);
  }
}
