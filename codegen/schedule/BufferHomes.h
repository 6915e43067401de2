// Where a per-unit buffer's instance lives when it need not be an array of its own (docs/cpu.md,
// "Buffer homes"). Two cases, both storage choices that move no byte between memory levels:
//  - a copy's source: the buffer is written once, by a move that copies a dense slice of a buffer
//    nothing in the kernel writes; the buffer is that slice, and the move stores nothing (a move into
//    registers is a load);
//  - an output: the buffer's last readers are in the fused group that writes a graph output at the
//    same elements, in the same order; the buffer is that output's slice, and the group overwrites
//    each element after reading it. The write-allocate of the output then happens in an earlier pass,
//    while that pass computes, and the last pass reads and writes lines already in L1.
// Target-neutral: it says which memory holds the instance; a backend spells the pointer.
#pragma once

#include <vector>

#include "codegen/schedule/FusedLoops.h"
#include "codegen/schedule/LoopBands.h"
#include "codegen/schedule/Schedule.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

enum class HomeKind { Own, CopySource, Output };

struct BufferHome {
  HomeKind kind = HomeKind::Own;
  SliceId slice;  // CopySource, Output: the global slice whose memory holds the unit's instance
  NodeId copy;    // CopySource: the move whose stores are dropped
};

// Per buffer id, for the per-unit buffers of one stage (fuseStage's groups and their bands) that need
// storage (not `values`), are not written with streaming stores (`streamed`, per buffer id; empty:
// none) and whose instance has at most `maxInstanceElements` (a backend keeps larger ones where it
// placed them). Every other buffer is Own.
std::vector<BufferHome> bufferHomes(const Graph& g, const Schedule& s, const std::vector<LoopGroup>& groups,
                                    const std::vector<LoopBand>& bands, const std::vector<bool>& values,
                                    const std::vector<bool>& streamed, int64_t maxInstanceElements);

}  // namespace gir::codegen
