// Text <-> JSON round trips are exact for every bundled and golden GIR file.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/gir/Json.h"
#include "core/gir/Parser.h"
#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"
#include "tests/support/TestSupport.h"

using namespace gir;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> girFiles() {
  std::vector<std::string> out;
  for (const char* dir : {"tests/golden/gir"}) {
    fs::path p = test::sourcePath(dir);
    if (!fs::exists(p)) continue;
    for (const auto& e : fs::directory_iterator(p))
      if (e.path().extension() == ".gir") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("print(parse(print(g))) == print(g) and JSON load-save is identical", "[roundtrip]") {
  auto files = girFiles();
  REQUIRE(files.size() >= 5);
  for (const auto& f : files) {
    INFO(f);
    auto g = parseGirText(test::readText(f), f);
    INFO((g ? "" : g.error().str()));
    REQUIRE(g);
    REQUIRE(verifyGraph(*g));
    std::string text = printGraph(*g);
    auto again = parseGirText(text, "printed");
    REQUIRE(again);
    CHECK(printGraph(*again) == text);

    std::string json = graphToJson(*g);
    auto fromJson = parseGirJson(json, "json");
    INFO((fromJson ? "" : fromJson.error().str()));
    REQUIRE(fromJson);
    CHECK(graphToJson(*fromJson) == json);
    CHECK(printGraph(*fromJson) == text);
  }
}

TEST_CASE("immediates keep their exact value through text and JSON", "[roundtrip]") {
  const char* src =
      "gir @k units=2 block=1\nlevel dram device\n"
      "%x = buffer dram f32[2] input\n%y = buffer dram f32[2] output\n"
      "%a = slice %x offset(u) shape[1] strides[1]\n%b = slice %y offset(u) shape[1] strides[1]\n"
      "ew.add %a, 0.1 -> %b\n";
  auto g = parseGirText(src);
  REQUIRE(g);
  std::string text = printGraph(*g);
  CHECK_THAT(text, Catch::Contains("ew.add %s0, 0.1 -> %s1"));
  auto j = parseGirJson(graphToJson(*g));
  REQUIRE(j);
  CHECK(std::get<ElementwisePayload>(j->nodes()[0].payload).operands[1].value == 0.1);
}
