// Live intervals by one pass over the schedule; the peak by a sweep over interval end points.
#include "core/gir/Liveness.h"

#include <algorithm>

namespace gir {

std::vector<std::pair<int, int>> bufferLiveIntervals(const Graph& g, const std::vector<NodeId>& order) {
  std::vector<std::pair<int, int>> iv(g.buffers().size(), {-1, -1});
  for (int pos = 0; pos < static_cast<int>(order.size()); ++pos) {
    const Node& n = g.node(order[pos]);
    if (n.isSync()) continue;
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId s : *list) {
        auto& [first, last] = iv[g.slice(s).buffer.value];
        if (first < 0) first = pos;
        last = pos;
      }
  }
  return iv;
}

LivePeak peakLiveBytes(const Graph& g, const std::vector<std::pair<int, int>>& iv, const std::string& level,
                       const std::vector<int64_t>& bytes, BufferId alsoCount) {
  auto counts = [&](uint32_t b) { return !g.buffers()[b].erased && (g.buffers()[b].level == level || BufferId(b) == alsoCount); };
  std::vector<std::pair<int, int64_t>> events;  // (position, +bytes at start / -bytes after end)
  for (uint32_t b = 0; b < g.buffers().size(); ++b) {
    if (!counts(b) || iv[b].first < 0) continue;
    events.push_back({2 * iv[b].first, bytes[b]});
    events.push_back({2 * iv[b].second + 1, -bytes[b]});
  }
  std::sort(events.begin(), events.end());
  LivePeak peak;
  int64_t cur = 0;
  for (const auto& [pos, delta] : events) {
    cur += delta;
    if (cur > peak.bytes) {
      peak.bytes = cur;
      peak.position = pos / 2;
    }
  }
  for (uint32_t b = 0; b < g.buffers().size(); ++b)
    if (counts(b) && iv[b].first >= 0 && iv[b].first <= peak.position && iv[b].second >= peak.position)
      peak.live.push_back(BufferId(b));
  return peak;
}

}  // namespace gir
