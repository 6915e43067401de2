// Corpus discovery and small loaders for the ascend tests.
#include "tests/ascend/AscendTestUtil.h"

#include <algorithm>
#include <filesystem>

#include <catch2/catch.hpp>

#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/asck/AsckValidator.h"
#include "tests/support/TestSupport.h"

namespace gir::test {

std::vector<std::string> ascendCorpus() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(sourcePath("tests/ascend/corpus")))
    if (e.path().extension() == ".asck") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

ascend::Program loadKernelOrFail(const std::string& path) {
  auto p = ascend::loadAsck(path);
  INFO(path << ": " << (p ? "" : p.error().str()));
  REQUIRE(p.ok());
  auto ok = ascend::validateInput(*p, readText(path));
  INFO((ok ? "" : ok.error().str()));
  REQUIRE(ok.ok());
  return *p;
}

ascend::Target targetOrFail(const std::string& name) {
  auto t = ascend::loadTarget(name, "");
  INFO(name << ": " << (t ? "" : t.error().str()));
  REQUIRE(t.ok());
  return *t;
}

ascend::OracleOptions quickOracle() {
  ascend::OracleOptions o;
  o.exhaustiveLimit = 64;
  o.randomPaths = 16;
  o.latencySeeds = 1;
  o.robust = false;
  return o;
}

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

}  // namespace gir::test
