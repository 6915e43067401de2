// Ascend set/wait insertion on the test corpus: cycles, ideal, barrier-all, overhead = cycles / ideal,
// virtual and physical IDs and insertion time per kernel, then median and worst overhead
// (goals: median <= 1.05, worst <= 1.25, insertion < 10 ms for 1000-instruction kernels). Then issue
// 20's pattern kernels against the exact search's optimum with 4 and with 8 IDs (docs/ascend.md).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/sync/FlagInsertion.h"
#include "codegen/ascend/sync/FlagOptimal.h"

using namespace gir::ascend;

namespace {

struct Row {
  std::string name;
  OracleReport rep;
  InsertStats stats;
  int64_t dynInstrs = 0;
  double bestMs = 0;
};

std::vector<std::string> corpus(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".asck") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool measure(const std::string& path, const Target& t, Row& row) {
  auto p = loadAsck(path);
  if (!p) {
    std::fprintf(stderr, "%s\n", p.error().str().c_str());
    return false;
  }
  row.name = std::filesystem::path(path).stem().string();
  row.dynInstrs = maxDynamicInstrs(p->body);
  InsertOptions opt;
  opt.flags = t.flags;
  row.bestMs = 1e18;
  for (int k = 0; k < 5; ++k) {
    auto r = insertSync(*p, opt);
    if (!r) {
      std::fprintf(stderr, "%s: %s\n", row.name.c_str(), r.error().str().c_str());
      return false;
    }
    row.stats = r->stats;
    row.bestMs = std::min(row.bestMs, r->stats.millis);
    if (k == 0) row.rep = runOracle(r->output, t, normativeOracleOptions());
  }
  return true;
}

void runTarget(const std::string& dir, const std::string& targetName) {
  auto t = loadTarget(targetName, "");
  if (!t) {
    std::fprintf(stderr, "%s\n", t.error().str().c_str());
    return;
  }
  std::printf("\n== %s (%d IDs per pipe pair)\n", targetName.c_str(), t->flags);
  std::printf("%-22s %6s %9s %9s %11s %8s %5s %5s %9s %s\n", "kernel", "instrs", "cycles", "ideal", "barrier-all",
              "overhead", "virt", "phys", "insert_ms", "oracle");
  std::vector<double> overheads;
  double worstBigMs = 0;
  for (const auto& path : corpus(dir)) {
    Row r;
    if (!measure(path, *t, r)) continue;
    overheads.push_back(r.rep.overhead);
    if (r.dynInstrs >= 1000) worstBigMs = std::max(worstBigMs, r.bestMs);
    std::printf("%-22s %6lld %9.1f %9.1f %11.1f %8.3f %5d %5d %9.3f %s%s\n", r.name.c_str(),
                static_cast<long long>(r.dynInstrs), r.rep.cyclesMean, r.rep.idealMean, r.rep.barrierAllMean,
                r.rep.overhead, r.stats.maxVirtualPerPair, r.stats.physicalMaxPerPair, r.bestMs,
                r.rep.correct ? "ok" : "VIOLATION", r.rep.correct && !r.rep.robust ? " (not robust)" : "");
  }
  if (overheads.empty()) return;
  std::sort(overheads.begin(), overheads.end());
  double median = overheads[overheads.size() / 2];
  if (overheads.size() % 2 == 0) median = (overheads[overheads.size() / 2 - 1] + overheads[overheads.size() / 2]) / 2;
  std::printf("summary %s: kernels %zu, median overhead %.3f (goal <= 1.05), worst %.3f (goal <= 1.25), "
              "insertion for 1000+ instruction kernels <= %.3f ms (goal < 10)\n",
              targetName.c_str(), overheads.size(), median, overheads.back(), worstBigMs);
}

// The pattern kernels on ascend910: the heuristic's kept output against the exact optimum, all on the
// search's paths (every path up to 4096, else 258 sampled).
void runPatterns(const std::string& dir) {
  auto t = loadTarget("ascend910", "");
  if (!t) return;
  std::printf("\n== patterns on ascend910: cycles on the exact search's paths (nominal latencies)\n");
  std::printf("%-22s %11s %9s %9s %9s %9s %7s %7s %-8s %s\n", "kernel", "barrier-all", "ideal", "heuristic", "opt(4)",
              "opt(8)", "gap", "ms", "proved", "kept");
  for (const auto& path : corpus(dir)) {
    auto p = loadAsck(path);
    if (!p) continue;
    InsertOptions opt;
    opt.target = &*t;
    auto r = insertSync(*p, opt);
    if (!r) continue;
    auto g = measureGap(*p, r->output, *t);
    if (!g) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), g.error().str().c_str());
      continue;
    }
    std::printf("%-22s %11.1f %9.1f %9.1f %9.1f %9.1f %+6.1f%% %7.0f %-8s %s\n", std::filesystem::path(path).stem().string().c_str(),
                g->optimum.barrierAll, g->optimum.ideal, g->heuristic, g->optimum.cycles, g->otherOptimum.cycles, 100 * g->gap(),
                g->optimum.millis + g->otherOptimum.millis,
                g->optimum.proved ? "yes" : "no", r->stats.kept.c_str());
    if (!g->optimum.proved) std::printf("%-22s   (4 IDs not proved: %s)\n", "", g->optimum.reason.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : std::string(GIR_SOURCE_DIR) + "/tests/ascend/corpus";
  std::printf("virt: virtual IDs of the busiest pipe pair before merging; phys: physical IDs it uses.\n");
  runTarget(dir, "ascend910");
  runTarget(dir, "ascend910b");
  runPatterns(argc > 2 ? argv[2] : std::string(GIR_SOURCE_DIR) + "/tests/ascend/patterns");
  return 0;
}
