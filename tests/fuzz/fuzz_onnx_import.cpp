// ONNX import: bytes -> import -> preprocess for cpu-host (docs/fuzzing.md). Every way a model can be
// bad must come back as an error value; an imported graph must preprocess or say why not.
#include <cstdlib>

#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gir::HardwareDesc hw = [] {
    auto d = gir::loadHardwareByName("cpu-host");
    if (!d) gir::fuzz::fail(__FILE__, __LINE__, "cpu-host loads", d.error().str());
    return *d;
  }();
  auto graph = gir::compute::importOnnxBytes(gir::fuzz::asText(data, size), "fuzz.onnx");
  if (!graph) return 0;
  (void)gir::compute::preprocess(*graph, hw);
  return 0;
}
