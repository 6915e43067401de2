// Groups -> per-group subgraphs -> per-group search -> one joined graph.
#include "search/PlanLowering.h"

#include <algorithm>
#include <map>
#include <set>

namespace gir::search {

using compute::OpId;
using compute::TensorId;

namespace {

bool contains(const std::vector<TensorId>& v, TensorId t) { return std::find(v.begin(), v.end(), t) != v.end(); }

// The group as a subgraph: what it reads from outside, and what others (or the model) need of it.
compute::Subgraph groupSubgraph(const compute::Graph& g, const compute::Subgraph& sub, const KernelGroups& kg, size_t gi) {
  const auto& groups = kg.ops;
  std::set<OpId> mine(groups[gi].begin(), groups[gi].end());
  compute::Subgraph fs;
  std::set<TensorId> produced;
  for (OpId id : sub.ops)
    if (mine.count(id)) {
      fs.ops.push_back(id);
      for (TensorId t : g.op(id).outputs) produced.insert(t);
    }
  for (OpId id : fs.ops)
    for (TensorId t : g.op(id).inputs)
      if (!produced.count(t) && !contains(fs.inputs, t)) fs.inputs.push_back(t);
  auto exportedElsewhere = [&](TensorId t) {
    for (size_t gj = 0; gj < kg.exports.size(); ++gj)
      if (gj != gi && contains(kg.exports[gj], t)) return true;
    return false;
  };
  for (TensorId t : produced) {
    if (gi < kg.exports.size() && contains(kg.exports[gi], t)) {
      fs.outputs.push_back(t);
      continue;
    }
    if (exportedElsewhere(t)) continue;
    bool needed = contains(sub.outputs, t);
    for (size_t gj = 0; gj < groups.size() && !needed; ++gj) {
      if (gj == gi) continue;
      bool reads = false, makes = false;
      for (OpId id : groups[gj]) {
        reads = reads || contains(g.op(id).inputs, t);
        makes = makes || contains(g.op(id).outputs, t);
      }
      needed = reads && !makes;
    }
    if (needed) fs.outputs.push_back(t);
  }
  for (TensorId t : fs.inputs) fs.minBytes += compute::tensorBytes(g.tensor(t));
  for (TensorId t : fs.outputs) fs.minBytes += compute::tensorBytes(g.tensor(t));
  return fs;
}

// Appends group graphs to one graph; DRAM buffers of exchanged tensors are shared by tensor.
class Joiner {
 public:
  Joiner(const compute::Subgraph& sub, int64_t unitsPerBlock) : sub_(sub), unitsPerBlock_(unitsPerBlock) {}

  void add(const LoweredSubgraph& part, const Graph& gir) {
    size_t f = parts_++;
    if (f == 0) {
      out_.gir.name = gir.name;
      out_.gir.target = gir.target;
      out_.gir.levels = gir.levels;
    }
    out_.gir.units = std::max(out_.gir.units, gir.units);
    std::map<std::string, TensorId> exchanged(part.inputBuffers);
    exchanged.insert(part.outputBuffers.begin(), part.outputBuffers.end());
    std::vector<BufferId> bufs(gir.buffers().size());
    for (uint32_t b = 0; b < gir.buffers().size(); ++b) {
      const Buffer& buf = gir.buffers()[b];
      if (buf.erased) continue;
      auto it = exchanged.find(buf.name);
      bufs[b] = it != exchanged.end() ? tensorBuffer(it->second, buf) : out_.gir.addBuffer(Buffer{"k" + std::to_string(f) + "_" + buf.name, buf.level, buf.shape, BufferRole::Temp});
    }
    std::vector<SliceId> slices(gir.slices().size());
    for (uint32_t s = 0; s < gir.slices().size(); ++s) {
      MemorySlice sl = gir.slices()[s];
      if (sl.erased) continue;
      sl.buffer = bufs[sl.buffer.value];
      slices[s] = out_.gir.addSlice(sl);
    }
    std::map<uint32_t, std::vector<SliceId>> reads, writes;
    for (const Node& n : gir.nodes()) {
      if (n.erased) continue;
      Node m = n;
      for (auto& s : m.inputs) s = slices[s.value];
      for (auto& s : m.outputs) s = slices[s.value];
      if (!m.domain) m.domain = UnitDomain{0, gir.units};  // dropped in finish() where it spans every unit
      if (!m.isSync()) {
        for (SliceId s : m.inputs) reads[out_.gir.slice(s).buffer.value].push_back(s);
        for (SliceId s : m.outputs) writes[out_.gir.slice(s).buffer.value].push_back(s);
      }
      pending_.push_back(std::move(m));
    }
    // A device sync from every earlier store of an exchanged buffer to this group's loads of it.
    for (auto& [b, loads] : reads) {
      auto it = stored_.find(b);
      if (it == stored_.end() || !isExchanged(b)) continue;
      std::sort(loads.begin(), loads.end());
      loads.erase(std::unique(loads.begin(), loads.end()), loads.end());
      pending_.push_back(Node{SyncPayload{Scope::Device}, it->second, loads, std::nullopt});
    }
    for (auto& [b, s] : writes) stored_[b].insert(stored_[b].end(), s.begin(), s.end());
  }

