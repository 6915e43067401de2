// Software prefetch of a later block's device reads (docs/cpu.md, "Prefetch"): where a unit reads
// only a few short runs of DRAM and then computes for long, the hardware prefetcher sees too few
// misses in a row to run ahead, and every unit starts with a stall. Shared by the CPU emitter and its
// tests.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/cpu/CpuNodeEmitter.h"
#include "codegen/schedule/BlockOrder.h"

namespace gir::codegen::cpu {

// Units read less than this many bytes of device memory each for their reads to be prefetched: from
// it on a unit's own reads are a stream the hardware prefetcher follows (a LayerNorm row of 8 KB).
constexpr int64_t kPrefetchUnitBytes = 4096;
// How many blocks ahead, in the kernel's visit order: depthwise + SiLU b32 ran 26.5 ms without,
// 19.9 / 20.3 / 20.8 ms at 2 / 4 / 8 visits ahead (one run, interleaved, medians of 15).
constexpr int64_t kPrefetchVisitsAhead = 2;

// One device slice a kernel's units read: where it lies in the unit, how many elements its run spans.
struct PrefetchRead {
  SliceId slice;
  std::optional<UnitDomain> domain;  // the reading node's; none: every unit
  int64_t span = 0;                  // elements from the slice's first to its last
};

// The device reads of kernel `k` worth prefetching: dense runs (span at most twice the elements) at
// offsets that move with the unit, each slice once per domain. Empty when a unit reads
// kPrefetchUnitBytes of device memory or more, or nothing that moves with the unit.
std::vector<PrefetchRead> prefetchedReads(const EmitContext& c, const KernelSchedule& k);

// Statements at the top of a visit (after `blk` is known) that prefetch the reads of the block
// kPrefetchVisitsAhead visits later; nothing when `reads` is empty.
void emitPrefetch(CodeWriter& w, const EmitContext& c, const BlockOrder& order, const std::vector<PrefetchRead>& reads);

}  // namespace gir::codegen::cpu
