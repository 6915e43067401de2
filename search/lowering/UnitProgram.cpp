// Segments of units -> GIR slices and nodes with domains.
#include "search/lowering/UnitProgram.h"

#include <algorithm>

namespace gir::search {

int UnitProgram::slice(BufferId b, int64_t offset, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  if (shape.empty()) {
    shape = {1};
    strides = {1};
  }
  slices.push_back(SliceSpec{b, offset, std::move(shape), std::move(strides)});
  return static_cast<int>(slices.size()) - 1;
}

bool UnitProgram::sameStructure(const UnitProgram& o) const {
  if (slices.size() != o.slices.size() || nodes != o.nodes) return false;
  for (size_t i = 0; i < slices.size(); ++i)
    if (!slices[i].sameLayout(o.slices[i])) return false;
  return true;
}

namespace {

bool isRead(const UnitProgram& p, int slice) {
  for (const auto& n : p.nodes)
    for (int o : n.outputs)
      if (o == slice) return false;
  return true;
}

}  // namespace

void PhasePrograms::add(std::optional<UnitProgram> p) {
  if (!p) return offsets_.addIdle();
  // Neighbouring units alternate among few structures (edge bands, pieces): look back a few classes.
  constexpr size_t kLookBack = 8;
  int64_t cls = -1;
  for (size_t k = 0; k < std::min(kLookBack, classes_.size()) && cls < 0; ++k)
    if (classes_[classes_.size() - 1 - k].sameStructure(*p)) cls = static_cast<int64_t>(classes_.size() - 1 - k);
  std::vector<int64_t> offsets;
  offsets.reserve(p->slices.size());
  for (const auto& s : p->slices) offsets.push_back(s.offset);
  offsets_.add(cls >= 0 ? cls : static_cast<int64_t>(classes_.size()), offsets);
  if (cls < 0) classes_.push_back(std::move(*p));
}

Materialized materialize(Graph& g, const PhasePrograms& programs, const std::vector<int64_t>& divisors, SliceCache& shared) {
  Materialized out;
  for (const auto& seg : segmentUnits(programs.offsets(), divisors)) {
    const UnitProgram& p = programs.program(programs.offsets().cls(seg.begin));
    std::vector<SliceId> ids;
    for (size_t i = 0; i < p.slices.size(); ++i) {
      const auto& s = p.slices[i];
      MemorySlice ms{s.buffer, seg.offsets[i], s.shape, s.strides};
      bool read = isRead(p, static_cast<int>(i));
      if (read && g.levelOf(s.buffer)->scope == Scope::Device) {
        auto key = std::make_tuple(s.buffer.value, seg.offsets[i].str(), s.shape, s.strides);
        auto it = shared.find(key);
        if (it == shared.end()) it = shared.emplace(key, g.addSlice(ms)).first;
        ids.push_back(it->second);
      } else {
        ids.push_back(g.addSlice(ms));
      }
      (read ? out.reads : out.writes).emplace_back(s.buffer, ids.back());
    }
    std::optional<UnitDomain> domain;
    if (seg.begin != 0 || seg.end != g.units) domain = UnitDomain{seg.begin, seg.end};
    for (const auto& n : p.nodes) {
      Node node{n.payload, {}, {}, domain};
      for (int i : n.inputs) node.inputs.push_back(ids[i]);
      for (int o : n.outputs) node.outputs.push_back(ids[o]);
      g.addNode(std::move(node));
    }
  }
  return out;
}

}  // namespace gir::search
