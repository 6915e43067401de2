// Branch and bound (feasibility of a template prefix; a candidate at the modelled lower bound ends
// the search) below a size limit, beam search above it.
#include "search/GirSearch.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "core/compute/ReducedInstance.h"
#include "rewrite/GreedyOptimizer.h"
#include "rewrite/SliceAnalysis.h"
#include "search/SideBySide.h"
#include "search/templates/SubgraphCheck.h"

namespace gir::search {

std::string formatCount(double n) {
  char buf[32];
  if (n < 1e15) std::snprintf(buf, sizeof buf, "%.0f", n);
  else std::snprintf(buf, sizeof buf, "%.2e", n);
  return buf;
}

double modelledLowerBound(const compute::Subgraph& sub, const HardwareDesc& hw) {
  double bw = hw.dramBandwidthGBs();
  return hw.launchCostUs + (bw > 0 ? static_cast<double>(sub.minBytes) / (bw * 1e3) : 0);
}

namespace {

Expected<std::pair<LoweredSubgraph, Graph>> optimize(Expected<LoweredSubgraph> lowered, const HardwareDesc& hw) {
  if (!lowered) return lowered.takeError();
  Stepper st(lowered->gir, hw, /*checked=*/false, 1, /*recordCosts=*/false);
  GreedyResult r = runGreedy(st);
  if (r.stop == StopReason::StepFailed) return makeError("the greedy optimizer failed: " + r.failure);
  Graph optimized = st.graph().compacted();
  return std::make_pair(std::move(*lowered), std::move(optimized));
}

}  // namespace

Expected<std::pair<LoweredSubgraph, Graph>> lowerAndOptimize(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                                             const std::vector<OpTemplate>& choice, const LoweringOptions& options) {
  return optimize(lowerSubgraph(g, sub, hw, choice, options), hw);
}

Expected<std::pair<LoweredSubgraph, Graph>> lowerAndOptimize(const TemplateState& state, const HardwareDesc& hw, const LoweringOptions& options) {
  return optimize(lowerSubgraph(state, hw, options), hw);
}

namespace {

// How much unit-scope storage a candidate's kernel may declare, as a multiple of the level's
// capacity (docs/scale.md, "Fusion size"). The capacity check bounds what is live at once; the
// GPU emitter gives every unit-scope buffer its own per-lane array, and ptxas pays for all of them:
// a matrix-vector product in 24 K-chunks (96 arrays of 64 floats per lane, 24 times the 32,640
// bytes of `reg`) took it 50 s and 3.5 GB per architecture, and a transformer block's projections
// in K-chunks (6.3 times) 15 s instead of 3. The LayerNorms declare up to 3.5 times (two rows per
// unit). Fixed templates (tests, `--templates`) are not limited.
constexpr int64_t kDeclaredOverCapacity = 4;

// Per kernel and unit-scope level: the bytes a unit declares there, each buffer counted at its
// largest slice (a unit's part of it).
Status checkDeclaredStorage(const Graph& g) {
  auto kernel = kernelIndices(g);
  std::map<std::pair<int, std::string>, std::map<uint32_t, int64_t>> declared;  // (kernel, level) -> buffer -> elements
  for (size_t id = 0; id < g.nodes().size(); ++id) {
    const Node& n = g.nodes()[id];
    if (n.erased || kernel[id] < 0) continue;
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId sid : *list) {
        const MemorySlice& sl = g.slice(sid);
        const Buffer& buf = g.buffer(sl.buffer);
        const LevelDecl* l = g.level(buf.level);
        if (!l || l->scope != Scope::Unit || l->capacityBytes <= 0) continue;
        int64_t& e = declared[{kernel[id], buf.level}][sl.buffer.value];
        e = std::max(e, sl.numel());
      }
  }
  for (const auto& [where, buffers] : declared) {
    int64_t bytes = 0;
    for (const auto& [b, e] : buffers) bytes += 4 * e;
    int64_t capacity = g.level(where.second)->capacityBytes;
    if (bytes > kDeclaredOverCapacity * capacity)
      return makeError("kernel " + std::to_string(where.first) + " would declare " + std::to_string(bytes) + " bytes per unit in '" +
                       where.second + "', over " + std::to_string(kDeclaredOverCapacity) + " times its capacity of " +
                       std::to_string(capacity) + " (docs/scale.md, fusion size)");
  }
  return success();
}

bool better(const GraphCost& a, const GraphCost& b) {
  if (a.modelledUs != b.modelledUs) return a.modelledUs < b.modelledUs;
  if (a.dramBytes != b.dramBytes) return a.dramBytes < b.dramBytes;
  return a.kernels < b.kernels;
}

class TemplateSearch {
 public:
  TemplateSearch(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const SearchOptions& o)
      : g_(g), sub_(sub), hw_(hw), o_(o), bound_(modelledLowerBound(sub, hw)), budget_(boxElementBudget(hw)) {
    lowering_ = o.lowering;
    lowering_.unitsPerBlock = o.unitsPerBlock;
  }

