// Path enumeration (exhaustive up to the limit, else sampled), latency scaling, figures.
#include "codegen/ascend/asck/AsckOracle.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "codegen/ascend/asck/AsckSimulator.h"
#include "codegen/ascend/asck/AsckTrace.h"

namespace gir::ascend {

OracleOptions normativeOracleOptions() { return OracleOptions{}; }

namespace {

// Decisions for one path: replayed prefix, then `fill` (true = then) or random when rng is set.
struct PathChoice {
  std::vector<char> decisions;
  size_t pos = 0;
  bool fill = true;
  std::mt19937_64* rng = nullptr;
  bool operator()() {
    if (pos < decisions.size()) return decisions[pos++];
    bool v = rng ? ((*rng)() & 1) : fill;
    decisions.push_back(v);
    ++pos;
    return v;
  }
};

// Next path in depth-first order (then before else); false when all were enumerated.
bool nextPath(std::vector<char>& d) {
  while (!d.empty() && !d.back()) d.pop_back();
  if (d.empty()) return false;
  d.back() = 0;
  return true;
}

std::string pathName(const std::vector<char>& d) {
  if (d.empty()) return "the only path";
  std::string s;
  for (size_t i = 0; i < d.size() && i < 24; ++i) s += d[i] ? 'T' : 'E';
  if (d.size() > 24) s += "...";
  return "path " + s;
}

void countFlags(const std::vector<Stmt>& b, std::set<std::tuple<int, int, int>>& out) {
  for (const auto& s : b) {
    if (s.kind == StmtKind::Sync && s.sync.kind != SyncKind::Barrier)
      out.insert({static_cast<int>(s.sync.src), static_cast<int>(s.sync.dst), s.sync.id});
    countFlags(s.body, out);
    countFlags(s.elseBody, out);
  }
}

class OracleRun {
 public:
  OracleRun(const Program& out, const Target& t, const OracleOptions& o) : out_(out), t_(t), opt_(o) {
    input_ = out;
    stripSync(input_.body);
  }
  std::vector<char> path(std::vector<char> decisions, std::mt19937_64* rng, bool fill, int64_t& cyclesOut,
                         int64_t& idealOut);
  OracleReport rep;

