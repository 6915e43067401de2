// bench_measure_agreement: does the app's Measure tab time a model's subgraph as `gir run --measure`
// does? (Issue #18: it read 100-1000x slower.) Opens a model in the real main window (offscreen), opens
// one subgraph, then alternates, REPEATS times: the tab's Measure, started while the app's background
// jobs may still run as a user would, and `gir run GRAPH --measure --json` on the same graph. Prints per
// kernel the median over the repeats of each side's median, the range of those medians and the ratio.
// Usage: bench_measure_agreement [MODEL.onnx] [SUBGRAPH] [REPEATS] [BUDGET_MS]
#include <QApplication>
#include <QEventLoop>
#include <QTimer>
#include <cstdio>
#include <fstream>
#include <string>

#include "app/MainWindow.h"
#include "app/MeasureTab.h"
#include "app/ModelTab.h"
#include "app/Session.h"
#include "bench/BenchSupport.h"
#include "core/gir/Printer.h"

using namespace gir;

namespace {

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_measure_agreement: %s\n", why.c_str());
  std::exit(1);
}

std::optional<codegen::cpu::MeasureResult> measureInApp(app::MeasureTab& tab) {
  QEventLoop loop;
  bool ok = false;
  auto c = QObject::connect(&tab, &app::MeasureTab::finished, &loop, [&](bool r) {
    ok = r;
    loop.quit();
  });
  tab.start();
  if (tab.running()) loop.exec();
  QObject::disconnect(c);
  if (!ok) die("the app's Measure failed: " + tab.statusText().toStdString());
  return tab.result();
}

codegen::cpu::MeasureResult measureInCli(const std::string& gir, int budgetMs) {
  std::string command = std::string(GIR_EXE) + " run " + gir + " --measure --json --budget-ms " + std::to_string(budgetMs) + " 2>/dev/null";
  FILE* p = popen(command.c_str(), "r");
  if (!p) die("cannot run " + command);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  if (pclose(p) != 0) die(command + " failed");
  auto r = codegen::cpu::measureResultFromRunJson(out);
  if (!r) die(r.error().str());
  return *r;
}

struct Side {
  std::vector<std::vector<double>> medians;  // [kernel][repeat]
  void add(const codegen::cpu::MeasureResult& r) {
    medians.resize(r.kernels.size());
    for (size_t k = 0; k < r.kernels.size(); ++k) medians[k].push_back(r.kernels[k].measured.medianUs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication qapp(argc, argv);
  std::string model = argc > 1 ? argv[1] : std::string(GIR_SOURCE_DIR) + "/scenarios/layernorm.onnx";
  int subgraph = argc > 2 ? std::atoi(argv[2]) : 0;
  int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  int budgetMs = argc > 4 ? std::max(1, std::atoi(argv[4])) : 100;

  app::MainWindow w;
  w.resize(1500, 950);
  w.show();
  if (!w.openPath(QString::fromStdString(model))) die("cannot open " + model);
  Q_EMIT w.modelTab()->subgraphRequested(subgraph);
  if (!w.session().hasGir()) die("subgraph " + std::to_string(subgraph) + " of " + model + " did not lower");
  std::string gir = "measure-agreement.gir";
  std::ofstream(gir) << printGraph(w.session().graph());
  app::MeasureTab& tab = *w.measureTab();
  tab.setBudgetMs(budgetMs);

  Side inApp, inCli;
  std::vector<double> modelled;
  for (int r = 0; r < repeats; ++r) {  // interleaved: both sides see the same machine state
    auto a = measureInApp(tab);
    auto c = measureInCli(gir, budgetMs);
    if (!a || a->kernels.size() != c.kernels.size()) die("the app and gir run timed different kernels");
    inApp.add(*a);
    inCli.add(c);
    if (modelled.empty())
      for (auto& k : c.kernels) modelled.push_back(k.modelledUs);
  }

  std::printf("%s, subgraph %d: %zu kernel(s), %d interleaved repeat(s), budget %d ms per kernel\n", model.c_str(), subgraph, modelled.size(),
              repeats, budgetMs);
  std::printf("%6s %12s %12s %22s %12s %22s %10s\n", "kernel", "modelled_us", "app_us", "app range", "gir_run_us", "gir run range", "app/cli");
  int outside = 0;
  for (size_t k = 0; k < modelled.size(); ++k) {
    auto& a = inApp.medians[k];
    auto& c = inCli.medians[k];
    double am = bench::median(a), cm = bench::median(c);
    auto [aLo, aHi] = std::minmax_element(a.begin(), a.end());
    auto [cLo, cHi] = std::minmax_element(c.begin(), c.end());
    bool agree = am >= *cLo / 1.5 && am <= *cHi * 1.5;
    outside += !agree;
    char ar[64], cr[64];
    std::snprintf(ar, sizeof ar, "[%.1f, %.1f]", *aLo, *aHi);
    std::snprintf(cr, sizeof cr, "[%.1f, %.1f]", *cLo, *cHi);
    std::printf("%6zu %12.1f %12.1f %22s %12.1f %22s %9.2fx%s\n", k, modelled[k], am, ar, cm, cr, am / cm, agree ? "" : "  <- outside");
  }
  std::printf("%d of %zu kernel(s) with the app's median outside gir run's range (with a factor 1.5)\n", outside, modelled.size());
  return 0;
}
