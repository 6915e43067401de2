// Element-level facts the rules need: which unit wrote each element, whether a buffer's elements
// stay within one instance of a scope, how much of a level one instance uses.
#pragma once

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/gir/Graph.h"

namespace gir {

// The writer unit of each element of a buffer over some of its written slices. One instance answers
// many questions: `collect` costs what the slices write, not the buffer's size (a stamp per element
// says which collect wrote it), since sync insertion asks once per sync and filling a buffer-sized
// table each time was most of its cost.
class ElementWriters {
 public:
  void collect(const Graph& g, const UseDef& ud, BufferId buffer, const std::vector<SliceId>& written);
  // The unit that wrote element e in the last collect, or -1 (not written by those slices).
  int64_t operator[](int64_t e) const {
    return e >= 0 && e < size_ && stamp_[static_cast<size_t>(e)] == current_ ? unit_[static_cast<size_t>(e)] : -1;
  }

 private:
  std::vector<uint32_t> stamp_;
  std::vector<int64_t> unit_;
  uint32_t current_ = 0;
  int64_t size_ = 0;
};

// Scope instance of a unit: the unit itself for unit scope, its block for block scope, 0 for device.
int64_t instanceOf(const Graph& g, Scope scope, int64_t unit);

// True when every element of `buffer` is touched (by any non-sync node) by units of one instance of `scope`.
// Fills `maxElementsPerInstance` with the largest number of elements one instance touches.
bool staysWithinScope(const Graph& g, const UseDef& ud, BufferId buffer, Scope scope, int64_t& maxElementsPerInstance);

// The facts about slice `s` that element-level answers read, appended to `key`: its pattern, then
// the domain of each node that writes it and of each that reads it (a sync as a marker). Two graphs
// with equal keys for a question's slices give that question the same answer.
void appendAccessKey(const Graph& g, const UseDef& ud, SliceId s, std::vector<int64_t>& key);

// Answers kept across edits of a graph: each stored in a slot with the key of everything that went
// into it, and recalled only for an equal key (the key, not the slot, decides whether it holds).
class KeptAnswers {
 public:
  std::optional<int64_t> recall(uint64_t slot, const std::vector<int64_t>& key) const;
  void remember(uint64_t slot, const std::vector<int64_t>& key, int64_t answer);

 private:
  std::unordered_map<uint64_t, std::pair<std::vector<int64_t>, int64_t>> kept_;
};

// staysWithinScope's answers kept across edits of a graph: each is keyed by everything it reads (the
// units and block size, the buffer's size, and appendAccessKey of its live slices in use-def order),
// so an edit elsewhere keeps it and an edit of the buffer's accesses
// makes it be computed again. The greedy optimizer's capacity checks asked it for every buffer of a
// level after every step (docs/scale.md, "Plan time").
class ScopeFootprints {
 public:
  bool staysWithinScope(const Graph& g, const UseDef& ud, BufferId buffer, Scope scope, int64_t& maxElementsPerInstance);

 private:
  KeptAnswers kept_;  // per buffer and scope: the most elements one instance touches, or -1 (not staying)
  std::vector<int64_t> key_;
};

// Would `candidate` (footprint `candidateBytes` per instance) fit at `level` next to the buffers
// live at the same time? Judged at the peak of live bytes over the topological schedule.
bool fitsAtLevel(const Graph& g, const UseDef& ud, const std::string& level, BufferId candidate, int64_t candidateBytes);

// Does every capacity-limited level hold its live buffers at the peak of the topological schedule
// (footprints as fitsAtLevel judges them: conservative where the memory checker counts exactly)?
// `why` names the level and the bytes when not.
bool fitsCapacities(const Graph& g, std::string* why = nullptr);

// The whole-graph part of fitsAtLevel (the schedule, the live intervals, every buffer's bytes at a
// level) for one graph that does not change while it is used: one for every fits check of a match
// pass (MatchContext keeps it), where recomputing it per check made a pass over a graph with N syncs
// do N whole-graph analyses (0.4 s at 1,000 nodes). Answers are those fitsAtLevel gives.
class FitProfile {
 public:
  // `footprints` (optional, not owned) answers staysWithinScope across profiles of one graph.
  FitProfile(const Graph& g, const UseDef& ud, ScopeFootprints* footprints = nullptr);
  ~FitProfile();
  FitProfile(const FitProfile&) = delete;
  FitProfile& operator=(const FitProfile&) = delete;
  bool fits(const std::string& level, BufferId candidate, int64_t candidateBytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Some slice of this buffer is read through memory (its values come from writes to other slices).
bool readThroughMemory(const UseDef& ud, BufferId b);

bool domainWithin(const UnitDomain& inner, const UnitDomain& outer);

}  // namespace gir
