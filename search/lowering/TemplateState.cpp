// Natural boxes from the template's parameters; follow boxes from the producer's placement; lead
// boxes from a later consumer's natural split.
#include "search/lowering/TemplateState.h"

#include "search/lowering/SplitReduction.h"
#include "search/lowering/TiledTranspose.h"

#include <algorithm>
#include <set>

#include "search/lowering/LeadBoxes.h"

namespace gir::search {

namespace {

Diagnostic opError(const compute::Op& op, const std::string& why) {
  return makeError(why, SourceLocation{"", 0, 0, "op '" + op.name + "' (" + std::string(compute::opKindName(op.kind())) + ")"});
}

}  // namespace

OpTemplate OpTemplate::consumerSplit() const { return OpTemplate{Kind::Natural, outer, tile, -1, -1, 0, tileBefore}; }

std::string OpTemplate::str() const {
  if (kind == Kind::Follow) return "follow#" + std::to_string(read);
  if (kind == Kind::Tiled) return "tiled" + std::to_string(tile) + "/" + std::to_string(parts);
  if (kind == Kind::Lead) return "lead@" + std::to_string(consumer) + ":" + consumerSplit().str();
  std::string s = "natural[";
  for (size_t i = 0; i < outer.size(); ++i) s += (i ? "," : "") + std::to_string(outer[i]);
  return s + "]x" + (tileBefore > 1 ? std::to_string(tileBefore) + "," : "") + std::to_string(tile);
}

int64_t boxElementBudget(const HardwareDesc& hw) {
  const MemoryLevelDesc* reg = hw.levelForScope(Scope::Unit);
  if (!reg || reg->capacityBytes <= 0) return int64_t{1} << 16;
  return std::max<int64_t>(1, reg->capacityBytes / (4 * 3));
}

int64_t boxBudgetFor(const IterationSpace& s, int64_t budget) {
  bool light = s.compute == ComputeKind::Reduce || s.compute == ComputeKind::Copy;
  return light ? budget * 3 / 2 : budget;
}

int64_t contractionChunk(const IterationSpace& s, const std::vector<int64_t>& ext, int64_t budget) {
  int64_t k = ext.back(), out = 1;
  for (size_t d = 0; d + 1 < ext.size(); ++d) out *= ext[d];
  if (out * k <= budget) return k;
  // A chunk's three copies (A's and B's pieces, their product) live with the running sum: one more
  // output part.
  int64_t chunk = k;
  while (chunk > 1 && (k % chunk != 0 || out * (chunk + 1) > budget)) --chunk;
  // More than 64 chunks (a prime K, a wide output part) would be a long chain of tiny nodes: the
  // box is refused as if unchunked instead.
  return s.compute == ComputeKind::Contract && k / chunk <= 64 ? chunk : k;
}

int64_t liveBoxElements(const IterationSpace& s, const std::vector<int64_t>& ext, int64_t budget) {
  int64_t n = 1;
  for (auto e : ext) n *= e;
  if (s.compute == ComputeKind::Contract) {
    int64_t chunk = contractionChunk(s, ext, budget);
    return chunk == ext.back() ? n : n / ext.back() * (chunk + 1);
  }
  if (s.compute != ComputeKind::Pool) return n;
  const auto& c = s.conv;
  int64_t rows = (ext[2] - 1) * c.strides[0] + (s.kH - 1) * c.dilations[0] + 1;
  int64_t cols = std::max(c.pads[1] + s.inW, (s.dims[3] - 1) * c.strides[1] + (s.kW - 1) * c.dilations[1] + 1);
  return ext[0] * ext[1] * rows * cols;
}

Expected<TemplateState> TemplateState::make(const compute::Graph& g, const compute::Subgraph& sub, int64_t maxBoxElements) {
  TemplateState st;
  st.maxBox_ = maxBoxElements;
  st.g_ = &g;
  st.sub_ = &sub;
  for (auto id : sub.ops) {
    auto s = iterationSpace(g, g.op(id));
    if (!s) return s.takeError();
    st.spaces_.push_back(std::move(*s));
  }
  return st;
}

Expected<UnitBoxes> TemplateState::boxesFor(size_t i, const OpTemplate& t) const {
  const IterationSpace& s = spaces_[i];
  auto b = t.kind == OpTemplate::Kind::Natural ? naturalBoxes(s, t.outer, t.tile, t.tileBefore)
           : t.kind == OpTemplate::Kind::Follow ? follow(i, t)
           : t.kind == OpTemplate::Kind::Tiled  ? tiledBoxes(s, t.tile, t.parts)
                                                : lead(i, t);
  int64_t budget = boxBudgetFor(s, maxBox_);
  if (b && liveBoxElements(s, b->ext, budget) > budget)
    return makeError("a unit's box would hold " + std::to_string(liveBoxElements(s, b->ext, budget)) + " elements, over the register budget of " +
                     std::to_string(budget));
  if (b && i < fullSize_.size()) {
    // A dim is held whole when the box spans it and no split names it (a natural split's unit dims
    // stay split at full size, even where the reduced extent is one tile).
    std::vector<int64_t> full = b->ext;
    for (size_t d = 0; d < b->ext.size() && d < fullSize_[i].size(); ++d) {
      bool split = t.kind == OpTemplate::Kind::Natural ? std::count(t.outer.begin(), t.outer.end(), static_cast<int>(d)) > 0 : s.dims[d] == 1;
      if (b->ext[d] == s.dims[d] && !split) full[d] *= fullSize_[i][d];
    }
    int64_t live = liveBoxElements(s, full, budget);
    if (live > budget)
      return makeError("at full size a unit's box would hold " + std::to_string(live) + " elements, over the register budget of " + std::to_string(budget));
  }
  if (b) b->chunk = contractionChunk(s, b->ext, budget);
  if (b && splitsReduction(s, *b))
    if (auto groups = reductionGroups(s, *b); !groups) return groups.takeError();
  return b;
}

Expected<UnitBoxes> TemplateState::follow(size_t i, const OpTemplate& t) const {
  const IterationSpace& s = spaces_[i];
  if (t.read < 0 || t.read >= static_cast<int>(s.reads.size())) return makeError("no such input");
  auto it = placements_.find(s.reads[t.read].tensor);
  if (it == placements_.end()) return makeError("input " + std::to_string(t.read) + " is not produced inside the subgraph");
  return followBoxes(s, s.reads[t.read], it->second);
}

// Independent of the prefix: the consumer's split is given, and the ops between are pushed back
// from it. Whatever the consumer picks later, the boxes compute the op once (coversOnce), so the
// graph is valid; only the consumer's taking the same split keeps the tensor in registers.
Expected<UnitBoxes> TemplateState::lead(size_t i, const OpTemplate& t) const {
  if (t.consumer <= static_cast<int>(i) || t.consumer >= static_cast<int>(spaces_.size()))
    return makeError("lead: op " + std::to_string(t.consumer) + " is not a later op of the subgraph");
  return leadBoxes(*g_, *sub_, spaces_, i, static_cast<size_t>(t.consumer), t.outer, t.tile, maxBox_);
}

Status TemplateState::push(const OpTemplate& t) {
  size_t i = boxes_.size();
  if (i == spaces_.size()) return makeError("every op already has a template");
  auto b = boxesFor(i, t);
  if (!b) return opError(g_->op(sub_->ops[i]), "template " + t.str() + ": " + b.error().message);
  for (const auto& w : spaces_[i].writes) placements_[w.tensor] = placementOf(*b, w);
  if (splitsReduction(spaces_[i], *b)) {  // only each group's combiner holds the combined result
    auto groups = reductionGroups(spaces_[i], *b);
    auto& held = placements_[spaces_[i].writes[0].tensor];
    auto byIndex = combinedByIndex(*groups);
    if (!byIndex.empty()) {
      TensorPlacement combiners(held.size());
      for (size_t g = 0; g < byIndex.size() && g < held.size(); ++g) combiners[g] = held[static_cast<size_t>(byIndex[g].leader())];
      held = std::move(combiners);
    }
    for (int64_t u = 0; byIndex.empty() && u < b->units(); ++u)
      if ((*groups)[u] && (*groups)[u]->leader() != u) held[u].reset();
  }
  boxes_.push_back(std::move(*b));
  choice_.push_back(t);
  return success();
}

int64_t TemplateState::exchangedBytes() const {
  int64_t bytes = 0;
  std::set<TensorId> counted;
  for (size_t i = 0; i < boxes_.size(); ++i)
    for (const auto& r : spaces_[i].reads) {
      auto it = placements_.find(r.tensor);
      if (it == placements_.end() || counted.count(r.tensor)) continue;
      const TensorPlacement& written = it->second;
      bool local = boxes_[i].units() <= static_cast<int64_t>(written.size());
      for (int64_t u = 0; local && u < boxes_[i].units(); ++u) {
        auto read = accessSlice(boxes_[i], u, r);
        local = !read || (written[u] && *written[u] == *read);
      }
      if (local) continue;
      counted.insert(r.tensor);
      bytes += 2 * 4 * compute::numElements(g_->tensor(r.tensor).dims);
    }
  return bytes;
}

void TemplateState::pop() {
  size_t i = boxes_.size() - 1;
  for (const auto& w : spaces_[i].writes) placements_.erase(w.tensor);
  boxes_.pop_back();
  choice_.pop_back();
}

}  // namespace gir::search
