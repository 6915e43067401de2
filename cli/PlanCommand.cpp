// `gir plan MODEL.onnx [--target T] [--planner eager|xla|tvm|all] [--json] [--decisions]`: plan
// every memory-bound subgraph of a model with the baseline planners (baselines.md section 5) and
// print kernels, DRAM bytes and the lower bound per subgraph and in total.
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"
#include "search/baselines/PlanPrinter.h"
#include "search/baselines/Planners.h"

namespace gir::cli {

namespace {

// One column of the comparison: a planner by name. The GIR planner joins this list later.
struct PlannerEntry {
  std::string name;
  std::function<Expected<search::Plan>(const search::PlanProblem&)> run;
};

std::vector<PlannerEntry> allPlanners() {
  std::vector<PlannerEntry> out;
  for (const std::string& name : search::baselinePlannerNames())
    out.push_back({name, [name](const search::PlanProblem& p) { return search::runBaselinePlanner(name, p); }});
  return out;
}

Expected<std::vector<PlannerEntry>> selectPlanners(const std::string& which) {
  std::vector<PlannerEntry> all = allPlanners();
  if (which == "all") return all;
  for (PlannerEntry& e : all)
    if (e.name == which) return std::vector<PlannerEntry>{e};
  return makeError("unknown planner '" + which + "' (expected eager, xla, tvm or all)");
}

struct PlannerSums {
  int64_t kernels = 0, dramBytes = 0, dramRead = 0, dramWrite = 0, flops = 0;
  void add(const search::Plan& p) {
    kernels += p.totals.kernels;
    dramBytes += p.totals.dramBytes();
    dramRead += p.totals.dramRead;
    dramWrite += p.totals.dramWrite;
    flops += p.totals.flops;
  }
  nlohmann::json json() const {
    return {{"kernels", kernels}, {"dram_bytes", dramBytes}, {"dram_read", dramRead}, {"dram_write", dramWrite},
            {"flops", flops}};
  }
};

struct SubgraphResult {
  size_t ops = 0;
  int64_t minimalBytes = 0;
  std::vector<std::pair<std::string, search::Plan>> plans;
};

void printTable(std::ostream& os, const std::vector<std::pair<std::string, PlannerSums>>& rows, int64_t minimal) {
  os << "  " << std::left << std::setw(8) << "planner" << std::right << std::setw(9) << "kernels" << std::setw(16)
     << "dram_bytes" << std::setw(12) << "x minimal" << "\n";
  for (const auto& [name, s] : rows) {
    double ratio = minimal > 0 ? static_cast<double>(s.dramBytes) / static_cast<double>(minimal) : 0;
    os << "  " << std::left << std::setw(8) << name << std::right << std::setw(9) << s.kernels << std::setw(16)
       << s.dramBytes << std::setw(12) << std::fixed << std::setprecision(2) << ratio << "\n";
  }
}

Expected<std::vector<SubgraphResult>> planAll(const compute::Graph& g, const compute::PreprocessResult& pre,
                                              const std::vector<PlannerEntry>& planners,
                                              std::vector<search::PlanProblem>& problems) {
  std::vector<SubgraphResult> out;
  for (size_t s = 0; s < pre.subgraphs.size(); ++s) {
    auto p = search::makeProblem(g, pre.subgraphs[s], "subgraph " + std::to_string(s));
    if (!p) return p.takeError();
    problems.push_back(std::move(*p));
  }
  for (const search::PlanProblem& p : problems) {
    SubgraphResult r;
    r.ops = p.nodes.size();
    r.minimalBytes = search::lowerBoundBytes(p);
    for (const PlannerEntry& e : planners) {
      auto plan = e.run(p);
      if (!plan) return plan.takeError();
      r.plans.emplace_back(e.name, std::move(*plan));
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string renderJson(const std::string& model, const std::string& target, const std::vector<PlannerEntry>& planners,
                       const std::vector<SubgraphResult>& rs, const std::vector<search::PlanProblem>& problems,
                       bool decisions) {
  nlohmann::json j, subs = nlohmann::json::array();
  int64_t minimal = 0;
  std::map<std::string, PlannerSums> totals;
  for (const PlannerEntry& e : planners) totals[e.name] = {};  // present even with no subgraph
  for (size_t s = 0; s < rs.size(); ++s) {
    nlohmann::json js{{"index", s}, {"nodes", rs[s].ops}, {"minimal_bytes", rs[s].minimalBytes}};
    minimal += rs[s].minimalBytes;
    for (const auto& [name, plan] : rs[s].plans) {
      PlannerSums one;
      one.add(plan);
      totals[name].add(plan);
      js["planners"][name] = one.json();
      if (decisions) js["plans"][name] = nlohmann::json::parse(search::planToJson(problems[s], plan, true));
    }
    subs.push_back(std::move(js));
  }
  j["model"] = model;
  j["target"] = target;
  j["minimal_bytes"] = minimal;
  for (const auto& [name, sums] : totals) j["planners"][name] = sums.json();
  j["subgraphs"] = std::move(subs);
  return j.dump(2) + "\n";
}

void renderText(std::ostream& os, const std::string& model, const std::string& target,
                const std::vector<PlannerEntry>& planners, const std::vector<SubgraphResult>& rs,
                const std::vector<search::PlanProblem>& problems, bool decisions) {
  os << "model " << model << " on " << target << ": " << rs.size() << " memory-bound subgraphs\n";
  int64_t minimal = 0;
  std::vector<std::pair<std::string, PlannerSums>> totals;
  for (const PlannerEntry& e : planners) totals.emplace_back(e.name, PlannerSums{});
  for (size_t s = 0; s < rs.size(); ++s) {
    os << "\nsubgraph " << s << ": " << rs[s].ops << " nodes, minimal " << rs[s].minimalBytes << " B\n";
    std::vector<std::pair<std::string, PlannerSums>> rows;
    for (const auto& [name, plan] : rs[s].plans) {
      rows.emplace_back(name, PlannerSums{});
      rows.back().second.add(plan);
      for (auto& t : totals)
        if (t.first == name) t.second.add(plan);
    }
    printTable(os, rows, rs[s].minimalBytes);
    if (decisions)
      for (const auto& [name, plan] : rs[s].plans) os << search::printPlan(problems[s], plan, true);
    minimal += rs[s].minimalBytes;
  }
  os << "\ntotal: minimal " << minimal << " B\n";
  printTable(os, totals, minimal);
}

}  // namespace

int runPlan(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target", "planner"}, {"json", "decisions"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1)
    return reportBadInput(makeError(
        "usage: gir plan MODEL.onnx [--target T] [--planner eager|xla|tvm|all] [--json] [--decisions]"));
  auto planners = selectPlanners(args->option("planner", "all"));
  if (!planners) return reportBadInput(planners.error());
  auto hw = loadHardwareByName(args->option("target", "cpu-host"));
  if (!hw) return reportBadInput(hw.error());
  auto graph = compute::importOnnxFile(args->positional[0]);
  if (!graph) return reportBadInput(graph.error());
  auto pre = compute::preprocess(*graph, *hw);
  if (!pre) return reportBadInput(pre.error());
  std::vector<search::PlanProblem> problems;
  problems.reserve(pre->subgraphs.size());
  auto results = planAll(*graph, *pre, *planners, problems);
  if (!results) return reportBadInput(results.error());
  if (args->has("json"))
    std::cout << renderJson(args->positional[0], hw->name, *planners, *results, problems, args->has("decisions"));
  else
    renderText(std::cout, args->positional[0], hw->name, *planners, *results, problems, args->has("decisions"));
  return kExitOk;
}

}  // namespace gir::cli
