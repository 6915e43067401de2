// Every malformed file of the earlier corpora (GIR and hardware, ONNX, Ascend parse and validation
// errors) opened through the window: an error is shown naming the problem, nothing crashes, and the
// app still opens, steps and saves afterwards. Workspaces round-trip and save atomically.
#include <catch2/catch.hpp>

#include <QDir>
#include <filesystem>

#include "app/Session.h"
#include "app/StepperPanel.h"
#include "core/gir/Printer.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

namespace {

std::vector<std::string> corpus(const std::string& dir, const std::vector<std::string>& exts) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath(dir)))
    for (const std::string& x : exts)
      if (e.path().extension() == x) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The Ascend bad inputs of tests/ascend/AsckParserTest.cpp, written as files.
std::vector<std::string> ascendBadFiles() {
  const char* header = "kernel k\nbuffer x GM 4096 tile=1024\nbuffer u UB 1024\n";
  const char* bodies[] = {"FOO copy u <- x[0]\n", "MTE2 copy u <- nope\n", "V relu u <- x[0]\n", "MTE3 copy u <- u\n",
                          "loop i 8 {\n  MTE2 copy u <- x[i]\n}\n", "MTE2 copy u[0] <- x[0]\n", "loop i 0 {\n}\n",
                          "loop i 2 {\n  MTE2 copy u <- x[i]\n", "}\n", "MTE2 copy u <- x[j]\n", "MTE2 copy u x[0]\n",
                          "MTE2 copy u <- x[0] cycles=-3\n", "set_flag MTE2 V 5\nwait_flag MTE2 V 5\n", ""};
  std::vector<std::string> out;
  std::string dir = test::binaryPath("app_ascend_bad");
  std::filesystem::create_directories(dir);
  int i = 0;
  for (const char* b : bodies) {
    std::string path = dir + "/bad" + std::to_string(i++) + ".asck";
    test::writeText(path, std::string(i == 14 ? "" : header) + b);
    out.push_back(path);
  }
  return out;
}

}  // namespace

TEST_CASE("every malformed file shows an error and leaves the app usable", "[app]") {
  auto w = test::makeWindow();
  std::vector<std::string> files = corpus("tests/data/gir-bad", {".gir", ".json"});
  for (const auto& f : corpus("tests/data/onnx-bad", {".onnx"})) files.push_back(f);
  for (const auto& f : ascendBadFiles()) files.push_back(f);
  REQUIRE(files.size() > 60);
  QSignalSpy errors(w.get(), &MainWindow::errorReported);
  int expected = 0;
  for (const std::string& f : files) {
    INFO(f);
    CHECK_FALSE(w->openPath(QString::fromStdString(f)));
    ++expected;
    REQUIRE(errors.count() == expected);
    CHECK_FALSE(w->lastError().isEmpty());
    CHECK(test::closeErrorBoxes(w.get()) == 1);
  }
  CHECK_FALSE(w->openPath("/nonexistent/file.gir"));
  test::closeErrorBoxes(w.get());
  // Still usable: open, step, undo.
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/golden/gir/figure6.gir"))));
  REQUIRE(test::waitForLayout(w->girCanvas()));
  CHECK(w->girCanvas()->nodeItemCount({viz::ItemKind::Compute, viz::ItemKind::Movement, viz::ItemKind::Sync}) ==
        static_cast<int>(w->session().graph().liveNodeCount()));
  REQUIRE(w->stepper()->applyRow(0));
  CHECK(w->session().undo());
}

TEST_CASE("a workspace saves atomically and restores the graph, the steps and the position", "[app]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/golden/gir/shufflenet_source.gir"))));
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/ascend/corpus/vec_add_relu.asck"))));
  REQUIRE(w->stepper()->applyRow(0));
  REQUIRE(w->stepper()->applyRow(0));
  REQUIRE(w->session().undo());
  std::string path = test::binaryPath("app_workspace.json");
  test::writeText(path, "previous contents\n");
  REQUIRE(w->saveWorkspaceTo(QString::fromStdString(path)));
  CHECK(test::readText(path).find("gir_workspace") != std::string::npos);
  // No temporary file is left beside it.
  int siblings = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    siblings += e.path().filename().string().rfind("app_workspace.json", 0) == 0;
  CHECK(siblings == 1);

  auto v = test::makeWindow();
  REQUIRE(v->openPath(QString::fromStdString(path)));
  CHECK(printGraph(v->session().graph()) == printGraph(w->session().graph()));
  CHECK(v->session().stepper().history().size() == 2);
  CHECK(v->session().stepper().position() == 1);
  CHECK(printGraph(v->session().original()) == printGraph(w->session().original()));
  REQUIRE(v->session().ascend());
  // Saving into a missing directory fails with a message and keeps the window usable.
  QSignalSpy errors(v.get(), &MainWindow::errorReported);
  CHECK_FALSE(v->saveWorkspaceTo("/nonexistent-dir/ws.json"));
  CHECK(errors.count() == 1);
  test::closeErrorBoxes(v.get());
  // A broken workspace is an error too.
  std::string bad = test::binaryPath("app_workspace_bad.json");
  test::writeText(bad, "{\"gir_workspace\": 1, \"model\": 3}");
  CHECK_FALSE(v->openPath(QString::fromStdString(bad)));
  CHECK(v->lastError().contains("model"));
  test::closeErrorBoxes(v.get());
}

TEST_CASE("export the canvas as SVG, PNG and dot", "[app]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/golden/gir/two_kernels.gir"))));
  REQUIRE(test::waitForLayout(w->girCanvas()));
  for (const char* ext : {"svg", "png", "dot"}) {
    std::string path = test::binaryPath(std::string("app_export.") + ext);
    std::filesystem::remove(path);
    REQUIRE(w->exportCanvas(QString::fromStdString(path)));
    CHECK(std::filesystem::file_size(path) > 100);
  }
  CHECK(test::readText(test::binaryPath("app_export.svg")).find("<svg") != std::string::npos);
  CHECK(test::readText(test::binaryPath("app_export.dot")).find("digraph") != std::string::npos);
}
