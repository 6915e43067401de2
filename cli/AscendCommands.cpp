// `gir ascend-sync` (set/wait insertion, stage dumps, figures) and `gir ascend-sim` (the oracle).
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/asck/AsckPrinter.h"
#include "codegen/ascend/asck/AsckValidator.h"
#include "codegen/ascend/sync/FlagInsertion.h"
#include "codegen/ascend/sync/FlagOptimal.h"

namespace gir::cli {

namespace {

using namespace gir::ascend;

struct Loaded {
  Program prog;
  Target target;
};

Expected<Loaded> loadKernel(const std::string& path, const std::string& targetOverride, bool input) {
  auto text = readFile(path);
  if (!text) return text.takeError();
  auto prog = parseAsck(*text, path);
  if (!prog) return prog.takeError();
  std::string dir = std::filesystem::path(path).parent_path().string();
  auto target = loadTarget(targetOverride.empty() ? prog->target : targetOverride, dir);
  if (!target) return target.takeError();
  auto ok = input ? validateInput(*prog, *text) : validateOutput(*prog, *text, target->flags);
  if (!ok) return ok.takeError();
  return Loaded{std::move(*prog), *target};
}

nlohmann::json statsJson(const InsertStats& s) {
  nlohmann::json portfolio = nlohmann::json::array();
  for (const auto& e : s.portfolio) portfolio.push_back({{"name", e.name}, {"cycles", e.cycles}});
  return {{"deps", s.deps},
          {"virtual_ids", s.virtualIds},
          {"max_virtual_per_pair", s.maxVirtualPerPair},
          {"max_live_virtual", s.maxLiveVirtual},
          {"physical_max_per_pair", s.physicalMaxPerPair},
          {"merges", s.merges},
          {"reverse_pairs", s.reversePairs},
          {"barriers", s.barriers},
          {"insertion_ms", s.millis},
          {"flag_cycles", s.flagCycles},
          {"barrier_all_cycles", s.barrierAllCycles},
          {"kept_barrier_all", s.keptBarrierAll},
          {"kept", s.kept},
          {"portfolio", portfolio}};
}

nlohmann::json optimumJson(const OptimalResult& r, int ids) {
  return {{"ids", ids},         {"cycles", r.cycles},         {"proved", r.proved},    {"reason", r.reason},
          {"best", r.best},     {"candidates", r.leaves},     {"bounded", r.bounded},  {"infeasible", r.infeasible},
          {"flags", r.flagsSearched}, {"shared_ids", r.sharedIds}, {"ms", r.millis}};
}

nlohmann::json gapJson(const GapReport& g) {
  return {{"heuristic_cycles", g.heuristic},
          {"gap", g.gap()},
          {"paths", g.optimum.paths},
          {"barrier_all_cycles", g.optimum.barrierAll},
          {"ideal_cycles", g.optimum.ideal},
          {"optimum", optimumJson(g.optimum, g.ids)},
          {"other_optimum", optimumJson(g.otherOptimum, g.otherIds)}};
}

std::string statsText(const InsertStats& s) {
  return "dependencies: " + std::to_string(s.deps) + "\nvirtual IDs: " + std::to_string(s.virtualIds) + " (max " +
         std::to_string(s.maxVirtualPerPair) + " per pipe pair, " + std::to_string(s.maxLiveVirtual) +
         " live at once)\nphysical IDs: " + std::to_string(s.physicalMaxPerPair) + " on the busiest pipe pair\nmerges: " +
         std::to_string(s.merges) + ", reverse pairs: " + std::to_string(s.reversePairs) +
         ", barriers: " + std::to_string(s.barriers) + "\ninsertion time: " + std::to_string(s.millis) + " ms\n" + portfolioText(s);
}

}  // namespace

int runAscendSync(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"o", "stage", "target", "baseline"}, {"stats", "json", "optimal"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1)
    return reportBadInput(makeError("usage: gir ascend-sync IN.asck [-o OUT.asck] [--stage NAME] [--stats] [--json] "
                                    "[--target ascend910|ascend910b] [--baseline barrier-all|flag-per-dep] [--optimal]"));
  auto k = loadKernel(args->positional[0], args->option("target"), true);
  if (!k) return reportBadInput(k.error());
  std::string stage = args->option("stage"), baseline = args->option("baseline");
  const auto& stages = insertionStages();
  if (!stage.empty() && std::find(stages.begin(), stages.end(), stage) == stages.end())
    return reportBadInput(makeError("unknown stage '" + stage + "' (deps, normalize, virtual, redundant, parity, merge, physical)"));
  if (!baseline.empty() && baseline != "barrier-all" && baseline != "flag-per-dep")
    return reportBadInput(makeError("unknown baseline '" + baseline + "' (barrier-all, flag-per-dep)"));
  if (baseline == "barrier-all") {
    auto st = writeOutput(args->option("o"), printAsck(barrierAllBaseline(k->prog)));
    return st ? kExitOk : reportBadInput(st.error());
  }
  InsertOptions opt;
  opt.flags = k->target.flags;
  opt.keepDumps = !stage.empty();
  opt.mergeVirtual = opt.removeRedundant = baseline.empty();
  opt.target = &k->target;
  if (!baseline.empty()) opt.variant = paperRulesVariant();
  auto res = insertSync(k->prog, opt);
  if (!res) {
    std::cerr << res.error().str() << "\n";
    return kExitFinding;
  }
  std::string text = printAsck(res->output);
  for (const auto& d : res->dumps)
    if (d.name == stage) text = d.text;
  if (args->has("stats") || args->has("json") || args->has("optimal")) {
    OracleReport rep = runOracle(res->output, k->target, normativeOracleOptions());
    std::optional<GapReport> gap;
    if (args->has("optimal")) {
      auto g = measureGap(k->prog, res->output, k->target);
      if (!g) {
        std::cerr << g.error().str() << "\n";
        return kExitFinding;
      }
      gap = std::move(*g);
    }
    if (args->has("json")) {
      nlohmann::json j = nlohmann::json::parse(oracleReportJson(rep, k->prog.name));
      j["insertion"] = statsJson(res->stats);
      j["target"] = k->target.name;
      if (gap) j["optimal"] = gapJson(*gap);
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << statsText(res->stats) << formatOracleReport(rep, k->prog.name) << (gap ? gapText(*gap) : "");
    }
    if (args->hasOption("o")) {
      auto st = writeOutput(args->option("o"), text);
      if (!st) return reportBadInput(st.error());
    }
    return rep.correct ? kExitOk : kExitFinding;
  }
  auto st = writeOutput(args->option("o"), text);
  return st ? kExitOk : reportBadInput(st.error());
}

int runAscendSim(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target"}, {"json"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1) return reportBadInput(makeError("usage: gir ascend-sim FILE.asck [--json] [--target NAME]"));
  auto k = loadKernel(args->positional[0], args->option("target"), false);
  if (!k) return reportBadInput(k.error());
  OracleReport rep = runOracle(k->prog, k->target, normativeOracleOptions());
  std::cout << (args->has("json") ? oracleReportJson(rep, k->prog.name) : formatOracleReport(rep, k->prog.name));
  return rep.correct ? kExitOk : kExitFinding;
}

}  // namespace gir::cli
