// Buffer lifetimes over a schedule: what a register or scratch allocator would keep live at once.
// Capacity of a unit- or block-shared level is judged at the peak of live bytes, not by summing
// every buffer ever declared at the level (registers are reused once a value is dead).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/gir/Graph.h"

namespace gir {

struct LivePeak {
  int64_t bytes = 0;
  int position = -1;             // index into the order where the peak is reached
  std::vector<BufferId> live;    // the buffers live there
};

// Interval [first, last] of positions in `order` of nodes touching each buffer ({-1,-1}: untouched).
std::vector<std::pair<int, int>> bufferLiveIntervals(const Graph& g, const std::vector<NodeId>& order);

// The peak of sum(bytesPerBuffer[b]) over buffers at `level` live at one position.
// `alsoCount` (if valid) is counted as if it lived at `level` (a buffer about to be promoted there).
LivePeak peakLiveBytes(const Graph& g, const std::vector<std::pair<int, int>>& intervals, const std::string& level,
                       const std::vector<int64_t>& bytesPerBuffer, BufferId alsoCount = BufferId());

}  // namespace gir
