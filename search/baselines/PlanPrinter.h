// Text and JSON forms of a baseline plan: kernels with their node instances, ext inputs and
// outputs, bytes and flops, the totals against the lower bound, and the decision log.
#pragma once

#include <string>

#include "search/baselines/PlanModel.h"

namespace gir::search {

// "name(kind)" of a node, e.g. "sm#2(exp)"; a Split's outputs get "/N".
std::string nodeLabel(const PlanProblem& p, int node);

std::string printPlan(const PlanProblem& p, const Plan& plan, bool withDecisions = true);
std::string planToJson(const PlanProblem& p, const Plan& plan, bool withDecisions = true);

}  // namespace gir::search
