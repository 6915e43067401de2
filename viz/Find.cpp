// A linear scan with a lower-cased query: a 2,000-node graph answers in well under a millisecond
// (bench_layout), so no index is kept.
#include "viz/Find.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace gir::viz {

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool containsFolded(std::string_view text, const std::string& foldedQuery) {
  auto it = std::search(text.begin(), text.end(), foldedQuery.begin(), foldedQuery.end(), [](char a, char b) { return lower(a) == b; });
  return it != text.end();
}

}  // namespace

std::vector<int> findNodes(const VizGraph& g, std::string_view query) {
  std::vector<int> hits;
  if (query.empty()) return hits;
  std::string q(query);
  std::transform(q.begin(), q.end(), q.begin(), lower);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const VizNode& n = g.nodes[i];
    if (n.kind == ItemKind::Cluster) continue;
    if (containsFolded(n.label, q) || containsFolded(n.detail, q) || containsFolded(n.key, q)) hits.push_back(static_cast<int>(i));
  }
  return hits;
}

}  // namespace gir::viz
