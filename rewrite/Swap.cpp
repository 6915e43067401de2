// swap: match finds an elementwise node E with one slice operand whose producer chain allows it to
// move up; apply computes E on the producer's input into a fresh buffer and turns E into the
// movement, broadcast or reduce it crossed.
#include "rewrite/Swap.h"

#include "rewrite/SliceAnalysis.h"

namespace gir {

namespace {

// E has exactly one slice operand (others immediates) and one reader of its input.
bool isUnaryElementwise(const Node& n) {
  if (n.kind() != NodeKind::Elementwise || n.inputs.size() != 1) return false;
  return std::get<ElementwisePayload>(n.payload).op != ElementwiseOp::Copy;
}

bool onlyReader(const UseDef& ud, SliceId s, NodeId n) {
  return ud.readers[s.value].size() == 1 && ud.readers[s.value][0] == n;
}

// The chain E <- sync S <- store W through one temp buffer used by nothing else: nullptr, with `site`
// filled, or why not.
const char* matchAcrossSync(const Graph& g, const UseDef& ud, NodeId e, Site& site) {
  SliceId s2 = g.node(e).inputs[0];
  if (ud.writers[s2.value].size() != 1 || !onlyReader(ud, s2, e)) return "its input has another writer or reader";
  NodeId sId = ud.writers[s2.value][0];
  const Node& s = g.node(sId);
  if (!s.isSync()) return "its input is not written by a sync";
  BufferId b = g.slice(s2).buffer;
  if (g.buffer(b).role != BufferRole::Temp) return "its input is not a temporary";
  SliceId s1;
  int onB = 0;
  for (SliceId in : s.inputs)
    if (g.slice(in).buffer == b) { s1 = in; ++onB; }
  int outOnB = 0;
  for (SliceId out : s.outputs) outOnB += g.slice(out).buffer == b;
  if (onB != 1 || outOnB != 1 || ud.writers[s1.value].size() != 1 || ud.readers[s1.value].size() != 1)
    return "the sync hands on more than the one slice of its buffer";
  NodeId w = ud.writers[s1.value][0];
  if (!g.node(w).isMove()) return "what the sync hands on is not written by a movement";
  for (SliceId t : ud.slicesOfBuffer[b.value])  // nothing else touches the buffer
    if (!g.slice(t).erased && t != s1 && t != s2 && (!ud.readers[t.value].empty() || !ud.writers[t.value].empty()))
      return "other slices of the buffer are used";
  site.nodes = {e, sId, w};
  site.facts = SwapFacts{SwapCrossing::StoreAndSync};
  return nullptr;
}

const char* matchAcrossProducer(const Graph& g, const UseDef& ud, NodeId e, Site& site) {
  SliceId t = g.node(e).inputs[0];
  if (ud.writers[t.value].size() != 1 || !onlyReader(ud, t, e)) return "its input has another writer or reader";
  NodeId p = ud.writers[t.value][0];
  const Node& prod = g.node(p);
  if (g.buffer(g.slice(t).buffer).role != BufferRole::Temp) return "its input is not a temporary";
  const auto& ew = std::get<ElementwisePayload>(g.node(e).payload);
  if (g.domainOf(prod) != g.domainOf(g.node(e))) return "its producer runs on other units";
  if (prod.kind() == NodeKind::Broadcast) {
    site.nodes = {e, p};
    site.facts = SwapFacts{SwapCrossing::Broadcast};
    return nullptr;
  }
  if (prod.kind() != NodeKind::Reduce) return "its producer is neither a broadcast nor a reduce";
  if (!Swap::commutesWithReduce(ew, std::get<ReducePayload>(prod.payload).op)) return "it does not commute exactly with the reduce";
  site.nodes = {e, p};
  site.facts = SwapFacts{SwapCrossing::Reduce};
  return nullptr;
}

}  // namespace

bool Swap::commutesWithReduce(const ElementwisePayload& ew, ReduceOp r) {
  bool minMax = r == ReduceOp::Max || r == ReduceOp::Min;
  if (ew.operands.size() == 1) return minMax && isMonotoneNonDecreasing(ew.op);
  if (ew.operands.size() != 2) return false;
  const ScalarOperand& c = ew.operands[1];
  if (ew.operands[0].isImmediate() || !c.isImmediate()) return false;
  if ((ew.op == ElementwiseOp::Mul || ew.op == ElementwiseOp::Div) && c.value > 0) return r != ReduceOp::Prod;
  if (ew.op == ElementwiseOp::Add || ew.op == ElementwiseOp::Sub || ew.op == ElementwiseOp::Max || ew.op == ElementwiseOp::Min)
    return minMax;
  return false;
}

void Swap::matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& sites) const {
  const Graph& g = ctx.graph();
  const UseDef& ud = ctx.useDef();
  const Node& n = g.node(anchor);
  if (n.erased || !isUnaryElementwise(n)) return;
  Site site{std::string(name()), {}, {}, {}, g.editVersion, SwapFacts{}};
  const char* acrossSync = matchAcrossSync(g, ud, anchor, site);
  const char* acrossProducer = acrossSync ? matchAcrossProducer(g, ud, anchor, site) : nullptr;
  if (!acrossSync || !acrossProducer) return sites.push_back(site);
  if (ctx.recordsRefusals())
    ctx.refuse(name(), anchor, std::string("across a sync: ") + acrossSync + "; across its producer: " + acrossProducer);
}

