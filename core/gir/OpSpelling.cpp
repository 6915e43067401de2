// Operation words, both ways, from one list of prefixes.
#include "core/gir/OpSpelling.h"

namespace gir {

namespace {

constexpr std::string_view kElementwisePrefix = "ew.";
constexpr std::string_view kReducePrefix = "reduce.";

}  // namespace

std::string opSpelling(const Node& n) {
  switch (n.kind()) {
    case NodeKind::Move: return "move";
    case NodeKind::Elementwise: return std::string(kElementwisePrefix) + std::string(elementwiseName(std::get<ElementwisePayload>(n.payload).op));
    case NodeKind::Reduce: return std::string(kReducePrefix) + std::string(reduceName(std::get<ReducePayload>(n.payload).op));
    case NodeKind::Broadcast: return "broadcast";
    case NodeKind::Sync: return "sync";
  }
  return "?";
}

Expected<SpelledOp> parseOpSpelling(std::string_view word) {
  SpelledOp op;
  if (word == "move") return op;
  if (word == "broadcast") return SpelledOp{NodeKind::Broadcast};
  if (word == "sync") return SpelledOp{NodeKind::Sync};
  if (word.substr(0, kElementwisePrefix.size()) == kElementwisePrefix) {
    std::string_view name = word.substr(kElementwisePrefix.size());
    auto e = parseElementwise(name);
    if (!e) return makeError("unknown elementwise operator '" + std::string(name) + "'");
    return SpelledOp{NodeKind::Elementwise, *e};
  }
  if (word.substr(0, kReducePrefix.size()) == kReducePrefix) {
    std::string_view name = word.substr(kReducePrefix.size());
    auto r = parseReduce(name);
    if (!r) return makeError("unknown reduction '" + std::string(name) + "' (expected sum, max, min or prod)");
    return SpelledOp{NodeKind::Reduce, ElementwiseOp::Copy, *r};
  }
  return makeError("unknown operation '" + std::string(word) + "'");
}

}  // namespace gir
