// Breaking a correct output must be caught: removing any single wait_flag, or doubling any set_flag,
// of every ascend910 golden output fails the oracle with a message naming the instructions and lines.
#include <catch2/catch.hpp>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckParser.h"
#include "tests/ascend/AscendTestUtil.h"
#include "tests/support/TestSupport.h"

using namespace gir::ascend;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t a = 0;
  while (a < text.size()) {
    size_t b = text.find('\n', a);
    if (b == std::string::npos) b = text.size();
    out.push_back(text.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& ls) {
  std::string s;
  for (const auto& l : ls) s += l + "\n";
  return s;
}

void expectCaught(const std::string& text, const Target& t, const std::string& what) {
  auto p = parseAsck(text, "mutant.asck");
  REQUIRE(p.ok());
  OracleReport r = runOracle(*p, t, gir::test::quickOracle());
  INFO(what << "\n" << text);
  REQUIRE_FALSE(r.correct);
  CHECK(r.violation.find("(line ") != std::string::npos);
  // The iteration: loop variable values, or "outside loops".
  bool iteration = r.violation.find("=") != std::string::npos || r.violation.find("outside loops") != std::string::npos;
  CHECK(iteration);
}

template <typename Mutate>
int mutateAll(const std::string& prefix, Mutate mutate) {
  Target t = gir::test::targetOrFail("ascend910");
  int mutants = 0;
  for (const auto& path : gir::test::ascendCorpus()) {
    std::string golden = gir::test::sourcePath("tests/golden/ascend/ascend910/" + gir::test::stem(path) + ".asck");
    auto ls = lines(gir::test::readText(golden));
    REQUIRE(!ls.empty());
    for (size_t i = 0; i < ls.size(); ++i) {
      if (ls[i].find(prefix) == std::string::npos) continue;
      expectCaught(join(mutate(ls, i)), t, gir::test::stem(path) + " line " + std::to_string(i + 1));
      ++mutants;
    }
  }
  return mutants;
}

}  // namespace

TEST_CASE("removing any single wait_flag from a correct output is caught", "[ascend][negative]") {
  int n = mutateAll("wait_flag", [](std::vector<std::string> ls, size_t i) {
    ls.erase(ls.begin() + static_cast<long>(i));
    return ls;
  });
  CHECK(n > 100);
}

TEST_CASE("doubling any set_flag of a correct output is caught", "[ascend][negative]") {
  int n = mutateAll("set_flag", [](std::vector<std::string> ls, size_t i) {
    ls.insert(ls.begin() + static_cast<long>(i), ls[i]);
    return ls;
  });
  CHECK(n > 100);
}
