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

std::optional<int64_t> MatchContext::recall(uint64_t slot, const std::vector<int64_t>& key) const { return answers_.recall(slot, key); }

void MatchContext::remember(uint64_t slot, const std::vector<int64_t>& key, int64_t answer) const { answers_.remember(slot, key, answer); }

bool MatchContext::staysWithinScope(BufferId buffer, Scope scope, int64_t& maxElementsPerInstance) const {
  return footprints_.staysWithinScope(g_, ud_, buffer, scope, maxElementsPerInstance);
}

}  // namespace gir