  LoweredSubgraph finish() {
    out_.gir.unitsPerBlock = std::max<int64_t>(1, std::min(unitsPerBlock_, out_.gir.units));
    for (auto& n : pending_) {
      if (n.domain && n.domain->begin == 0 && n.domain->end == out_.gir.units) n.domain.reset();
      out_.gir.addNode(std::move(n));
    }
    return std::move(out_);
  }

 private:
  bool isExchanged(uint32_t b) const {
    for (const auto& [t, id] : byTensor_)
      if (id.value == b) return true;
    return false;
  }

  BufferId tensorBuffer(TensorId t, const Buffer& like) {
    auto it = byTensor_.find(t);
    if (it != byTensor_.end()) return it->second;
    bool in = contains(sub_.inputs, t), outp = contains(sub_.outputs, t);
    BufferRole role = in ? BufferRole::Input : outp ? BufferRole::Output : BufferRole::Temp;
    BufferId id = out_.gir.addBuffer(Buffer{like.name, like.level, like.shape, role});
    if (in) out_.inputBuffers[like.name] = t;
    if (outp) out_.outputBuffers[like.name] = t;
    byTensor_[t] = id;
    return id;
  }

  const compute::Subgraph& sub_;
  int64_t unitsPerBlock_;
  size_t parts_ = 0;
  LoweredSubgraph out_;
  std::vector<Node> pending_;
  std::map<TensorId, BufferId> byTensor_;
  std::map<uint32_t, std::vector<SliceId>> stored_;
};

// A group whose templates the caller chose: lowered and optimized as they are, no search.
Expected<SearchResult> fixedTemplates(const compute::Graph& g, const compute::Subgraph& fs, const HardwareDesc& hw,
                                      const std::vector<OpTemplate>& choice, const SearchOptions& o) {
  if (choice.size() != fs.ops.size())
    return makeError("one template per op of the kernel is needed (" + std::to_string(fs.ops.size()) + " ops, " + std::to_string(choice.size()) + " templates)");
  LoweringOptions lowering = o.lowering;
  lowering.unitsPerBlock = o.unitsPerBlock;
  auto r = lowerAndOptimize(g, fs, hw, choice, lowering);
  if (!r) return r.takeError();
  SearchResult out;
  out.choice = choice;
  out.lowered = std::move(r->first);
  out.optimized = std::move(r->second);
  out.cost = computeCost(out.optimized, &hw);
  return out;
}

}  // namespace

Expected<LoweredPlan> lowerPartition(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                     const KernelGroups& kg, const SearchOptions& options) {
  const auto& groups = kg.ops;
  LoweredPlan plan;
  plan.groups = groups;
  plan.exports = kg.exports;
  Joiner join(sub, options.unitsPerBlock);
  std::set<std::string> used;
  // Every group of a large subgraph is searched on the same reduced instance (docs/scale.md).
  std::optional<compute::ReducedInstance> reduced;
  if (!options.reducedParent && checkedAtScale(g, sub))
    if (auto r = compute::reduceSubgraph(g, sub, boxElementBudget(hw))) reduced = std::move(*r);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    compute::Subgraph fs = groupSubgraph(g, sub, kg, gi);
    SearchOptions o = options;
    if (reduced) o.reducedParent = &*reduced;
    o.lowering.graphName = sub.ops.empty() ? "plan" : g.name;
    o.lowering.bufferName = [&g, &fs](TensorId t) {
      const std::string& n = g.tensor(t).name;
      return contains(fs.inputs, t) || contains(fs.outputs, t) ? n : "t_" + n;
    };
    auto found = gi < kg.templates.size() && !kg.templates[gi].empty() ? fixedTemplates(g, fs, hw, kg.templates[gi], o) : searchTemplates(g, fs, hw, o);
    if (!found) {
      Diagnostic d = found.error();
      std::string ops;
      for (OpId id : fs.ops) ops += (ops.empty() ? "" : ", ") + g.op(id).name;
      d.message = "kernel " + std::to_string(gi) + " (" + ops + "): " + d.message;
      return d;
    }
    plan.stats.explored += found->stats.explored;
    plan.stats.pruned += found->stats.pruned;
    plan.stats.infeasible += found->stats.infeasible;
    plan.stats.seconds += found->stats.seconds;
    plan.stats.validateSeconds += found->stats.validateSeconds;
    plan.stats.memoHits += found->stats.memoHits;
    if (plan.stats.reducedInstance.empty()) plan.stats.reducedInstance = found->stats.reducedInstance;
    plan.templates.push_back(found->choice);
    join.add(found->lowered, found->optimized);
  }
  plan.lowered = join.finish();
  plan.cost = computeCost(plan.lowered.gir, &hw);
  return plan;
}

