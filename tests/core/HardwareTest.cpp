// Every shipped hardware description loads and says what docs/hardware.md, "Shipped descriptions", requires of it.
#include <catch2/catch.hpp>

#include "core/hw/HardwareDesc.h"
#include "tests/support/TestSupport.h"

using namespace gir;

TEST_CASE("all shipped hardware descriptions load with the paper's DRAM figures", "[hardware]") {
  setenv("GIR_HARDWARE_DIR", test::sourcePath("hardware").c_str(), 1);
  struct Want {
    const char* name;
    double dramGBs;  // 0: not fixed by the paper
  };
  for (Want w : {Want{"cpu-host", 0}, Want{"nvidia-a100", 1555}, Want{"nvidia-h100", 0}, Want{"amd-mi100", 1200},
                 Want{"ascend910", 0}, Want{"ascend910b", 0}, Want{"cambricon-mlu370", 307.2}}) {
    INFO(w.name);
    auto hw = loadHardwareByName(w.name);
    INFO((hw ? "" : hw.error().str()));
    REQUIRE(hw);
    CHECK(hw->name == w.name);
    REQUIRE(hw->dramLevel());
    if (w.dramGBs > 0) CHECK(hw->dramBandwidthGBs() == Approx(w.dramGBs));
    CHECK(hw->ridgePointFlopsPerByte() > 0);
    // A round trip through the writer gives the same description.
    auto again = parseHardwareDesc(hardwareToJson(*hw), "again");
    REQUIRE(again);
    CHECK(hardwareToJson(*again) == hardwareToJson(*hw));
  }
  auto ascend = loadHardwareByName("ascend910");
  REQUIRE(ascend->ascend);
  CHECK(ascend->ascend->flagsPerPipePair == 4);
  CHECK(loadHardwareByName("ascend910b")->ascend->flagsPerPipePair == 8);
  CHECK(loadHardwareByName("amd-mi100")->lanesPerUnit == 64);
  CHECK(loadHardwareByName("nvidia-h100")->levelForScope(Scope::Block)->name == "smem");
}

TEST_CASE("a wrong field names the file, the field and the reason", "[hardware]") {
  auto hw = parseHardwareDesc(R"({"name":"x","kind":"tpu"})", "x.json");
  REQUIRE_FALSE(hw);
  CHECK_THAT(hw.error().str(), Catch::Contains("x.json") && Catch::Contains("field 'kind'") && Catch::Contains("tpu"));
}
