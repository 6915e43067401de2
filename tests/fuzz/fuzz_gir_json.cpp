// GIR JSON: parse -> verify -> save -> parse again; the reloaded graph saves the same JSON and prints
// the same text as the first (docs/fuzzing.md).
#include "core/gir/Json.h"
#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto g = gir::parseGirJson(gir::fuzz::asText(data, size), "fuzz.json");
  if (!g || !gir::verifyGraph(*g)) return 0;
  std::string json = gir::graphToJson(*g);
  auto again = gir::parseGirJson(json, "saved.json");
  GIR_FUZZ_CHECK(bool(again), json + "\n" + (again ? "" : again.error().str()));
  GIR_FUZZ_CHECK(gir::graphToJson(*again) == json, json);
  GIR_FUZZ_CHECK(gir::printGraph(*again) == gir::printGraph(*g), json);
  return 0;
}
