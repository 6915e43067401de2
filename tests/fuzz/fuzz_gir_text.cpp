// GIR text: parse -> verify -> print -> parse again; the reprinted graph prints the same text
// (docs/fuzzing.md). Parse and verify errors are the product working; a differing reprint is a finding.
#include "core/gir/Parser.h"
#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto g = gir::parseGirText(gir::fuzz::asText(data, size), "fuzz.gir");
  if (!g || !gir::verifyGraph(*g)) return 0;
  std::string text = gir::printGraph(*g);
  auto again = gir::parseGirText(text, "printed.gir");
  GIR_FUZZ_CHECK(bool(again), text + "\n" + (again ? "" : again.error().str()));
  GIR_FUZZ_CHECK(bool(gir::verifyGraph(*again)), text);
  GIR_FUZZ_CHECK(gir::printGraph(*again) == text, text);
  return 0;
}