  Expected<SearchResult> run() {
    auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < sub_.ops.size(); ++i) {
      options_.push_back(templateOptions(g_, sub_, i, budget_, o_.widestBoxes));
      if (options_.back().empty()) {
        const auto& op = g_.op(sub_.ops[i]);
        return makeError(noTemplateReason(g_, sub_, i, budget_), SourceLocation{"", 0, 0, "op '" + op.name + "' (" + std::string(compute::opKindName(op.kind())) + ")"});
      }
    }
    // Combinations left after dominance: an op that can follow tries only its follows.
    double combos = 1;
    for (const auto& o : options_) {
      auto follows = std::count_if(o.begin(), o.end(), [](const OpTemplate& t) { return t.kind == OpTemplate::Kind::Follow; });
      combos *= static_cast<double>(follows > 0 ? follows : static_cast<long>(o.size()));
    }
    auto state = TemplateState::make(g_, sub_, budget_);
    if (state) state->setFullSizeFactors(o_.fullSizeFactors);
    if (!state) return state.takeError();
    bool exhaustive = combos <= static_cast<double>(o_.exhaustiveLimit);
    if (exhaustive) limitedDiscrepancy(*state);
    else beam();
    stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (candidates_.empty()) {
      std::string why = !deepestError_.empty() ? deepestError_ : firstError_;
      return makeError("no combination of templates applies to this subgraph" + (why.empty() ? "" : ": " + why));
    }
    double validateSeconds = 0;
    auto picked = timedPick(validateSeconds);
    // A search that stopped at the bound or the DRAM floor took that candidate for good; when no
    // candidate passes the check (a plan over a level's capacity), every one costed so far is out,
    // and the search goes on over the combinations it has not costed, to the next early stop.
    while (!picked && exhaustive && stoppedEarly()) {
      auto resume = std::chrono::steady_clock::now();
      best_.reset();
      limitedDiscrepancy(*state);
      stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - resume).count();
      picked = timedPick(validateSeconds);
    }
    if (picked) picked->stats.validateSeconds = validateSeconds;
    return picked;
  }

 private:
  // Combinations of the ops from i on (a double: a big subgraph's count is far past int64).
  double combosFrom(size_t i) const {
    double n = 1;
    for (size_t j = i; j < options_.size(); ++j) n *= static_cast<double>(options_[j].size());
    return n;
  }

  Expected<SearchResult> timedPick(double& seconds) {
    stats_.pruned = std::max(0.0, combosFrom(0) - static_cast<double>(stats_.explored + stats_.infeasible));
    std::stable_sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) { return better(a.cost, b.cost); });
    if (o_.oneKernel) std::stable_partition(candidates_.begin(), candidates_.end(), [](const Candidate& c) { return c.cost.kernels <= 1; });
    auto start = std::chrono::steady_clock::now();
    auto picked = pickValid();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return picked;
  }

  static std::string keyOf(const std::vector<OpTemplate>& choice) {
    std::string k;
    for (const auto& t : choice) k += t.str() + ";";
    return k;
  }

  // A complete choice's cost, or why it is infeasible (no member state: candidates run side by side).
  Expected<GraphCost> cost(const TemplateState& state) const {
    auto r = lowerAndOptimize(state, hw_, lowering_);
    if (!r) return r.takeError();
    if (auto size = checkDeclaredStorage(r->second); !size) return size.takeError();
    return computeCost(r->second, &hw_);
  }

  // Complete choices are costed in batches, side by side, and their results taken in the order the
  // search made them, up to where the one-at-a-time search would have stopped; what lies beyond is
  // dropped as if never made. So the result is the same on any number of cores. The first choice
  // (the dive, which often ends the search at the DRAM floor) is costed on its own.
  void evaluate(const TemplateState& state) {
    std::string key = keyOf(state.choice());
    if (evaluated_.count(key)) return;  // costed before a resumed search
    for (const auto& p : pending_)
      if (keyOf(p.choice()) == key) return;
    pending_.push_back(state);
    if (pending_.size() >= batchSize()) flush();
  }
  size_t batchSize() const {
    if (costed() == 0) return 1;
    return o_.threads > 0 ? o_.threads : std::max(1u, std::thread::hardware_concurrency());
  }
  void flush() {
    std::vector<std::optional<Expected<GraphCost>>> costs(pending_.size());
    std::vector<std::function<void()>> tasks;
    for (size_t i = 0; i < pending_.size(); ++i) tasks.push_back([&, i] { costs[i] = cost(pending_[i]); });
    runSideBySide(tasks, o_.threads);
    for (size_t i = 0; i < pending_.size() && !finished(); ++i) take(pending_[i].choice(), std::move(*costs[i]));
    pending_.clear();
  }
  void take(const std::vector<OpTemplate>& choice, Expected<GraphCost> c) {
    evaluated_.insert(keyOf(choice));
    if (!c) {
      ++stats_.infeasible;
      if (firstError_.empty()) firstError_ = c.error().str();
      return;
    }
    candidates_.push_back(Candidate{choice, *c, costed()});
    ++stats_.explored;
    if (!best_ || better(*c, *best_)) {
      best_ = *c;
      bestAt_ = costed();
    }
  }

  int64_t costed() const { return stats_.explored + stats_.infeasible; }
  bool finished() const {
    bool spent = static_cast<size_t>(costed()) >= o_.maxEvaluations;
    return spent || stoppedEarly();
  }
  // At the bound, on the DRAM floor, or out of patience: `patience` candidates costed in a row
  // since the best one, none better (docs/plans.md, "The search").
  bool stoppedEarly() const {
    if (!best_) return false;
    bool patienceSpent = o_.patience > 0 && costed() - bestAt_ >= static_cast<int64_t>(o_.patience);
    return patienceSpent || best_->modelledUs <= bound_ * (1 + 1e-9) || (o_.stopAtDramFloor && onDramFloor(*best_));
  }

  // One launch, the minimal DRAM bytes at full efficiency, no sync cost: every DRAM-side term is at
  // its floor, and another plan could only gain on register traffic and compute. Unit and block
  // syncs count by their modelled cost, not their number: on a target that prices them at zero
  // (cpu-host) a plan with one (the greedy optimizer leaves a unit sync where a tensor stays in a
  // unit's registers but its writers and readers are different unit segments, ShuffleNetV2's
  // concat and shuffle) is as good as the model can tell; demanding no syncs at all made the search
  // cost every other combination of each ShuffleNetV2 block (7 more candidates each) for nothing.
  bool onDramFloor(const GraphCost& c) const {
    double bw = hw_.dramBandwidthGBs();
    double floorUs = bw > 0 ? static_cast<double>(sub_.minBytes) / (bw * 1e3) : 0;
    // On a reduced instance a block sync is no floor: the units it joins can lie in one block there
    // and in many at full size, where it becomes a device sync (BERT's bias broadcast two rows per
    // unit and its add one row: one kernel on the reduced instance, two at full size).
    bool blockSyncs = !o_.fullSizeFactors.empty() && c.syncs[static_cast<int>(Scope::Block)] > 0;
    return c.kernels == 1 && c.dramBytes <= sub_.minBytes && c.perKernel.size() == 1 && c.perKernel[0].dramUs <= floorUs * (1 + 1e-9) &&
           c.perKernel[0].syncUs <= 0 && !blockSyncs;
  }

  // Limited discrepancy search: pass k costs the combinations that leave the first (most
  // promising) admissible template at exactly k ops. Pass 0 is the dive that follows wherever it
  // can; a plain depth-first order would spend its evaluations varying the last ops while a bad
  // choice for the first op spoils every candidate. All passes together visit every combination.
  void limitedDiscrepancy(TemplateState& root) {
    for (size_t k = 0; k <= options_.size() && !finished(); ++k) dfs(root, k);
    flush();
  }

  void dfs(TemplateState& state, size_t discrepancies) {
    size_t i = state.size();
    if (finished()) return;
    if (i == options_.size()) {
      if (discrepancies == 0) evaluate(state);
      return;
    }
    if (discrepancies > options_.size() - i) return;
    std::vector<UnitBoxes> tried;
    bool followed = false;
    size_t rank = 0;
    for (const auto& t : ordered(state, i)) {
      if (dominated(t, followed) || !committed(state, t) || !admit(state, t, tried)) continue;
      followed = followed || t.kind == OpTemplate::Kind::Follow;
      size_t cost = rank++ == 0 ? 0 : 1;
      if (cost <= discrepancies) dfs(state, discrepancies - cost);
      state.pop();
      if (finished() || (discrepancies == 0 && cost == 0)) return;
    }
  }

  // The split an earlier op led this one with (its producers' chain lands on those units), first;
  // then follows; then leads (in their offered order: fewest consumer units first); then natural
  // splits with as many units as the op before (so its boxes can line up with its neighbours' and
  // merge); then the rest by fewer units (bigger boxes: a reduction or a row-wise neighbour can
  // still follow them).
  std::vector<OpTemplate> ordered(const TemplateState& state, size_t i) const {
    std::vector<OpTemplate> out = options_[i];
    int64_t previous = state.size() == 0 ? -1 : state.boxes(state.size() - 1).units();
    const auto& dims = state.space(i).dims;
    std::optional<OpTemplate> led = ledSplit(state, i);
    auto key = [&](const OpTemplate& t) -> std::pair<int, int64_t> {
      if (led && t == *led) return {-1, 0};
      if (t.kind == OpTemplate::Kind::Follow) return {0, 0};
      if (t.kind == OpTemplate::Kind::Lead) return {1, 0};
      if (t.kind == OpTemplate::Kind::Tiled) return {4, 0};  // the staged transpose last: it needs a block sync
      int64_t n = 1;
      for (int d : t.outer) n *= dims[d];
      n /= t.tile * t.tileBefore;
      return {n == previous ? 2 : 3, n};
    };
    std::stable_sort(out.begin(), out.end(), [&](const OpTemplate& a, const OpTemplate& b) { return key(a) < key(b); });
    return out;
  }

  // Dominance: once an op follows one of its producers, its natural splits and leads are not tried.
  // Following keeps the producer's tensor where the producing unit holds it (registers after
  // merge); a natural split could only reach the same traffic by a box that equals a followed one,
  // and a lead only moves the exchange from this op's input to its output.
  static bool dominated(const OpTemplate& t, bool followed) { return followed && t.kind != OpTemplate::Kind::Follow; }

  // The natural split of op i that an earlier op of the prefix led with (none when none leads to it).
  static std::optional<OpTemplate> ledSplit(const TemplateState& state, size_t i) {
    for (const auto& c : state.choice())
      if (c.kind == OpTemplate::Kind::Lead && c.consumer == static_cast<int>(i)) return c.consumerSplit();
    return std::nullopt;
  }

  // A lead commits its consumer: the leads into one consumer agree on its split, and the consumer
  // takes that split when its turn comes; other combinations are cut (counted as pruned). They
  // would not be wrong — lead boxes compute the producer's space exactly once whatever the consumer
  // does (coversOnce), so a consumer split differently still lowers to a valid graph, which only
  // exchanges the tensor through DRAM (LeadTemplateTest checks it) — but the producer's own natural
  // splits already cover that case, so the search does not spend candidates on it.
  static bool committed(const TemplateState& state, const OpTemplate& t) {
    size_t i = state.size();
    if (t.kind == OpTemplate::Kind::Lead) {
      auto earlier = ledSplit(state, static_cast<size_t>(t.consumer));
      return !earlier || *earlier == t.consumerSplit();
    }
    auto led = ledSplit(state, i);
    return !led || *led == t;
  }

  // A template is worth trying when it applies and gives boxes no earlier template at this depth
  // (with the same prefix) gave: equal boxes make equal graphs. On success it stays pushed.
  bool admit(TemplateState& state, const OpTemplate& t, std::vector<UnitBoxes>& tried) {
    if (auto st = state.push(t); !st) {
      if (state.size() >= deepest_) {
        deepest_ = state.size();
        deepestError_ = st.error().str();
      }
      return false;
    }
    const UnitBoxes& b = state.boxes(state.size() - 1);
    for (const auto& o : tried)
      if (o.ext == b.ext && o.lo == b.lo && o.staged.has_value() == b.staged.has_value()) {
        state.pop();
        return false;
      }
    tried.push_back(b);
    return true;
  }

  // Partial choices scored cheaply by the bytes they force through DRAM (TemplateState::
  // exchangedBytes, ties by fewer units); the complete ones of the last step are evaluated fully.
  void beam() {
    stats_.beam = true;
    auto root = TemplateState::make(g_, sub_, budget_);
    if (root) root->setFullSizeFactors(o_.fullSizeFactors);
    if (!root) return;
    std::vector<TemplateState> frontier{std::move(*root)};
    for (size_t i = 0; i < options_.size(); ++i) {
      std::vector<std::pair<std::pair<int64_t, int64_t>, TemplateState>> next;
      for (auto& partial : frontier) {
        std::vector<UnitBoxes> tried;
        bool followed = false;
        for (const auto& t : ordered(partial, i)) {
          if (dominated(t, followed) || !committed(partial, t) || !admit(partial, t, tried)) continue;
          followed = followed || t.kind == OpTemplate::Kind::Follow;
          std::pair<int64_t, int64_t> score{partial.exchangedBytes(), partial.boxes(i).units()};
          next.emplace_back(score, partial);
          partial.pop();
        }
      }
      std::stable_sort(next.begin(), next.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      if (next.size() > o_.beamWidth) next.resize(o_.beamWidth);
      frontier.clear();
      for (auto& [score, st] : next) frontier.push_back(std::move(st));
    }
    for (const auto& st : frontier) evaluate(st);
    flush();
  }

  // The best candidate that is valid: verifier, memory-model checker, and the reference evaluator.
  Expected<SearchResult> pickValid() {
    std::string& why = invalidWhy_;
    for (const auto& c : candidates_) {
      if (!rejected_.insert(keyOf(c.choice)).second) continue;  // checked (and failed) before a resumed search
      auto r = lowerAndOptimize(g_, sub_, hw_, c.choice, lowering_);
      if (!r) continue;
      // A plan must at least fit its levels (judged from the graph, conservatively): checked or not,
      // one that does not is not run element by element (a decode step's candidates that keep
      // every K-chunk live took minutes and gigabytes each to be found over capacity).
      PlanCheck fits;
      if (!fitsCapacities(r->second, &fits.problem) && fits.problem.empty()) fits.problem = "no schedule";
      auto check = o_.validate && fits.problem.empty() ? checkPlan(g_, sub_, r->first, r->second, kPlanCheckSeed) : Expected<PlanCheck>(fits);
      if (!check || !check->valid()) {
        if (why.empty()) why = check ? check->problem : check.error().str();
        continue;
      }
      SearchResult out;
      out.choice = c.choice;
      out.lowered = std::move(r->first);
      out.optimized = std::move(r->second);
      out.cost = c.cost;
      out.stats = stats_;
      out.candidates = candidates_;
      return out;
    }
    return makeError("no candidate plan is valid: " + why);
  }

  const compute::Graph& g_;
  const compute::Subgraph& sub_;
  const HardwareDesc& hw_;
  SearchOptions o_;
  LoweringOptions lowering_;
  double bound_;
  int64_t budget_;
  std::vector<std::vector<OpTemplate>> options_;
  std::optional<GraphCost> best_;
  std::vector<Candidate> candidates_;
  SearchStats stats_;
  std::string firstError_, deepestError_;
  size_t deepest_ = 0;
  std::set<std::string> evaluated_, rejected_;   // choices costed, and checked without success
  std::vector<TemplateState> pending_;           // complete choices made but not costed yet
  int64_t bestAt_ = 0;                           // candidates costed when the best one was
  std::string invalidWhy_;                       // why the best rejected candidate failed its check
};