KernelGroups planGroups(const compute::Graph& g, const compute::Subgraph& sub, const PlanProblem& p, const Plan& plan) {
  KernelGroups kg;
  auto& groups = kg.ops;
  std::map<OpId, size_t> first;  // op -> first group holding it
  for (const auto& k : plan.kernels) {
    std::vector<OpId> ops;
    std::vector<TensorId> exports;
    for (int inst : k.instances) {
      const PlanNode& n = p.node(inst);
      if (std::find(ops.begin(), ops.end(), n.op) == ops.end()) ops.push_back(n.op);
      TensorId t = g.op(n.op).outputs[n.output];
      if (contains(k.outputs, p.aliasRoot[index(t)]) && !contains(exports, t)) exports.push_back(t);
    }
    for (OpId op : ops) first.emplace(op, groups.size());
    groups.push_back(std::move(ops));
    kg.exports.push_back(std::move(exports));
  }
  // Ops no kernel holds (reshapes, broadcasts run as views): with their first consumer, else
  // with their producer, else alone; later ops first so a chain of them follows its consumer.
  auto consumers = g.consumers();
  auto producers = g.producers();
  for (auto it = sub.ops.rbegin(); it != sub.ops.rend(); ++it) {
    if (first.count(*it)) continue;
    std::optional<size_t> home;
    for (TensorId t : g.op(*it).outputs)
      for (OpId c : consumers[index(t)])
        if (auto f = first.find(c); f != first.end() && (!home || f->second < *home)) home = f->second;
    if (!home)
      if (auto pr = producers[index(g.op(*it).inputs[0])]; pr)
        if (auto f = first.find(*pr); f != first.end()) home = f->second;
    if (!home) {
      home = groups.size();
      groups.emplace_back();
      kg.exports.emplace_back();
    }
    groups[*home].push_back(*it);
    for (TensorId t : g.op(*it).outputs)
      if (contains(sub.outputs, t)) kg.exports[*home].push_back(t);
    first.emplace(*it, *home);
  }
  for (auto& grp : groups)
    std::sort(grp.begin(), grp.end(), [](OpId a, OpId b) { return index(a) < index(b); });
  return kg;
}

}  // namespace gir::search