namespace {

// A fresh buffer shaped like `like`'s buffer at its level, and the same pattern on it.
SliceId freshCopyOf(GraphEditor& ed, SliceId like, const std::string& suffix) {
  Graph& g = ed.graph();
  Buffer b = g.buffer(g.slice(like).buffer);
  b.role = BufferRole::Temp;
  std::string base = b.name + "_" + suffix;
  b.name = base;
  for (int k = 1; g.findBuffer(b.name); ++k) b.name = base + std::to_string(k);
  BufferId id = ed.addBuffer(b);
  MemorySlice s = g.slice(like);
  s.buffer = id;
  return ed.addSlice(s);
}

}  // namespace

Status Swap::apply(GraphEditor& ed, const Site& site) const {
  const auto* facts = site.factsAs<SwapFacts>();
  if (!facts) return foreignSite(name(), site);
  Graph& g = ed.graph();
  NodeId e = site.nodes[0];
  Node ew = g.node(e);
  std::string op(elementwiseName(std::get<ElementwisePayload>(ew.payload).op));
  NodeId producer = site.nodes.back();  // the store (variant 0) or the broadcast / reduce
  Node prod = g.node(producer);
  SliceId src = prod.inputs[0];
  SliceId fresh = freshCopyOf(ed, src, op);
  Node early = ew;  // E on the producer's input
  early.inputs = {src};
  early.outputs = {fresh};
  early.domain = prod.domain;
  ed.addNode(std::move(early));
  prod.inputs = {fresh};
  if (facts->crossing == SwapCrossing::StoreAndSync) {
    ed.replaceNode(producer, std::move(prod));
    Node move{MovePayload{}, ew.inputs, ew.outputs, ew.domain};
    ed.replaceNode(e, std::move(move));
    return success();
  }
  SliceId oldOut = prod.outputs[0];
  prod.outputs = ew.outputs;
  ed.replaceNode(producer, std::move(prod));
  ed.eraseNode(e);
  ed.eraseSlice(oldOut);
  return success();
}

std::string Swap::explain(const Graph& g, const Site& site) const {
  const auto* facts = site.factsAs<SwapFacts>();
  if (!facts) return foreignSite(name(), site).error().message;
  std::string op(elementwiseName(std::get<ElementwisePayload>(g.node(site.nodes[0]).payload).op));
  switch (facts->crossing) {
    case SwapCrossing::StoreAndSync:
      return "Movements and syncs only reorder elements, so '" + op +
             "' can run before the store; the two movements around the sync then meet and sync insertion can see them.";
    case SwapCrossing::Broadcast: return "'" + op + "' of a broadcast value equals the broadcast of '" + op + "', computed once per source element.";
    case SwapCrossing::Reduce: break;
  }
  return "'" + op + "' commutes exactly with this reduction, so it moves before it, towards the producer.";
}

}  // namespace gir
