// The target picker (issue #18, point 2; point 1, item 6): the app starts on this machine's kind of
// hardware, not an H100 on a CPU-only machine; the toolbar lists every bundled description and any opened
// file; the status bar says which description the numbers come from; choosing one re-plans the model.
#include <catch2/catch.hpp>

#include <QLabel>

#include "app/ModelTab.h"
#include "app/Session.h"
#include "app/TargetPicker.h"
#include "codegen/gpu/GpuRun.h"
#include "core/hw/HardwareDesc.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("the target picker: cpu-host by default without a GPU, every description listed, the choice re-plans", "[app][target]") {
  auto w = test::makeWindow();
  TargetPicker* picker = w->targetPicker();
  if (gpu::gpuPresent(gpu::GpuApi::Cuda) || gpu::gpuPresent(gpu::GpuApi::Hip)) {
    WARN("this machine has a GPU driver: the CPU-only default is not checked here");
  } else {
    CHECK(w->session().hardware().name == "cpu-host");
    CHECK(picker->currentText() == "cpu-host");
  }
  auto bundled = bundledHardwareNames();
  REQUIRE(bundled.size() >= 5);
  CHECK(picker->count() == static_cast<int>(bundled.size()));
  int a100 = picker->findText("nvidia-a100");
  REQUIRE(a100 >= 0);

  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/layernorm.onnx"))));
  picker->setCurrentIndex(a100);
  Q_EMIT picker->activated(a100);
  CHECK(w->session().hardware().name == "nvidia-a100");
  CHECK(w->session().preprocessed().target == "nvidia-a100");  // the model was preprocessed again
  CHECK(w->hardwareLabel()->text().contains("nvidia-a100 ("));
  CHECK(w->hardwareLabel()->text().contains("nvidia-a100.json"));
  CHECK(w->hardwareLabel()->text().contains("Measure: this CPU"));

  // An opened description joins the list once and is chosen.
  std::string file = test::binaryPath("tests/picked-hardware.json");
  auto mi100 = loadHardwareByName("amd-mi100");
  REQUIRE(mi100);
  test::writeText(file, hardwareToJson(*mi100));
  for (int twice = 0; twice < 2; ++twice) REQUIRE(w->openPath(QString::fromStdString(file)));
  CHECK(picker->count() == static_cast<int>(bundled.size()) + 1);
  CHECK(picker->currentText().contains("picked-hardware.json"));
  CHECK(w->session().hardware().name == "amd-mi100");
  CHECK(w->hardwareLabel()->text().contains("picked-hardware.json"));
  REQUIRE(test::waitForLayout(w->modelTab()->canvas()));
  test::saveScreenshot(w.get(), "target_picker");
}