 private:
  const Program& out_;
  Program input_;
  const Target& t_;
  const OracleOptions& opt_;
};

std::vector<char> OracleRun::path(std::vector<char> decisions, std::mt19937_64* rng, bool fill, int64_t& cyclesOut,
                     int64_t& idealOut) {
  PathChoice pc{std::move(decisions), 0, fill, rng};
  Trace tr = buildTrace(out_, t_, std::ref(pc));
  PathChoice replay{pc.decisions, 0, true, nullptr};
  Trace in = buildTrace(input_, t_, std::ref(replay));
  ++rep.paths;
  std::string where = pathName(pc.decisions);
  SimResult nominal = simulate(tr, t_.syncCost, nullptr);
  ++rep.runs;
  if (!nominal.ok() && rep.correct) {
    rep.correct = false;
    rep.violation = nominal.violation.message + " [" + where + ", nominal latencies]";
  }
  std::mt19937_64 lat(opt_.seed ^ (static_cast<uint64_t>(rep.paths) * 0x9e3779b97f4a7c15ull));
  std::uniform_real_distribution<double> u(0.5, 2.0);
  std::vector<double> factors(tr.ops.size());
  for (int s = 0; s < opt_.latencySeeds && rep.correct; ++s) {
    for (auto& f : factors) f = u(lat);
    SimResult r = simulate(tr, t_.syncCost, &factors);
    ++rep.runs;
    if (!r.ok()) {
      rep.correct = false;
      rep.violation = r.violation.message + " [" + where + ", latency seed " + std::to_string(s + 1) + "]";
    }
  }
  if (opt_.robust && rep.robust) {
    std::string m = checkRobust(tr, computeHappensBefore(tr));
    if (!m.empty()) {
      rep.robust = false;
      rep.robustMessage = m + " [" + where + "]";
    }
  }
  cyclesOut = nominal.makespan;
  idealOut = idealMakespan(in);
  rep.cyclesMean += static_cast<double>(nominal.makespan);
  rep.idealMean += static_cast<double>(idealOut);
  rep.barrierAllMean += static_cast<double>(barrierAllMakespan(in, t_.syncCost));
  rep.setsMean += static_cast<double>(nominal.sets);
  rep.waitsMean += static_cast<double>(nominal.waits);
  return pc.decisions;
}

}  // namespace

OracleReport runOracle(const Program& output, const Target& target, const OracleOptions& opt) {
  OracleRun run(output, target, opt);
  OracleReport& r = run.rep;
  int64_t c = 0, i = 0;
  int64_t total = countPaths(output.body, opt.exhaustiveLimit);
  r.exhaustive = total <= opt.exhaustiveLimit;
  std::vector<char> d = run.path({}, nullptr, true, r.cyclesAllThen, r.idealAllThen);
  if (!r.exhaustive) {
    run.path({}, nullptr, false, r.cyclesAllElse, r.idealAllElse);
    std::mt19937_64 rng(opt.seed);
    for (int k = 0; k < opt.randomPaths && r.correct; ++k) run.path({}, &rng, true, c, i);
  } else {
    r.cyclesAllElse = r.cyclesAllThen;
    r.idealAllElse = r.idealAllThen;
    while (r.correct && nextPath(d)) {
      d = run.path(d, nullptr, true, c, i);
      bool allElse = std::find(d.begin(), d.end(), 1) == d.end();
      if (allElse) { r.cyclesAllElse = c; r.idealAllElse = i; }
    }
  }
  double n = static_cast<double>(r.paths);
  r.cyclesMean /= n;
  r.idealMean /= n;
  r.barrierAllMean /= n;
  r.setsMean /= n;
  r.waitsMean /= n;
  r.overhead = r.idealMean > 0 ? r.cyclesMean / r.idealMean : 1.0;
  std::set<std::tuple<int, int, int>> flags;
  countFlags(output.body, flags);
  std::map<std::pair<int, int>, int> perPair;
  for (const auto& [a, b, id] : flags) perPair[{a, b}]++;
  r.flagsUsed = static_cast<int>(flags.size());
  for (const auto& [k, v] : perPair) r.maxFlagsPerPair = std::max(r.maxFlagsPerPair, v);
  if (!r.correct) r.robust = false;
  return r;
}

std::string formatOracleReport(const OracleReport& r, const std::string& kernel) {
  std::ostringstream os;
  os << "kernel " << kernel << ": " << (r.correct ? "correct" : "VIOLATION") << ", "
     << (r.robust ? "robust" : "not robust") << "\n";
  if (!r.correct) os << "  " << r.violation << "\n";
  if (r.correct && !r.robust) os << "  " << r.robustMessage << "\n";
  os << "  paths: " << r.paths << (r.exhaustive ? " (all)" : " (sampled)") << ", runs: " << r.runs << "\n";
  os.setf(std::ios::fixed);
  os.precision(1);
  os << "  cycles: all-then " << r.cyclesAllThen << ", all-else " << r.cyclesAllElse << ", mean " << r.cyclesMean << "\n";
  os << "  ideal: all-then " << r.idealAllThen << ", all-else " << r.idealAllElse << ", mean " << r.idealMean << "\n";
  os << "  barrier-all: mean " << r.barrierAllMean << "\n";
  os.precision(3);
  os << "  overhead: " << r.overhead << "\n";
  os.precision(1);
  os << "  flags used: " << r.flagsUsed << " (max " << r.maxFlagsPerPair << " per pipe pair)\n";
  os << "  executed: set_flag " << r.setsMean << ", wait_flag " << r.waitsMean << " (mean per path)\n";
  return os.str();
}

std::string oracleReportJson(const OracleReport& r, const std::string& kernel) {
  nlohmann::json j = {{"kernel", kernel},          {"correct", r.correct},
                      {"violation", r.violation},  {"robust", r.robust},
                      {"robust_message", r.robustMessage}, {"paths", r.paths},
                      {"exhaustive", r.exhaustive}, {"runs", r.runs},
                      {"cycles", {{"all_then", r.cyclesAllThen}, {"all_else", r.cyclesAllElse}, {"mean", r.cyclesMean}}},
                      {"ideal", {{"all_then", r.idealAllThen}, {"all_else", r.idealAllElse}, {"mean", r.idealMean}}},
                      {"barrier_all", r.barrierAllMean}, {"overhead", r.overhead},
                      {"flags_used", r.flagsUsed},  {"max_flags_per_pair", r.maxFlagsPerPair},
                      {"sets", r.setsMean},         {"waits", r.waitsMean}};
  return j.dump(2) + "\n";
}

}  // namespace gir::ascend
