// Hardware descriptions: parse -> save -> parse again; the reloaded description saves the same JSON
// (docs/fuzzing.md).
#include "core/hw/HardwareDesc.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto hw = gir::parseHardwareDesc(gir::fuzz::asText(data, size), "fuzz.json");
  if (!hw) return 0;
  std::string json = gir::hardwareToJson(*hw);
  auto again = gir::parseHardwareDesc(json, "saved.json");
  GIR_FUZZ_CHECK(bool(again), json + "\n" + (again ? "" : again.error().str()));
  GIR_FUZZ_CHECK(gir::hardwareToJson(*again) == json, json);
  return 0;
}
