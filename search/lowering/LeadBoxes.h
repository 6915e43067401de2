// The "producer follows consumer" template (lead): a producer takes the boxes under which it writes
// exactly what each unit of a later consumer reads, the consumer split naturally. It is the mirror of
// follow, for the consumers that cannot follow their producer: a concat reads each input through a
// piece of its space, so the concat's natural split (indexed by destination) cannot be inverted onto
// the producer from the consumer's side, but it can be pushed back onto the producer from the
// producer's side. Through a chain of single-consumer ops (BN -> ReLU -> Concat) every op of the
// chain lands on the consumer's units; units that read nothing of the chain's tensor do nothing for
// it. The ShuffleNet fragment (docs/rewrites.md, "Worked example") with the concat's second input computed
// inside the subgraph; docs/plans.md, "Templates", lead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "search/lowering/IterationSpace.h"
#include "search/lowering/UnitBoxes.h"

namespace gir::search {

// The ops from `producer` to the op before `consumer` in subgraph order, each the only reader
// (inside the subgraph) of the one tensor the previous one hands on: producer, k1, k2, ..., and
// the consumer reads the last one's output. Fails when the path branches or does not reach it.
Expected<std::vector<size_t>> leadChain(const compute::Graph& g, const compute::Subgraph& sub, size_t producer, size_t consumer);

// The first op after `producer`, along its chain of single readers, that reads the chain's tensor
// through a piece of its space (a concat) or transposes it: the consumer a lead is offered for (none when the chain
// branches or ends first, or an op on it has no iteration space). `spaceOf(k)`: op k's space, or
// null; asked only for the ops of the chain (the search asks this for every op of every subgraph).
std::optional<size_t> leadTarget(const compute::Graph& g, const compute::Subgraph& sub,
                                 const std::function<const IterationSpace*(size_t)>& spaceOf, size_t producer);

// The producer's boxes when the consumer is split by natural[outer]x`tile`: each op of the chain,
// last first, takes the boxes under which it writes what the next one reads unit by unit. Every op
// of the chain must then compute each point of its space exactly once (else a consumer that reads
// only part of a tensor, or reads parts twice, would leave it half written: rejected with the reason)
// and fit `budget` (boxElementBudget; boxBudgetFor per op).
Expected<UnitBoxes> leadBoxes(const compute::Graph& g, const compute::Subgraph& sub, const std::vector<IterationSpace>& spaces, size_t producer,
                              size_t consumer, const std::vector<int>& outer, int64_t tile, int64_t budget);

// Whether the boxes compute every point of the space exactly once (boxes aligned to their extent).
Status coversOnce(const IterationSpace& s, const UnitBoxes& b);

}  // namespace gir::search
