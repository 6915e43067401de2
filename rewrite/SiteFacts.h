// What each rule's match computed about a site beyond where it is: one type per rule, so that apply
// and explain read named facts instead of a shared struct's rule-specific fields (docs/rewrites.md,
// "Rules"). A Site carries exactly one of them, and a rule's apply refuses a site of another rule.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "core/gir/Graph.h"

namespace gir {

struct SyncInsertionFacts {
  Scope scope = Scope::Device;     // the scope the exchange needs
  std::string level;               // the level the buffer moves to ("" = it stays)
  std::vector<NodeId> rewire;      // lane scope: the readers that read the written slice instead
  bool operator==(const SyncInsertionFacts&) const = default;
};

// What the elementwise op moves across, towards its producer.
enum class SwapCrossing { StoreAndSync, Broadcast, Reduce };
struct SwapFacts {
  SwapCrossing crossing = SwapCrossing::StoreAndSync;
  bool operator==(const SwapFacts&) const = default;
};

struct MergeRawFacts {
  bool copyRedundant = false;      // one reader whose copy is itself redundant: its readers read the source
  std::vector<NodeId> rewire;      // then: the readers of that copy
  std::vector<SliceId> eraseSlices;  // slices left unused
  bool operator==(const MergeRawFacts&) const = default;
};

struct MergeRarFacts {
  std::vector<NodeId> rewire;      // the readers of the dropped copy
  SliceId dropped;                 // the dropped copy's slice
  bool operator==(const MergeRarFacts&) const = default;
};

struct DeadStoreFacts {
  std::vector<SliceId> unused;     // outputs nothing else writes: erased with the node
  bool operator==(const DeadStoreFacts&) const = default;
};

using SiteFacts = std::variant<SyncInsertionFacts, SwapFacts, MergeRawFacts, MergeRarFacts, DeadStoreFacts>;

}  // namespace gir
