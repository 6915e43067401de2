// The share of device reads the visits just before made already (VisitReuse.h).
#include "codegen/schedule/VisitReuse.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>

#include "codegen/schedule/BlockOrder.h"
#include "core/gir/Interpreter.h"

namespace gir::codegen {

namespace {

// The lines (of `elementsPerLine` elements) slice `sl` touches on unit u, run by run (the interpreter's
// `sliceRuns`), until `lines` holds `cap` of them: a unit that reads a whole large tensor is sampled,
// not enumerated. A verified slice's elements lie in its buffer, so the divisions need no flooring.
void addLines(const MemorySlice& sl, int64_t u, int64_t elementsPerLine, int64_t cap, std::set<int64_t>& lines) {
  if (sl.numel() == 0) return;
  thread_local std::vector<ElementRun> runs;
  sliceRuns(sl, u, runs);
  for (const ElementRun& run : runs)
    for (int64_t line = run.begin / elementsPerLine, last = (run.end - 1) / elementsPerLine; line <= last; ++line) {
      if (static_cast<int64_t>(lines.size()) >= cap) return;
      lines.insert(line);
    }
}

struct Tally {
  int64_t lines = 0, revisited = 0;
};

}  // namespace

std::map<uint32_t, double> revisitedReadShare(const Graph& g, const Schedule& s, const KernelSchedule& k,
                                              const std::vector<DeviceRead>& reads, const VisitReuseOptions& o) {
  std::map<uint32_t, std::vector<const DeviceRead*>> byBuffer;
  for (const DeviceRead& r : reads) byBuffer[g.slice(r.slice).buffer.value].push_back(&r);
  const int64_t elementsPerLine = std::max<int64_t>(1, o.lineBytes / 4);
  const int64_t windowLines = std::max<int64_t>(1, o.windowBytes / std::max<int64_t>(1, o.lineBytes));
  const BlockOrder order = blockOrder(g, s, k);
  std::map<uint32_t, double> share;
  for (const auto& [buffer, bufferReads] : byBuffer) {
    Tally tally;
    std::deque<std::vector<int64_t>> window;  // per unit walked, oldest first: the lines it read
    std::unordered_map<int64_t, int> inWindow;
    int64_t windowSize = 0, touches = 0;
    for (int64_t t = 0; t < std::min(order.count, o.maxVisits) && touches < o.maxLineTouches; ++t) {
      const int64_t u0 = order.block(t) * s.unitsPerBlock, u1 = std::min(u0 + s.unitsPerBlock, s.units);
      for (int64_t u = u0; u < u1; ++u) {
        std::set<int64_t> lines;
        for (const DeviceRead* r : bufferReads)
          if (r->domain.contains(u)) addLines(g.slice(r->slice), u, elementsPerLine, o.maxLineTouches - touches, lines);
        touches += static_cast<int64_t>(lines.size());
        tally.lines += static_cast<int64_t>(lines.size());
        for (int64_t line : lines) tally.revisited += inWindow.count(line);
        for (int64_t line : lines) ++inWindow[line];
        windowSize += static_cast<int64_t>(lines.size());
        window.emplace_back(lines.begin(), lines.end());
        while (windowSize > windowLines && window.size() > 1) {
          for (int64_t line : window.front())
            if (--inWindow[line] == 0) inWindow.erase(line);
          windowSize -= static_cast<int64_t>(window.front().size());
          window.pop_front();
        }
      }
    }
    share[buffer] = tally.lines > 0 ? static_cast<double>(tally.revisited) / static_cast<double>(tally.lines) : 0.0;
  }
  return share;
}

}  // namespace gir::codegen
