// The step API and its checked mode (MLIR's expensive pattern checks: verify after every rule,
// and catch a rule that said it applied but changed nothing).
#include "rewrite/Stepper.h"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/JsonText.h"
#include "core/gir/Printer.h"
#include "core/gir/SymbolicCheck.h"
#include "core/gir/Validity.h"
#include "core/gir/Verifier.h"

namespace gir {

Stepper::Stepper(Graph g, std::optional<HardwareDesc> hw, bool checked, uint64_t seed, bool recordCosts)
    : graph_(std::move(g)), ud_(computeUseDef(graph_)), hw_(std::move(hw)), checked_(checked), recordCosts_(recordCosts),
      rules_(allRules()) {
  if (!checked_ || !interpretable(graph_)) return;
  inputs_ = randomInputs(graph_, seed);
  auto out = interpret(graph_, inputs_);
  if (out) reference_ = std::move(*out);
}

// Capacity is the plan's to meet, not every step's: a merge can keep one more row live until the
// next merge drops a copy (LayerNorm 8192x1024 in two-row units holds 32,768 B of 32,640 for one
// step; docs/rewrites.md). A checked step fails on what makes a graph wrong: a verifier error, a
// race, a scope violation, an uninitialised read or changed outputs.
Status verifyOutputs(const Graph& g, const TensorMap& inputs, const TensorMap& reference, const std::string& context) {
  if (!interpretable(g)) {  // too large to run: decided on the affine forms instead
    if (auto st = verifyGraph(g); !st) return makeError(context + " left an invalid graph:\n" + st.error().str());
    auto report = checkMemoryModelSymbolic(g);  // an error here is isl's operation budget: inconclusive
    if (report && report->firstBeyondCapacity()) return makeError(context + " left an invalid graph:\n" + report->str());
    return success();
  }
  ValidityReport r = checkValidity(g, inputs);
  if (!r.verified || !r.runError.empty() || r.memory.firstBeyondCapacity()) return makeError(context + " left an invalid graph:\n" + r.str());
  // Exact rewrites may still round differently (swap moves a scaling across a sum): compare like
  // numpy.allclose with the tolerances the ONNX node tests use.
  std::string where;
  if (!allClose(r.outputs, reference, 1e-4, 1e-5, &where)) return makeError(context + " changed the outputs on random inputs: " + where);
  return success();
}

Status Stepper::verifyNow(const std::string& context) const { return verifyOutputs(graph_, inputs_, reference_, context); }

CostChange predictCostChange(const Graph& g, const GraphCost& now, const HardwareDesc* hw, const RewriteRule& rule, const Site& site) {
  Graph trial = g;
  GraphEditor ed(trial);
  if (!rule.apply(ed, site)) return {};
  GraphCost after = computeCost(trial, hw);
  return {after.modelledUs - now.modelledUs, after.dramBytes - now.dramBytes};
}

std::vector<Candidate> Stepper::candidates(bool withPrediction) const {
  std::vector<Candidate> out;
  GraphCost now = cost();
  for (const auto& rule : rules_) {
    auto sites = rule->match(graph_, ud_);
    for (size_t i = 0; i < sites.size(); ++i) {
      Candidate c{rule.get(), sites[i], i, rule->explain(graph_, sites[i]), 0, 0};
      if (withPrediction) {
        CostChange d = predictCostChange(graph_, now, hw_ ? &*hw_ : nullptr, *rule, sites[i]);
        c.predictedDeltaUs = d.us;
        c.predictedDeltaDramBytes = d.dramBytes;
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

Expected<StepRecord> Stepper::apply(const std::string& ruleName, size_t index) {
  const RewriteRule* rule = findRule(rules_, ruleName);
  if (!rule) {
    std::string known;
    for (const auto& r : rules_) known += (known.empty() ? "" : ", ") + std::string(r->name());
    return makeError("unknown rule '" + ruleName + "' (rules: " + known + ")");
  }
  auto sites = rule->match(graph_, ud_);
  if (index >= sites.size())
    return makeError("rule '" + ruleName + "' has " + std::to_string(sites.size()) + " site(s); there is no site " + std::to_string(index));
  return applySite(*rule, sites[index], index);
}

namespace {
void classifyNodeEdits(StepRecord& rec) {
  for (const Edit& e : rec.edits) {
    if (e.entity != Edit::Entity::Node) continue;
    bool wasLive = !std::get<Node>(e.before).erased, isLive = !std::get<Node>(e.after).erased;
    NodeId id(e.id);
    auto& list = wasLive && isLive ? rec.changedNodes : (isLive ? rec.addedNodes : rec.removedNodes);
    if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
  }
}
}  // namespace

// Checked mode: the step's recorded edits, replayed on the graph as it was, must give the graph as it
// is; otherwise the rule changed something behind GraphEditor's back, and undo, redo and traces would
// not reproduce it (docs/rewrites.md, "Step API and checked mode").
Status Stepper::replayMatches(Graph replay, const std::vector<Edit>& edits, const std::string& after, const std::string& context) {
  redoEdits(replay, edits);
  if (printGraph(replay) == after) return success();
  return makeError(context + " changed the graph beyond its recorded edits: replaying them on the graph before the step does not give the graph after it");
}

void Stepper::replaceGraph(Graph g) {
  // Sites matched on the graph it replaces must stay stale, whatever the new graph's edit count is.
  g.editVersion = std::max(g.editVersion, graph_.editVersion + 1);
  graph_ = std::move(g);
}

Expected<StepRecord> Stepper::applySite(const RewriteRule& rule, const Site& site, size_t index) {
  if (auto st = applySiteInPlace(rule, site, index); !st) return st.takeError();
  return history_.back();
}

Status Stepper::applySiteInPlace(const RewriteRule& rule, const Site& site, size_t index) {
  if (!mayStep()) return makeError(std::string(kStepCancelled));
  if (site.graphVersion != graph_.editVersion)
    return makeError("stale site " + site.key() + " for rule '" + std::string(rule.name()) + "': the graph changed since it was matched");
  StepRecord rec;
  rec.rule = std::string(rule.name());
  rec.siteIndex = index;
  rec.siteKey = site.key();
  rec.explanation = rule.explain(graph_, site);
  if (recordCosts_) rec.costBefore = cost();
  std::optional<Graph> beforeGraph;
  if (checked_) beforeGraph = graph_;
  std::string before = checked_ ? printGraph(graph_) : std::string();
  GraphEditor ed(graph_, &ud_);
  Status st = rule.apply(ed, site);
  rec.edits = ed.takeEdits();
  std::string context = "rule '" + rec.rule + "' at site " + std::to_string(index) + " (" + rec.siteKey + ")";
  std::string after = checked_ ? printGraph(graph_) : std::string();
  if (st && checked_ && after == before) st = makeError(context + " reported success but changed nothing");
  if (st && checked_) st = replayMatches(*beforeGraph, rec.edits, after, context);
  if (st && checked_) st = verifyNow(context);
  if (!st) {
    if (beforeGraph) replaceGraph(std::move(*beforeGraph));  // also undoes what the edit log missed
    else undoEdits(graph_, rec.edits);
    ud_ = computeUseDef(graph_);
    return st.takeError();
  }
  rec.verified = checked_;
  if (recordCosts_) rec.costAfter = cost();
  classifyNodeEdits(rec);
  history_.resize(position_);
  history_.push_back(std::move(rec));
  ++position_;
  return success();
}

void Stepper::adoptSteps(std::vector<StepRecord> steps, Graph result) {
  if (steps.empty()) return;
  history_.resize(position_);
  for (StepRecord& r : steps) history_.push_back(std::move(r));
  position_ = history_.size();
  replaceGraph(std::move(result));
  ud_ = computeUseDef(graph_);
}

bool Stepper::undo() {
  if (position_ == 0) return false;
  undoEdits(graph_, history_[--position_].edits);
  ud_ = computeUseDef(graph_);
  return true;
}

bool Stepper::redo() {
  if (position_ == history_.size()) return false;
  redoEdits(graph_, history_[position_++].edits);
  ud_ = computeUseDef(graph_);
  return true;
}

std::string traceToJson(const std::vector<StepRecord>& steps, size_t count) {
  nlohmann::json arr = nlohmann::json::array();
  for (size_t i = 0; i < count && i < steps.size(); ++i) {
    const StepRecord& s = steps[i];
    arr.push_back({{"rule", s.rule}, {"site", s.siteIndex}, {"key", s.siteKey}, {"explanation", s.explanation},
                   {"dram_bytes_before", s.costBefore.dramBytes}, {"dram_bytes_after", s.costAfter.dramBytes},
                   {"modelled_us_before", s.costBefore.modelledUs}, {"modelled_us_after", s.costAfter.modelledUs},
                   {"kernels_after", s.costAfter.kernels}});
  }
  return nlohmann::json{{"gir_trace", 1}, {"steps", arr}}.dump(1) + "\n";
}

Expected<std::vector<TraceStep>> parseTrace(const std::string& text, const std::string& file) {
  auto parsed = parseJsonText(text, file);
  if (!parsed) return parsed.takeError();
  nlohmann::json& root = *parsed;
  if (!root.is_object() || !root.contains("steps") || !root["steps"].is_array())
    return makeError("expected {\"gir_trace\": 1, \"steps\": [...]}", SourceLocation{file, 0, 0, ""});
  std::vector<TraceStep> out;
  const auto& steps = root["steps"];
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& s = steps[i];
    if (!s.is_object() || !s.contains("rule") || !s["rule"].is_string() || !s.contains("site") || !s["site"].is_number_unsigned())
      return makeError("expected {\"rule\": NAME, \"site\": N}", SourceLocation{file, 0, 0, "steps[" + std::to_string(i) + "]"});
    TraceStep t{s["rule"].get<std::string>(), s["site"].get<size_t>(), ""};
    if (s.contains("key") && s["key"].is_string()) t.key = s["key"].get<std::string>();
    out.push_back(std::move(t));
  }
  return out;
}

Status replayTrace(Stepper& stepper, const std::vector<TraceStep>& steps, const std::string& file) {
  for (size_t i = 0; i < steps.size(); ++i) {
    const TraceStep& t = steps[i];
    SourceLocation where{file, 0, 0, "steps[" + std::to_string(i) + "]"};
    const RewriteRule* rule = findRule(stepper.rules(), t.rule);
    if (!rule) return makeError("unknown rule '" + t.rule + "'", where);
    auto sites = stepper.sitesOf(*rule);
    size_t idx = t.site;
    if (!t.key.empty()) {
      auto it = std::find_if(sites.begin(), sites.end(), [&](const Site& x) { return x.key() == t.key; });
      if (it == sites.end()) return makeError("no site " + t.key + " of rule '" + t.rule + "' here", where);
      idx = static_cast<size_t>(it - sites.begin());
    }
    if (idx >= sites.size()) return makeError("the rule has no site " + std::to_string(idx) + " here", where);
    if (auto st = stepper.applySiteInPlace(*rule, sites[idx], idx); !st) return makeError(st.error().message, where);
  }
  return success();
}

Status replayTrace(Stepper& stepper, const std::string& text, const std::string& file) {
  auto steps = parseTrace(text, file);
  if (!steps) return steps.takeError();
  return replayTrace(stepper, *steps, file);
}

}  // namespace gir
