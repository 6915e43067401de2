// Affine offsets print canonically (terms u, u/k, u%k, then the constant) and parse back; the checker reports capacity overflows.
#include <catch2/catch.hpp>

#include "core/gir/Affine.h"
#include "core/gir/Json.h"
#include "core/gir/Validity.h"
#include "tests/support/TestSupport.h"

using namespace gir;

TEST_CASE("affine offsets: canonical text, parse, evaluate", "[affine]") {
  struct Case {
    const char* in;
    const char* canonical;
    int64_t at5;
  };
  for (Case c : {Case{"784*u-90944", "784*u-90944", 784 * 5 - 90944}, Case{"4*(u/4)+1", "4*(u/4)+1", 5},
                 Case{"1+2*(u%116)+(u/116)", "(u/116)+2*(u%116)+1", 11}, Case{"-16*u+1008", "-16*u+1008", 928},
                 Case{"u+u", "2*u", 10}, Case{"0", "0", 0}, Case{"u/1", "u", 5}}) {
    INFO(c.in);
    auto a = AffineIndex::parse(c.in);
    REQUIRE(a);
    CHECK(a->str() == c.canonical);
    CHECK(a->eval(5) == c.at5);
    auto again = AffineIndex::parse(a->str());
    REQUIRE(again);
    CHECK(*again == *a);
  }
  CHECK_FALSE(AffineIndex::parse("3*v"));
  CHECK_FALSE(AffineIndex::parse("u/0"));
  CHECK_FALSE(AffineIndex::parse("(u%4"));
  CHECK_FALSE(AffineIndex::parse("u%2*3"));  // the coefficient goes first
}

TEST_CASE("the checker reports a register capacity overflow naming level, bytes and unit", "[checker]") {
  auto g = loadGirFile(test::sourcePath("tests/golden/gir/relu.gir"));
  REQUIRE(g);
  for (auto& l : g->levels)
    if (l.name == "reg") l.capacityBytes = 48;  // each unit holds 2 x 8 floats = 64 bytes of registers
  ValidityReport r = checkValidity(*g, randomInputs(*g, 3));
  REQUIRE(r.verified);
  REQUIRE_FALSE(r.memory.clean());
  const MemoryFinding& f = r.memory.findings.back();
  CHECK(f.kind == FindingKind::CapacityOverflow);
  CHECK_THAT(f.message, Catch::Contains("'reg' needs 64 bytes per unit") && Catch::Contains("capacity of 48") && Catch::Contains("'%xr', '%yr'"));
}
