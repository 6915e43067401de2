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

TEST_CASE("the warm-copy curve reads, interpolates in log footprint, round-trips and names a misordered point", "[hardware]") {
  setenv("GIR_HARDWARE_DIR", test::sourcePath("hardware").c_str(), 1);
  auto base = loadHardwareByName("cpu-host");
  REQUIRE(base);
  CHECK_FALSE(base->warmCopy.empty());  // measured on the development VM (docs/hardware.md)
  base->warmCopy.clear();
  base->coldCopyGBs = 0;
  CHECK(base->warmCopyGBs(64 << 20, false) == 0);  // no curve: not measured
  std::string text = hardwareToJson(*base);
  std::string curve = R"("warm_copy": [{"footprint_bytes": 2097152, "plain_gbs": 100, "streaming_gbs": 50},
                                        {"footprint_bytes": 8388608, "plain_gbs": 40, "streaming_gbs": 30}],)";
  text.insert(text.find('{') + 1, curve);
  auto hw = parseHardwareDesc(text, "curve.json");
  INFO((hw ? "" : hw.error().str()));
  REQUIRE(hw);
  REQUIRE(hw->warmCopy.size() == 2);
  CHECK(hw->warmCopyGBs(1 << 20, false) == Approx(100));  // held at the ends
  CHECK(hw->warmCopyGBs(4 << 20, false) == Approx(70));   // halfway in log(footprint)
  CHECK(hw->warmCopyGBs(4 << 20, true) == Approx(40));
  CHECK(hw->warmCopyGBs(int64_t{1} << 30, true) == Approx(30));
  CHECK(hw->coldCopyGBs == 0);  // not measured
  hw->coldCopyGBs = 21.5;
  auto again = parseHardwareDesc(hardwareToJson(*hw), "again");
  REQUIRE(again);
  CHECK(again->coldCopyGBs == Approx(21.5));
  CHECK(again->readToCopyRatio == 0);  // not measured, and not written
  hw->readToCopyRatio = 1.27;
  auto withRead = parseHardwareDesc(hardwareToJson(*hw), "read");
  REQUIRE(withRead);
  CHECK(withRead->readToCopyRatio == Approx(1.27));
  hw->readToCopyRatio = 0;
  CHECK(hardwareToJson(*again) == hardwareToJson(*hw));
  std::string negative = text;
  negative.insert(negative.find('{') + 1, R"("cold_copy_gbs": -3,)");
  auto refused = parseHardwareDesc(negative, "cold.json");
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().str(), Catch::Contains("cold.json") && Catch::Contains("cold_copy_gbs") && Catch::Contains("at least"));
  std::string misordered = text;
  misordered.replace(misordered.find("8388608"), 7, "1048576");
  auto bad = parseHardwareDesc(misordered, "curve.json");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().str(), Catch::Contains("curve.json") && Catch::Contains("warm_copy[1].footprint_bytes") &&
                                    Catch::Contains("ascending"));
}

TEST_CASE("transcendental rates by function read, fall back to the exp rate, round-trip and refuse a bad rate", "[hardware]") {
  setenv("GIR_HARDWARE_DIR", test::sourcePath("hardware").c_str(), 1);
  auto base = loadHardwareByName("cpu-host");
  REQUIRE(base);
  base->transcendentalGelems = 4.0;
  base->transcendentalGelemsByFunction.clear();
  std::string text = hardwareToJson(*base);
  CHECK(text.find("transcendental_gelems_by_function") == std::string::npos);  // none measured: none written
  text.insert(text.find('{') + 1, R"("transcendental_gelems_by_function": {"sigmoid": 3.0, "one_plus_erf": 2.5},)");
  auto hw = parseHardwareDesc(text, "rates.json");
  INFO((hw ? "" : hw.error().str()));
  REQUIRE(hw);
  CHECK(hw->transcendentalGelemsOf("sigmoid") == Approx(3.0));
  CHECK(hw->transcendentalGelemsOf("one_plus_erf") == Approx(2.5));
  CHECK(hw->transcendentalGelemsOf("tanh") == Approx(4.0));  // no rate of its own: exp's
  auto again = parseHardwareDesc(hardwareToJson(*hw), "again");
  REQUIRE(again);
  CHECK(again->transcendentalGelemsByFunction == hw->transcendentalGelemsByFunction);
  for (std::string bad : {R"({"sigmoid": 0})", R"({"sigmoid": "fast"})", R"([3.0])"}) {
    std::string refusedText = hardwareToJson(*base);
    refusedText.insert(refusedText.find('{') + 1, "\"transcendental_gelems_by_function\": " + bad + ",");
    auto refused = parseHardwareDesc(refusedText, "rates.json");
    INFO(bad);
    REQUIRE_FALSE(refused);
    CHECK_THAT(refused.error().str(), Catch::Contains("rates.json") && Catch::Contains("transcendental_gelems_by_function"));
  }
}
