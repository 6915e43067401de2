// Which stores the CPU emitter makes non-temporal (docs/cpu.md, "Streaming stores"): the emitter writes
// them, and the cost model prices them at the calibrated streaming-copy rate, from the same answers.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/schedule/FusedLoops.h"
#include "codegen/schedule/Schedule.h"
#include "core/gir/Graph.h"

namespace gir::codegen::cpu {

// A graph output this small stays on plain stores: streaming stores end each block with a fence.
constexpr int64_t kStreamMinBytes = 1 << 20;

// The floats of a 64-byte line: a streamed output goes out a line at a time.
constexpr int64_t kLineFloats = 16;

// Per buffer: a graph output written by one node and read by none, of at least kStreamMinBytes, in a
// graph whose global buffers together exceed `cacheBytes` (0: none). Their plain stores would only
// evict what the next reads need, and each pays a read-for-ownership.
std::vector<bool> streamedBuffers(const Graph& g, const Schedule& s, int64_t cacheBytes);

// Whether member k of a reduce-free loop group writes its output with streaming stores: a streamed
// buffer walked contiguously by the innermost loop, in rows of whole 64-byte lines that start on one.
bool streamsOutput(const Graph& g, const std::vector<bool>& streamed, const LoopGroup& grp, size_t k);

}  // namespace gir::codegen::cpu
