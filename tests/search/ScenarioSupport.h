// A bundled scenario imported and preprocessed for a named target: what the search tests start from.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"
#include "tests/support/TestSupport.h"

namespace gir::test {

struct PreprocessedScenario {
  HardwareDesc hw;
  compute::Graph model;
  compute::PreprocessResult pre;
};

// scenarios/<name>.onnx on hardware/<target>.json; fails the test (REQUIRE) when any step does.
inline PreprocessedScenario preprocessedScenario(const std::string& name, const std::string& target = "cpu-host") {
  auto hw = loadHardwareByName(target);
  REQUIRE(hw);
  auto model = compute::importOnnxFile(sourcePath("scenarios/" + name + ".onnx"));
  REQUIRE(model);
  auto pre = compute::preprocess(*model, *hw);
  REQUIRE(pre);
  return {*hw, *model, *pre};
}

}  // namespace gir::test