// A repeated subgraph: the remembered choice lowered under this subgraph's names.
Expected<SearchResult> replay(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const SearchOptions& options,
                              const SearchVerdict& verdict) {
  auto start = std::chrono::steady_clock::now();
  LoweringOptions lowering = options.lowering;
  lowering.unitsPerBlock = options.unitsPerBlock;
  auto r = lowerAndOptimize(g, sub, hw, verdict.choice, lowering);
  if (!r) return r.takeError();
  SearchResult out;
  out.choice = verdict.choice;
  out.lowered = std::move(r->first);
  out.optimized = std::move(r->second);
  out.cost = computeCost(out.optimized, &hw);
  out.stats.memoHits = 1;
  out.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

namespace {

Expected<SearchResult> searchFullSize(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const SearchOptions& options) {
  if (!options.memo) return TemplateSearch(g, sub, hw, options).run();
  std::string key = SearchMemo::keyOf(g, sub);
  if (const SearchVerdict* v = options.memo->find(key)) {
    options.memo->countHit();
    return replay(g, sub, hw, options, *v);
  }
  auto found = TemplateSearch(g, sub, hw, options).run();
  if (found) options.memo->remember(key, SearchVerdict{found->choice, found->cost});
  return found;
}


// Per op, per dim of its iteration space: full extent over reduced extent.
std::vector<std::vector<int64_t>> fullSizeFactors(const compute::Graph& g, const compute::Subgraph& sub, const compute::Graph& rg,
                                                  const compute::Subgraph& rsub) {
  std::vector<std::vector<int64_t>> out;
  for (size_t i = 0; i < sub.ops.size(); ++i) {
    auto full = iterationSpace(g, g.op(sub.ops[i]));
    auto small = iterationSpace(rg, rg.op(rsub.ops[i]));
    out.emplace_back();
    if (!full || !small || full->dims.size() != small->dims.size()) continue;
    for (size_t d = 0; d < full->dims.size(); ++d) out.back().push_back(small->dims[d] > 0 ? full->dims[d] / small->dims[d] : 1);
  }
  return out;
}

constexpr int kBlock = static_cast<int>(Scope::Block);

// A block sync on a reduced instance can be a device sync at full size: the units it joins lie in
// one block there and in many here (LayerNorm 8192x1024 with a 48 KiB `local`: the mean over 4 rows
// per unit, the variance over one row per unit, one kernel on the reduced instance and two at full
// size). Where the choice kept has one, the cheapest choice without any that passes the check on the
// reduced instance is returned, to be compared at full size.
std::optional<std::vector<OpTemplate>> withoutBlockSyncs(const compute::ReducedInstance& reduced, const compute::Subgraph& smallSub,
                                                         const HardwareDesc& hw, const SearchOptions& o, const LoweringOptions& lowering,
                                                         const std::vector<Candidate>& choices, size_t kept) {
  if (choices[kept].cost.syncs[kBlock] == 0) return std::nullopt;
  for (size_t i = kept + 1; i < choices.size(); ++i) {
    if (choices[i].cost.syncs[kBlock] > 0) continue;
    auto r = lowerAndOptimize(reduced.graph, smallSub, hw, choices[i].choice, lowering);
    if (!r || !fitsCapacities(r->second)) continue;
    if (o.validate) {
      auto check = checkPlan(reduced.graph, smallSub, r->first, r->second, kPlanCheckSeed);
      if (!check || !check->valid()) continue;
    }
    return choices[i].choice;
  }
  return std::nullopt;
}

// A large subgraph is searched on its reduced instance (the candidates and the element-level
// oracle cost milliseconds there), and the choice is lowered and optimized once at full size: the
// templates mean the same at both sizes, only the unit count grows (docs/scale.md).
Expected<SearchResult> searchOnReducedInstance(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                               const SearchOptions& options, const compute::ReducedInstance& reduced) {
  auto start = std::chrono::steady_clock::now();
  SearchOptions o = options;
  o.reducedParent = nullptr;
  o.widestBoxes = true;
  compute::Subgraph smallSub = reduced.restrict(sub);
  o.fullSizeFactors = fullSizeFactors(g, sub, reduced.graph, smallSub);
  auto small = searchFullSize(reduced.graph, smallSub, hw, o);
  if (!small) return small.takeError();
  LoweringOptions lowering = options.lowering;
  lowering.unitsPerBlock = options.unitsPerBlock;
  // The best choice that also lowers at full size and fits its levels there: a box the reduced
  // extents let a unit hold can be over the budget at full size (a band of a convolution holding
  // every channel), and a plan that fits the reduced instance can overflow at full size (depthwise
  // 3x3 + SiLU over 112x112 planes with a 48 KiB `local`: a padded plane per unit, 89 KB, which the
  // planner's check found only after the search had ended); the planner checks the plan kept on the
  // reduced instance again (ScaleCheck.h).
  std::vector<Candidate> choices{Candidate{small->choice, small->cost, 0}};
  for (const Candidate& c : small->candidates)
    if (choices.size() < 8 && std::none_of(choices.begin(), choices.end(), [&](const Candidate& k) { return k.choice == c.choice; }))
      choices.push_back(c);
  auto atFullSize = [&](const std::vector<OpTemplate>& choice) {
    auto r = lowerAndOptimize(g, sub, hw, choice, lowering);
    std::string over;
    if (r && !fitsCapacities(r->second, &over)) r = makeError(over.empty() ? "no schedule" : over);
    return r;
  };
  std::optional<std::pair<LoweredSubgraph, Graph>> full;
  std::string why;
  size_t kept = 0;
  for (; kept < choices.size(); ++kept) {
    auto r = atFullSize(choices[kept].choice);
    if (r) {
      full = std::move(*r);
      break;
    }
    if (why.empty()) why = r.error().str();
  }
  if (!full) return makeError("no plan chosen on the reduced instance (" + reduced.summary() + ") lowers at full size: " + why);
  small->choice = choices[kept].choice;
  if (auto other = withoutBlockSyncs(reduced, smallSub, hw, o, lowering, choices, kept)) {
    auto r = atFullSize(*other);
    if (r && computeCost(r->second, &hw).modelledUs < computeCost(full->second, &hw).modelledUs) {
      small->choice = *other;
      full = std::move(*r);
    }
  }
  SearchResult out = std::move(*small);
  out.lowered = std::move(full->first);
  out.optimized = std::move(full->second);
  out.cost = computeCost(out.optimized, &hw);
  out.stats.reducedInstance = reduced.summary();
  out.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - out.stats.validateSeconds;
  return out;
}

}  // namespace

bool checkedAtScale(const compute::Graph& g, const compute::Subgraph& sub) { return compute::subgraphElements(g, sub) > kOracleElements; }

Expected<SearchResult> searchTemplates(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const SearchOptions& options) {
  if (options.reducedParent) return searchOnReducedInstance(g, sub, hw, options, *options.reducedParent);
  if (checkedAtScale(g, sub)) {
    auto reduced = compute::reduceSubgraph(g, sub, boxElementBudget(hw));
    if (reduced) return searchOnReducedInstance(g, sub, hw, options, *reduced);
  }
  return searchFullSize(g, sub, hw, options);
}

}  // namespace gir::search
