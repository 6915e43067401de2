// What a rule's match reads (docs/rewrites.md, "Matching"): the graph, its use-def, and analyses of
// the graph computed on first use and kept while the graph's editVersion is the one they were
// computed at. Passed explicitly to every matchAt; nothing is kept on the side between calls.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/gir/Graph.h"
#include "rewrite/SliceAnalysis.h"

namespace gir {

// Why a candidate anchor gave a rule no site (MLIR's debug log of failed matches; gir opt --debug-rewrites).
struct MatchRefusal {
  std::string rule;
  NodeId anchor;
  std::string reason;
};

class MatchContext {
 public:
  // `ud` must describe `g` whenever a rule matches through this context (the driver keeps it so).
  MatchContext(const Graph& g, const UseDef& ud);
  ~MatchContext();
  MatchContext(const MatchContext&) = delete;
  MatchContext& operator=(const MatchContext&) = delete;

  const Graph& graph() const { return g_; }
  const UseDef& useDef() const { return ud_; }

  // fitsAtLevel (SliceAnalysis.h), with the schedule and the per-level live bytes shared by every
  // call while the graph's editVersion stays the same; the answers are fitsAtLevel's.
  bool fitsAtLevel(const std::string& level, BufferId candidate, int64_t candidateBytes) const;

  // staysWithinScope (SliceAnalysis.h), its answers kept across edits where the buffer's accesses
  // did not change (ScopeFootprints): the answers are staysWithinScope's.
  bool staysWithinScope(BufferId buffer, Scope scope, int64_t& maxElementsPerInstance) const;

  // Answers a rule derives from an element-level walk, kept across edits: each is stored with the
  // key of everything the walk read (appendAccessKey and the rule's own facts, led by a tag naming
  // the question), and recalled only for an equal key. `slot` is where the answer is kept (a node
  // and a buffer); the key, not the slot, decides whether it still holds.
  std::optional<int64_t> recall(uint64_t slot, const std::vector<int64_t>& key) const;
  void remember(uint64_t slot, const std::vector<int64_t>& key, int64_t answer) const;

  // Refusals are recorded only into a log the caller gives; a rule asks `recordsRefusals()` before it
  // spends anything on building a reason.
  void recordRefusalsIn(std::vector<MatchRefusal>* log) { refusals_ = log; }
  bool recordsRefusals() const { return refusals_ != nullptr; }
  void refuse(std::string_view rule, NodeId anchor, std::string reason) const {
    if (refusals_) refusals_->push_back(MatchRefusal{std::string(rule), anchor, std::move(reason)});
  }

 private:
  const Graph& g_;
  const UseDef& ud_;
  mutable ScopeFootprints footprints_;        // across versions of g_
  mutable KeptAnswers answers_;               // recall/remember
  mutable std::unique_ptr<FitProfile> fits_;  // of g_ at fitsVersion_
  mutable uint64_t fitsVersion_ = 0;
  std::vector<MatchRefusal>* refusals_ = nullptr;
};

}  // namespace gir
