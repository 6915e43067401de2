// Text and JSON forms of a baseline plan (the golden files and `gir plan --json` use them).
#include "search/baselines/PlanPrinter.h"

#include <nlohmann/json.hpp>
#include <cctype>
#include <sstream>

namespace gir::search {

namespace {

std::string kindText(const PlanProblem& p, int node) {
  const compute::Op& op = p.op(node);
  if (auto* e = std::get_if<compute::ElementwiseAttrs>(&op.attrs)) return std::string(elementwiseName(e->fn));
  if (auto* r = std::get_if<compute::ReduceAttrs>(&op.attrs)) return "reduce." + std::string(reduceName(r->fn));
  std::string k(compute::opKindName(op.kind()));
  for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k;
}

std::string tensorList(const PlanProblem& p, const std::vector<TensorId>& ts) {
  std::string s;
  for (TensorId t : ts) s += (s.empty() ? "" : ", ") + p.graph->tensor(t).name;
  return s.empty() ? "-" : s;
}

std::string nodeName(const PlanProblem& p, int node) {
  return node < 0 ? std::string("-") : p.op(node).name + (p.node(node).fromSplit ? "/" + std::to_string(p.node(node).output) : "");
}

}  // namespace

std::string nodeLabel(const PlanProblem& p, int node) { return nodeName(p, node) + "(" + kindText(p, node) + ")"; }

std::string printPlan(const PlanProblem& p, const Plan& plan, bool withDecisions) {
  std::ostringstream os;
  os << "plan " << plan.planner << " of '" << p.name << "' [" << plan.options << "]\n";
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const PlannedKernel& kernel = plan.kernels[k];
    os << "kernel " << k << " " << kernelKindName(kernel.kind) << " {";
    for (size_t i = 0; i < kernel.instances.size(); ++i) os << (i ? ", " : "") << nodeLabel(p, kernel.instances[i]);
    os << "}\n  in:  " << tensorList(p, kernel.inputs) << "\n  out: " << tensorList(p, kernel.outputs) << "\n";
    os << "  R " << kernel.dramRead << " B  W " << kernel.dramWrite << " B  access " << kernel.accessRead
       << " B  flops " << kernel.flops << "\n";
  }
  for (int v : plan.views) os << "view " << nodeLabel(p, v) << "\n";
  const PlanTotals& t = plan.totals;
  os << "totals: kernels " << t.kernels << "  R " << t.dramRead << " B  W " << t.dramWrite << " B  dram "
     << t.dramBytes() << " B  lower bound " << plan.lowerBound << " B  access " << t.accessRead << " B  flops "
     << t.flops << "\n";
  if (!withDecisions) return os.str();
  os << "decisions:\n";
  for (const Decision& d : plan.decisions)
    os << "  " << d.step << " " << (d.accepted ? "yes " : "no  ") << d.ruleId << " " << nodeName(p, d.producer) << " -> "
       << nodeName(p, d.consumer) << (d.detail.empty() ? "" : "  (" + d.detail + ")") << "\n";
  return os.str();
}

std::string planToJson(const PlanProblem& p, const Plan& plan, bool withDecisions) {
  nlohmann::json j;
  j["planner"] = plan.planner;
  j["options"] = plan.options;
  j["kernels"] = nlohmann::json::array();
  for (const PlannedKernel& k : plan.kernels) {
    nlohmann::json jk;
    jk["kind"] = std::string(kernelKindName(k.kind));
    for (int n : k.instances) jk["nodes"].push_back(nodeLabel(p, n));
    jk["inputs"] = nlohmann::json::array();
    jk["outputs"] = nlohmann::json::array();
    for (TensorId t : k.inputs) jk["inputs"].push_back(p.graph->tensor(t).name);
    for (TensorId t : k.outputs) jk["outputs"].push_back(p.graph->tensor(t).name);
    jk["dram_read"] = k.dramRead;
    jk["dram_write"] = k.dramWrite;
    jk["access_read"] = k.accessRead;
    jk["flops"] = k.flops;
    j["kernels"].push_back(std::move(jk));
  }
  j["totals"] = {{"kernels", plan.totals.kernels}, {"dram_read", plan.totals.dramRead},
                 {"dram_write", plan.totals.dramWrite}, {"dram_bytes", plan.totals.dramBytes()},
                 {"access_read", plan.totals.accessRead}, {"flops", plan.totals.flops},
                 {"minimal_bytes", plan.lowerBound}};
  if (withDecisions) {
    j["decisions"] = nlohmann::json::array();
    for (const Decision& d : plan.decisions)
      j["decisions"].push_back({{"step", d.step}, {"producer", nodeName(p, d.producer)},
                                {"consumer", nodeName(p, d.consumer)}, {"rule", d.ruleId},
                                {"accepted", d.accepted}, {"detail", d.detail}});
  }
  return j.dump(2) + "\n";
}

}  // namespace gir::search
