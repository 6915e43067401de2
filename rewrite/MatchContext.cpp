// The match context: analyses keyed by the graph's editVersion.
#include "rewrite/MatchContext.h"

namespace gir {

MatchContext::MatchContext(const Graph& g, const UseDef& ud) : g_(g), ud_(ud) {}

MatchContext::~MatchContext() = default;

bool MatchContext::fitsAtLevel(const std::string& level, BufferId candidate, int64_t candidateBytes) const {
  if (!fits_ || fitsVersion_ != g_.editVersion) {
    fits_ = std::make_unique<FitProfile>(g_, ud_, &footprints_);
    fitsVersion_ = g_.editVersion;
  }
  return fits_->fits(level, candidate, candidateBytes);
}

bool MatchContext::staysWithinScope(BufferId buffer, Scope scope, int64_t& maxElementsPerInstance) const {
  return footprints_.staysWithinScope(g_, ud_, buffer, scope, maxElementsPerInstance);
}

}  // namespace gir
