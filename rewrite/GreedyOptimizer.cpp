// Algorithm 1 over the step API.
#include "rewrite/GreedyOptimizer.h"

#include <random>

namespace gir {

std::string_view stopReasonName(StopReason r) {
  switch (r) {
    case StopReason::Converged: return "converged";
    case StopReason::StepLimit: return "step limit";
    case StopReason::StepFailed: return "step failed";
  }
  return "?";
}

namespace {

// Applies sites of `names` (in order of the list) until none matches; returns false on failure.
bool exhaust(Stepper& st, const std::vector<std::string_view>& names, const GreedyOptions& opt, std::mt19937_64& rng,
             GreedyResult& res, bool& applied) {
  for (;;) {
    bool any = false;
    for (auto name : names) {
      const RewriteRule* rule = findRule(st.rules(), name);
      auto sites = rule->match(st.graph());
      if (sites.empty()) continue;
      if (res.steps >= opt.maxSteps) {
        res.stop = StopReason::StepLimit;
        return false;
      }
      size_t pick = opt.randomSiteOrder ? std::uniform_int_distribution<size_t>(0, sites.size() - 1)(rng) : 0;
      auto rec = st.applySite(*rule, sites[pick], pick);
      if (!rec) {
        res.stop = StopReason::StepFailed;
        res.failure = rec.error().str();
        return false;
      }
      ++res.steps;
      any = applied = true;
      break;  // re-match from the first rule of the phase: earlier rules may have new sites
    }
    if (!any) return true;
  }
}

}  // namespace

GreedyResult runGreedy(Stepper& st, const GreedyOptions& opt) {
  GreedyResult res;
  std::mt19937_64 rng(opt.seed);
  for (;;) {
    bool applied = false;
    if (!exhaust(st, {"sync-insertion"}, opt, rng, res, applied)) return res;
    if (!exhaust(st, {"swap"}, opt, rng, res, applied)) return res;
    bool merged = false;
    if (!exhaust(st, {"merge-raw", "merge-rar", "dead-store"}, opt, rng, res, merged)) return res;
    if (!merged) return res;
  }
}

}  // namespace gir
