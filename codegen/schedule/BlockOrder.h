// The order a kernel's blocks are visited in (docs/cpu.md, "Block order"). The blocks of a kernel are
// independent (only its device syncs order them, and those end the kernel), so any order computes the
// same result; what it changes is how far apart in memory two blocks visited one after the other are.
//
// The unit numbering comes from the search, which must put a convolution's output rows outermost
// (their edge bands are other GIR nodes than the inner ones; search/lowering/IterationSpace.h): unit
// u = row * planes + plane. Visited in that order, consecutive units jump a whole plane, and the row
// that two units' windows share is read again a plane count later. Visited plane by plane, each
// worker walks its planes front to back. Depthwise 3x3 s2 + SiLU at 32x96x112x112: 33.6 -> 16.2 ms.
// Target-neutral: it says which block comes next; a back end spells the loop.
#pragma once

#include <cstdint>

#include "codegen/schedule/Schedule.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

struct BlockOrder {
  // The blocks with work in this kernel, [first, first + count): the others run none of its nodes. An
  // eager SiLU after a depthwise convolution runs on the convolution's 172,032 units, its nodes on the
  // first 3,072 (a plane each); a static schedule over every block gave them all to one thread.
  int64_t first = 0, count = 0;
  // Blocks per step of the slowest unit dim (0: index order) and the steps of that dim (then first = 0
  // and count is every block).
  int64_t period = 0;
  int64_t steps = 1;
  bool indexOrder() const { return period == 0; }
  // The block visited t-th: every step of the slow dim for one value of the fast ones, then the next.
  int64_t block(int64_t t) const { return indexOrder() ? first + t : (t % steps) * period + t / steps; }
};

// The kernel's blocks with work, in the order whose consecutive blocks lie closest in its device-level
// buffers: index order, or a divisor of the unit index (a u/k of some access) taken as the slowest dim
// and visited fastest, when that at least halves the distance between the first units of consecutive
// blocks.
BlockOrder blockOrder(const Graph& g, const Schedule& s, const KernelSchedule& k);

}  // namespace gir::codegen
