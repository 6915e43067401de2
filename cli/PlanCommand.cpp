// `gir plan MODEL.onnx [--target T] [--planner gir|eager|xla|tvm|all] [--json] [--decisions]
//  [--no-validate] [--library-epilogue]`: plan every memory-bound subgraph of a model with the GIR planner and the baseline
// planners (docs/baselines.md), lower every plan to GIR with the same templates, check it
// (verifier, memory-model checker, reference evaluator), and print kernels, DRAM bytes, minimal
// bytes, modelled time and the search statistics per subgraph and in total. --library-epilogue folds
// each compute-bound call's epilogue into the call first (compute/LibraryFusion.h) and lists them.
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/compute/LibraryFusion.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"
#include "search/ModelPlanner.h"
#include "search/baselines/PlanPrinter.h"
#include "search/ModelPipeline.h"

namespace gir::cli {

namespace {

struct Sums {
  int64_t kernels = 0, dramBytes = 0, analyticKernels = 0, analyticBytes = 0;
  double modelledUs = 0;
  bool valid = true, analytic = false;
  void add(const search::PlannerResult& r) {
    kernels += r.lowered.cost.kernels;
    dramBytes += r.lowered.cost.dramBytes;
    modelledUs += r.lowered.cost.modelledUs;
    valid = valid && r.valid;
    if (r.analytic) {
      analytic = true;
      analyticKernels += r.analytic->totals.kernels;
      analyticBytes += r.analytic->totals.dramBytes();
    }
  }
  nlohmann::json json() const {
    nlohmann::json j{{"kernels", kernels}, {"dram_bytes", dramBytes}, {"modelled_us", modelledUs}, {"valid", valid}};
    if (analytic) {
      j["analytic_kernels"] = analyticKernels;
      j["analytic_dram_bytes"] = analyticBytes;
    }
    return j;
  }
};

void printTable(std::ostream& os, const std::vector<std::pair<std::string, Sums>>& rows, int64_t minimal) {
  os << "  " << std::left << std::setw(8) << "planner" << std::right << std::setw(9) << "kernels" << std::setw(14) << "dram_bytes"
     << std::setw(11) << "x minimal" << std::setw(13) << "modelled_us" << std::setw(8) << "valid" << std::setw(18) << "analytic k/bytes"
     << "\n";
  for (const auto& [name, s] : rows) {
    double ratio = minimal > 0 ? static_cast<double>(s.dramBytes) / static_cast<double>(minimal) : 0;
    os << "  " << std::left << std::setw(8) << name << std::right << std::setw(9) << s.kernels << std::setw(14) << s.dramBytes
       << std::setw(11) << std::fixed << std::setprecision(2) << ratio << std::setw(13) << std::setprecision(3) << s.modelledUs
       << std::setw(8) << (s.valid ? "yes" : "NO");
    if (s.analytic) os << std::setw(8) << s.analyticKernels << "/" << s.analyticBytes;
    os << "\n";
  }
}

struct Report {
  int64_t minimal = 0;
  search::SearchStats search;
  std::vector<std::pair<std::string, Sums>> totals;
  Sums& total(const std::string& name) {
    for (auto& t : totals)
      if (t.first == name) return t.second;
    totals.emplace_back(name, Sums{});
    return totals.back().second;
  }
};

nlohmann::json searchJson(const search::SearchStats& s) {
  return {{"explored", s.explored}, {"pruned", s.pruned}, {"infeasible", s.infeasible}, {"seconds", s.seconds}};
}

}  // namespace

int runPlan(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target", "planner"}, {"json", "decisions", "no-validate", "library-epilogue"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1)
    return reportBadInput(makeError("usage: gir plan MODEL.onnx [--target T] [--planner gir|eager|xla|tvm|all] [--json] [--decisions] [--library-epilogue]"));
  search::PlanRequest req;
  std::string which = args->option("planner", "all");
  if (which != "all") {
    const auto& names = search::plannerNames();
    if (std::find(names.begin(), names.end(), which) == names.end())
      return reportBadInput(makeError("unknown planner '" + which + "' (expected gir, eager, xla, tvm or all)"));
    req.planners = {which};
  }
  req.validate = !args->has("no-validate");
  req.libraryEpilogue = args->has("library-epilogue");
  auto hw = loadHardwareByName(args->option("target", "cpu-host"));
  if (!hw) return reportBadInput(hw.error());
  auto imported = search::importModel(args->positional[0], *hw);
  if (!imported) return reportBadInput(imported.error());
  const compute::Graph* graph = &imported->model;
  const compute::PreprocessResult* pre = &imported->pre;
  std::optional<compute::LibraryBoundaries> folded;  // what planModel folds, for the listing
  if (req.libraryEpilogue) {
    auto b = compute::foldLibraryEpilogues(*graph, *pre);
    if (!b) return reportBadInput(b.error());
    folded = std::move(*b);
  }
  auto plans = search::planModel(*graph, *pre, *hw, req);
  size_t covered = plans ? search::coveredSubgraphs(*plans) : 0;
  if (!plans || (covered == 0 && !plans->empty())) {  // nothing to compare: the first reason is the answer
    Diagnostic d = plans ? makeError(search::firstNotCovered(*plans)) : plans.error();
    d.location.file = args->positional[0];
    return reportBadInput(d);
  }
  Report rep;
  nlohmann::json subs = nlohmann::json::array();
  std::ostringstream text;
  text << "model " << args->positional[0] << " on " << hw->name << ": " << plans->size() << " memory-bound subgraphs\n";
  if (folded) text << compute::printLibraryEpilogues(*graph, *folded);
  nlohmann::json notCovered = nlohmann::json::array();
  for (const auto& sp : *plans) {
    if (!sp.notCovered.empty()) {  // partial coverage: listed, left out of the totals
      notCovered.push_back({{"index", sp.index}, {"ops", sp.subgraph->ops.size()}, {"minimal_bytes", sp.minimalBytes}, {"gir", sp.isGir()},
                            {"failed_planner", sp.failedPlanner}, {"reason", sp.notCovered}});
      text << "\nsubgraph " << sp.index << ": " << sp.subgraph->ops.size() << " ops, minimal " << sp.minimalBytes << " B: ";
      if (const auto* g = sp.find("gir"))
        text << "GIR (" << g->lowered.cost.kernels << " kernel(s), " << g->lowered.cost.dramBytes << " B), not compared: ";
      else
        text << (sp.failedPlanner == "gir" ? "not GIR: " : "not planned: ");
      text << sp.notCovered << "\n";
      continue;
    }
    rep.minimal += sp.minimalBytes;
    rep.search.explored += sp.search.explored;
    rep.search.pruned += sp.search.pruned;
    rep.search.infeasible += sp.search.infeasible;
    rep.search.seconds += sp.search.seconds;
    nlohmann::json js{{"index", sp.index}, {"ops", sp.subgraph->ops.size()}, {"minimal_bytes", sp.minimalBytes}, {"search", searchJson(sp.search)}};
    std::vector<std::pair<std::string, Sums>> rows;
    for (const auto& r : sp.planners) {
      Sums one;
      one.add(r);
      rep.total(r.planner).add(r);
      rows.emplace_back(r.planner, one);
      nlohmann::json jp = one.json();
      if (!r.origin.empty()) jp["origin"] = r.origin;
      if (!r.wholeSubgraphError.empty()) jp["whole_subgraph_error"] = r.wholeSubgraphError;
      if (!r.checkMethod.empty()) jp["check"] = r.checkMethod;
      if (!r.valid && !r.problem.empty()) jp["problem"] = r.problem;
      jp["max_rel_error"] = r.maxRelativeError;
      js["planners"][r.planner] = jp;
    }
    subs.push_back(js);
    text << "\nsubgraph " << sp.index << ": " << sp.subgraph->ops.size() << " ops, minimal " << sp.minimalBytes << " B\n";
    printTable(text, rows, sp.minimalBytes);
    if (const auto* g = sp.find("gir"))
      text << "  gir: " << g->origin << "; search " << sp.search.explored << " explored, " << search::formatCount(sp.search.pruned) << " pruned, "
           << std::setprecision(3) << sp.search.seconds << " s\n";
    if (const auto* g = sp.find("gir"); g && !g->wholeSubgraphError.empty()) text << "  gir: the whole subgraph gives no plan: " << g->wholeSubgraphError << "\n";
    if (const auto* g = sp.find("gir"); g && !g->checkMethod.empty()) text << "  checked: " << g->checkMethod << "\n";
    if (!sp.search.reducedInstance.empty()) text << "  searched on the reduced instance " << sp.search.reducedInstance << "\n";
    for (const auto& r : sp.planners)
      if (!r.valid && !r.problem.empty()) text << "  " << r.planner << " is not valid: " << r.problem << "\n";
    if (args->has("decisions")) {
      auto p = search::makeProblem(*graph, *sp.subgraph, "subgraph " + std::to_string(sp.index));
      for (const auto& r : sp.planners)
        if (r.analytic && p) text << search::printPlan(*p, *r.analytic, true);
    }
  }
  text << "\ntotal over " << covered << " of " << plans->size() << " subgraph(s)" << (covered < plans->size() ? " (the others are left out, above)" : "")
       << ": minimal " << rep.minimal << " B\n";
  printTable(text, rep.totals, rep.minimal);
  text << "search: " << rep.search.explored << " explored, " << search::formatCount(rep.search.pruned) << " pruned, " << std::setprecision(3) << rep.search.seconds << " s\n";
  if (args->has("json")) {
    nlohmann::json j{{"model", args->positional[0]}, {"target", hw->name}, {"minimal_bytes", rep.minimal}, {"search", searchJson(rep.search)}, {"subgraphs", subs},
                     {"covered_subgraphs", covered}, {"not_covered", notCovered}};
    if (folded) j["library_epilogues"] = nlohmann::json::parse(compute::libraryEpiloguesToJson(*graph, *folded));
    j["planners"] = nlohmann::json::object();
    for (const auto& [name, s] : rep.totals) j["planners"][name] = s.json();
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << text.str();
  }
  bool allValid = true;
  for (const auto& [name, s] : rep.totals) allValid = allValid && (s.valid || !req.validate);
  return allValid ? kExitOk : kExitFinding;
}

}  // namespace gir::cli
