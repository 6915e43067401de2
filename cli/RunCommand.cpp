// `gir run MODEL.onnx|FILE.gir --target cpu [--planner gir|eager|xla|tvm|all] [--measure [--cold]] [--calibrate]
// [--json]`: every candidate GIR-Graph of a model's memory-bound subgraphs (or one GIR file as it is)
// generated as C++/OpenMP, compiled, run on real buffers and checked against the reference evaluator
// (or the interpreter), then per kernel modelled against measured, with MAPE, the largest relative
// error and Spearman's rank correlation over the measured candidates (docs/cpu.md).
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "codegen/cpu/Calibration.h"
#include "codegen/cpu/CpuCheck.h"
#include "codegen/cpu/CpuCompiler.h"
#include "codegen/cpu/CpuModel.h"
#include "codegen/cpu/HostDescription.h"
#include "codegen/cpu/InterleavedTiming.h"
#include "search/ModelPlanner.h"
#include "search/templates/SubgraphCheck.h"
#include "codegen/cpu/PlanCandidates.h"
#include "core/gir/Parser.h"
#include "core/gir/Validity.h"
#include "core/onnx/OnnxImporter.h"
#include "search/ModelPipeline.h"

namespace gir::cli {

namespace {

using namespace gir::codegen::cpu;
using nlohmann::json;

struct RunOptions {
  std::vector<std::string> planners;
  bool measure = false, json = false, emit = false;
  LaunchOptions launch;
  TimingOptions timing;
  std::optional<int64_t> subgraph;
};

// One candidate as run: what it is, its numbers, and its per-kernel model and times.
struct CandidateRun {
  int subgraph = 0;
  std::string planner, variant, skipReason;
  std::string sourceHash;  // of the generated C++: candidates with equal hashes are one kernel
  int kernels = 0;
  int64_t dramBytes = 0, minBytes = 0;
  double maxRelError = 0;
  bool close = true;
  GraphModel model;
  std::optional<Timing> measured;
  std::vector<Timing> perKernel;
  // Held from the check to the interleaved timing of all candidates (timeCandidates).
  std::shared_ptr<CompiledKernel> kernel;
  std::shared_ptr<const TensorMap> inputs;
};

// Rounds of interleaved timing: each candidate gets the budget in this many slices, spread over
// the command's run (docs/cpu.md, "Reading `gir run`").
constexpr int kTimingRounds = 3;

std::string fixed(double v, int digits = 2) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

Expected<RunOptions> runOptions(const Args& a) {
  RunOptions o;
  std::string target = a.option("target", "cpu");
  if (target != "cpu" && target != "cpu-host")
    return makeError("unknown target '" + target + "' for gir run (expected cpu, nvidia-h100, nvidia-a100 or amd-mi100)");
  std::string planner = a.option("planner", "all");
  if (planner == "all") o.planners = search::plannerNames();
  else if (search::isPlannerName(planner)) o.planners = {planner};
  else return makeError("unknown planner '" + planner + "' (expected gir, eager, xla, tvm or all)");
  o.measure = a.has("measure");
  o.json = a.has("json");
  o.emit = a.has("emit");
  if (a.has("cold")) o.timing.flushBytes = coldCacheBytes();
  if (a.hasOption("budget-ms")) {  // time spent on each timed function; the repeats follow from it
    auto ms = integerOption(a, "budget-ms", 200);
    if (!ms) return ms.takeError();
    if (*ms < 1 || *ms > 600000) return makeError("--budget-ms expects 1 to 600000 milliseconds, got " + std::to_string(*ms));
    o.timing.budgetSeconds = static_cast<double>(*ms) / 1000;
  }
  o.launch.compile.cacheDir = a.option("cache", "");
  std::string opt = a.option("opt", "O3");
  if (opt != "O0" && opt != "O1" && opt != "O2" && opt != "O3") return makeError("--opt expects O0, O1, O2 or O3, got '" + opt + "'");
  o.launch.compile.optLevel = "-" + opt;
  auto threads = integerOption(a, "threads", 0);
  if (!threads) return threads.takeError();
  constexpr int64_t kMaxThreads = 4096;  // an OpenMP team, not a typo's worth of threads
  if (*threads > kMaxThreads) return makeError("--threads expects at most " + std::to_string(kMaxThreads) + ", got " + std::to_string(*threads));
  o.launch.threads = static_cast<int>(*threads);
  if (a.hasOption("subgraph")) {
    auto subgraph = integerOption(a, "subgraph", 0);
    if (!subgraph) return subgraph.takeError();
    o.subgraph = *subgraph;
  }
  return o;
}

// Builds, checks and models one graph; with --measure keeps what timeCandidates needs.
Status runGraph(const Graph& g, const ReferenceCase* ref, const HardwareDesc& hw, const RunOptions& o, CandidateRun& r) {
  auto built = CompiledKernel::build(g, o.launch);
  if (!built) return built.takeError();
  auto k = std::make_shared<CompiledKernel>(std::move(*built));
  r.kernels = k->kernels();
  r.sourceHash = hashHex(k->source().code);
  ModelOptions model;
  model.cache = o.timing.flushBytes > 0 ? CacheState::Cold : CacheState::Warm;
  model.streamAboveBytes = o.launch.emit.streamAboveCacheBytes;
  r.model = modelCpu(g, hw, model);
  r.dramBytes = r.model.dramBytes;
  auto check = ref ? checkAgainstReference(*ref, *k) : checkAgainstInterpreter(g, *k, 1);
  if (!check) return check.takeError();
  r.maxRelError = check->maxRelativeError;
  r.close = check->close;
  if (!o.measure || !r.close) return success();  // a kernel that does not match is not timed
  r.kernel = k;
  r.inputs = std::make_shared<const TensorMap>(ref ? ref->inputs : randomInputs(g, 1));
  return success();
}

// Times every kept candidate, interleaved, then lets go of its library and inputs.
Status timeCandidates(std::vector<CandidateRun>& runs, const RunOptions& o) {
  std::vector<TimedGraph> graphs;
  std::vector<CandidateRun*> owners;
  for (CandidateRun& r : runs)
    if (r.kernel) {
      graphs.push_back(TimedGraph{r.kernel.get(), r.inputs.get(), {}, {}});
      owners.push_back(&r);
    }
  if (auto st = timeInterleaved(graphs, o.timing, kTimingRounds); !st) return st;
  for (size_t i = 0; i < graphs.size(); ++i) {
    owners[i]->measured = graphs[i].whole;
    owners[i]->perKernel = graphs[i].perKernel;
    owners[i]->kernel.reset();
    owners[i]->inputs.reset();
  }
  return success();
}

// A calibrated copy of the description goes to the path the user names, else to the cache; never
// over the bundled hardware/cpu-host.json (checked before the minutes of calibration start).
Expected<std::string> calibratedPath(const Args& args) {
  std::string path = args.option("calibrate-out", "");
  if (path.empty()) path = cachedCalibrationPath(args.option("cache", ""));
  std::error_code ec;
  std::filesystem::path bundled = std::filesystem::path(hardwareDirectory()) / "cpu-host.json";
  if (std::filesystem::exists(path) && std::filesystem::equivalent(path, bundled, ec))
    return makeError("refusing to overwrite the bundled " + bundled.string() + "; name another path with --calibrate-out");
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  return path;
}

void printCandidate(const CandidateRun& r) {
  std::cout << "subgraph " << r.subgraph << ", planner " << r.planner << (r.variant.empty() ? "" : " (" + r.variant + ")") << ": ";
  if (!r.skipReason.empty()) {
    std::cout << "skipped: " << r.skipReason << "\n";
    return;
  }
  std::cout << r.kernels << " kernel(s), DRAM bytes " << r.dramBytes;
  if (r.minBytes > 0) std::cout << " (minimal " << r.minBytes << ")";
  std::cout << ", max relative error " << r.maxRelError << (r.close ? " (matches)" : " (MISMATCH: not timed)") << "\n";
  for (size_t k = 0; k < r.model.kernels.size(); ++k) {
    std::cout << "  kernel " << k << ": modelled " << fixed(r.model.kernels[k].modelledUs) << " us";
    if (k < r.perKernel.size()) {
      const Timing& t = r.perKernel[k];
      std::cout << ", measured " << fixed(t.medianUs) << " us [p10 " << fixed(t.p10Us) << ", p90 " << fixed(t.p90Us) << "], error "
                << fixed(100 * (r.model.kernels[k].modelledUs - t.medianUs) / t.medianUs, 1) << " %";
    }
    std::cout << "\n";
  }
  std::cout << "  all kernels: modelled " << fixed(r.model.modelledUs) << " us";
  if (r.measured) std::cout << ", measured " << fixed(r.measured->medianUs) << " us (" << r.measured->repeats << " repeats)";
  std::cout << "\n";
}

// Per planner, the variant the model picks (least modelled time), summed over subgraphs.
json plannerSummary(const std::vector<CandidateRun>& runs, const std::vector<std::string>& planners, int subgraphs) {
  json out = json::object();
  for (const std::string& p : planners) {
    double modelled = 0, measured = 0, err = 0;
    bool any = false, allMeasured = true;
    std::string skipped;
    for (int s = 0; s < subgraphs; ++s) {
      const CandidateRun* pick = nullptr;
      for (const CandidateRun& r : runs) {
        if (r.planner != p || r.subgraph != s) continue;
        if (!r.skipReason.empty()) {
          skipped = r.skipReason;
          continue;
        }
        err = std::max(err, r.maxRelError);
        if (!pick || r.model.modelledUs < pick->model.modelledUs) pick = &r;
      }
      if (!pick) continue;
      any = true;
      modelled += pick->model.modelledUs;
      if (pick->measured) measured += pick->measured->medianUs;
      else allMeasured = false;
    }
    if (!any) {
      out[p] = {{"measured_us", nullptr}, {"modelled_us", nullptr}, {"max_rel_error", nullptr}, {"skipped", skipped}};
      continue;
    }
    out[p] = {{"measured_us", allMeasured ? json(measured) : json(nullptr)}, {"modelled_us", modelled}, {"max_rel_error", err}};
  }
  return out;
}

json candidateJson(const CandidateRun& r) {
  json j = {{"subgraph", r.subgraph}, {"planner", r.planner}, {"variant", r.variant}};
  if (!r.skipReason.empty()) {
    j["skipped"] = r.skipReason;
    return j;
  }
  j["kernels"] = r.kernels;
  j["source_hash"] = r.sourceHash;
  j["dram_bytes"] = r.dramBytes;
  j["max_rel_error"] = r.maxRelError;
  j["matches"] = r.close;
  j["modelled_us"] = r.model.modelledUs;
  j["measured_us"] = r.measured ? json(r.measured->medianUs) : json(nullptr);
  if (r.measured) j["spread_us"] = {r.measured->p10Us, r.measured->p90Us};
  json ks = json::array();
  for (size_t k = 0; k < r.model.kernels.size(); ++k) {
    bool timed = k < r.perKernel.size();
    ks.push_back({{"modelled_us", r.model.kernels[k].modelledUs},
                  {"measured_us", timed ? json(r.perKernel[k].medianUs) : json(nullptr)},
                  {"spread_us", timed ? json({r.perKernel[k].p10Us, r.perKernel[k].p90Us}) : json(nullptr)},
                  {"repeats", timed ? json(r.perKernel[k].repeats) : json(nullptr)},
                  {"dram_bytes", r.model.kernels[k].dramBytes}, {"memory_us", r.model.kernels[k].memoryUs},
                  {"device_us", r.model.kernels[k].deviceUs}, {"cache_us", r.model.kernels[k].cacheUs},
                  {"compute_us", r.model.kernels[k].computeUs}, {"bytes_per_level", r.model.kernels[k].bytesPerLevel}});
  }
  j["per_kernel"] = ks;
  return j;
}

struct RunResults {
  std::vector<CandidateRun> runs;
  int subgraphs = 0;
  int64_t minBytes = 0;  // the subgraphs run: inputs read once + outputs written once
};

// A .gir file runs as it is, checked against the interpreter (it must be valid to mean anything).
Expected<RunResults> runGirFile(const std::string& input, const HardwareDesc& hw, RunOptions& o) {
  auto text = readFile(input);
  if (!text) return text.takeError();
  auto g = parseGirText(*text, input);
  if (!g) return g.takeError();
  // Past kInterpretedElements the element-wise checker would hold one record per element (a
  // 16384x2048 LayerNorm took 24 GB): such a graph is decided on its affine forms (docs/scale.md).
  if (interpretable(*g)) {
    ValidityReport v = checkValidity(*g, randomInputs(*g, 1));
    if (!v.valid()) return makeError("the graph is not valid, so it has no meaning to run:\n" + v.str(), SourceLocation{input, 0, 0, ""});
  } else {
    std::string inconclusive;
    std::string problem = search::symbolicProblem(*g, inconclusive);
    if (!problem.empty()) return makeError("the graph is not valid, so it has no meaning to run:\n" + problem, SourceLocation{input, 0, 0, ""});
  }
  if (o.emit) {
    auto src = emitCpu(*g, o.launch.emit);
    if (!src) return src.takeError();
    std::cout << src->code;
    return RunResults{};
  }
  RunResults res;
  CandidateRun r;
  r.planner = "file";
  if (auto st = runGraph(*g, nullptr, hw, o, r); !st) return st.takeError();
  res.runs.push_back(r);
  res.subgraphs = 1;
  o.planners = {"file"};
  return res;
}

// Every candidate of every (selected) memory-bound subgraph, checked against the reference evaluator.
Expected<RunResults> runModel(const std::string& input, const HardwareDesc& hw, const RunOptions& o) {
  auto imported = search::importModel(input, hw);
  if (!imported) return imported.takeError();
  const compute::Graph* model = &imported->model;
  const compute::PreprocessResult* pre = &imported->pre;
  if (auto sub = imported->subgraph(o.subgraph.value_or(0)); !sub) return sub.takeError();
  RunResults res;
  res.subgraphs = static_cast<int>(pre->subgraphs.size());
  bool anyLowered = false;
  std::string firstReason;
  for (int s = 0; s < res.subgraphs; ++s) {
    if (o.subgraph && *o.subgraph != s) continue;
    const compute::Subgraph& sub = pre->subgraphs[static_cast<size_t>(s)];
    res.minBytes += sub.minBytes;
    for (PlanCandidate& c : planCandidates(*model, sub, hw, o.planners)) {
      CandidateRun r;
      r.subgraph = s;
      r.planner = c.planner;
      r.variant = c.variant;
      r.skipReason = c.skipReason;
      r.minBytes = sub.minBytes;
      if (c.lowered) {
        anyLowered = true;
        auto ref = referenceCase(*model, sub, *c.lowered, 1);
        if (!ref) return ref.takeError();
        if (auto st = runGraph(c.lowered->gir, &*ref, hw, o, r); !st) return st.takeError();
      } else if (firstReason.empty()) {
        firstReason = c.skipReason;
      }
      res.runs.push_back(std::move(r));
    }
  }
  if (!anyLowered)
    return makeError("no candidate of this model could be lowered to a valid GIR-Graph (" +
                     (firstReason.empty() ? std::string("no planner selected") : firstReason) + ")", SourceLocation{input, 0, 0, ""});
  return res;
}

void printJson(const std::string& input, const HardwareDesc& hw, double streamCopy, const std::optional<Calibration>& cal,
               const std::string& source, const RunResults& res, const RunOptions& o, const ModelError& err) {
  json j = {{"input", input}, {"target", hw.name}, {"stream_copy_gbs", streamCopy}, {"calibrated", cal.has_value()}, {"hardware_source", source},
            {"min_bytes", res.minBytes}, {"planners", plannerSummary(res.runs, o.planners, res.subgraphs)}};
  json cands = json::array();
  for (const CandidateRun& r : res.runs) cands.push_back(candidateJson(r));
  j["candidates"] = cands;
  if (cal) j["calibration"] = {{"stream_copy_gbs", cal->streamCopyGBs}, {"stream_copy_p10_gbs", cal->streamCopyP10GBs},
                               {"stream_copy_p90_gbs", cal->streamCopyP90GBs}, {"stream_read_gbs", cal->streamReadGBs}, {"tile_gbs", cal->tileGBs},
                               {"local_gbs", cal->localGBs}, {"barrier_us", cal->barrierUs}, {"launch_us", cal->launchUs}, {"threads", cal->threads},
                               {"streaming_copy_gbs", cal->streamingCopyGBs}, {"stream_store_above_bytes", cal->streamStoreAboveBytes},
                               {"row_sum_one_stream_gbs", cal->rowSumOneStreamGBs}, {"row_sum_two_segments_gbs", cal->rowSumTwoSegmentsGBs},
                               {"row_sum_segments", cal->rowSumSegments}};
  if (err.count > 0)
    j["model_error"] = {{"candidates", err.count}, {"mape_percent", err.mapePercent}, {"max_rel_error", err.maxRelativeError},
                        {"spearman", err.spearman}, {"pick_within_5_percent", err.pickWithin5Percent}};
  std::cout << j.dump(2) << "\n";
}

void printText(const HardwareDesc& hw, double streamCopy, const std::string& source, const RunResults& res, const RunOptions& o, const ModelError& err) {
  std::cout << "target " << hw.name << " (stream copy " << fixed(streamCopy, 1) << " GB/s, " << source << ")\n";
  for (const CandidateRun& r : res.runs) printCandidate(r);
  if (err.count > 0)
    std::cout << "modelled vs measured over " << err.count << " candidate(s): MAPE " << fixed(err.mapePercent, 1) << " %, max relative error "
              << fixed(err.maxRelativeError, 3) << ", Spearman " << fixed(err.spearman, 3) << ", model's pick within 5 % of the best: "
              << (err.pickWithin5Percent ? "yes" : "no") << "\n";
  else if (!o.measure)
    std::cout << "(add --measure for measured times and the error figures)\n";
}

}  // namespace

int runRun(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target", "planner", "threads", "subgraph", "cache", "hardware", "calibrate-out", "opt", "budget-ms", "stores"},
                        {"measure", "calibrate", "json", "emit", "cold"});
  if (!args) {
    // GPU targets take options of their own (--work): hand over before complaining about them.
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "--target" && isGpuRunTarget(argv[i + 1])) return runRunOnGpu(argv);
    return reportBadInput(args.error());
  }
  if (args->hasOption("target") && isGpuRunTarget(args->option("target"))) return runRunOnGpu(argv);
  if (args->positional.size() != 1)
    return reportBadInput(makeError("usage: gir run MODEL.onnx|FILE.gir --target cpu [--planner gir|eager|xla|tvm|all] [--measure [--cold] [--budget-ms N]] [--calibrate] [--stores auto|plain] [--json]"));
  auto opts = runOptions(*args);
  if (!opts) return reportBadInput(opts.error());
  const std::string& input = args->positional[0];
  bool isGir = input.size() > 4 && input.substr(input.size() - 4) == ".gir";
  if (isGir && args->hasOption("planner"))
    return reportBadInput(makeError("--planner applies to models; a .gir file runs as it is", SourceLocation{input, 0, 0, ""}));
  if (!isGir && opts->emit) return reportBadInput(makeError("--emit prints the source of a .gir file; lower the model first (gir lower)"));
  auto chosen = cpuHostDescription(args->option("hardware", ""), args->option("cache", ""), args->has("calibrate"));
  if (!chosen) return reportBadInput(chosen.error());
  HardwareDesc& hw = chosen->desc;
  std::string source = chosen->source;
  double streamCopy = hw.dramBandwidthGBs();
  std::optional<Calibration> cal;
  if (args->has("calibrate")) {
    auto path = calibratedPath(*args);
    if (!path) return reportBadInput(path.error());
    CalibrationOptions co;
    co.compile = opts->launch.compile;
    co.threads = opts->launch.threads;
    auto c = calibrate(co);
    if (!c) return reportBadInput(c.error());
    cal = *c;
    hw = applyCalibration(hw, *c);
    streamCopy = c->streamCopyGBs;
    if (auto st = writeOutput(*path, hardwareToJson(hw) + "\n"); !st) return reportBadInput(st.error());
    if (!opts->json) std::cout << "calibrated: " << c->str() << "\nwrote " << *path << "\n";
    source = "calibrated now";
  }
  // Streaming stores where the (calibrated) description says they pay; --stores plain turns them off (A/B runs).
  std::string stores = args->option("stores", "auto");
  if (stores != "auto" && stores != "plain") return reportBadInput(makeError("--stores expects auto or plain, got '" + stores + "'"));
  opts->launch.emit.streamAboveCacheBytes = stores == "auto" ? hw.streamStoreAboveBytes : 0;
  opts->launch.emit.rowSumSegments = hw.rowSumSegments;
  auto res = isGir ? runGirFile(input, hw, *opts) : runModel(input, hw, *opts);
  if (!res) return reportBadInput(res.error());
  if (opts->emit) return kExitOk;
  if (auto st = timeCandidates(res->runs, *opts); !st) return reportBadInput(st.error());
  std::vector<double> modelled, measured;
  bool allClose = true;
  for (const CandidateRun& r : res->runs) {
    allClose = allClose && r.close;
    if (!r.skipReason.empty() || !r.measured) continue;
    modelled.push_back(r.model.modelledUs);
    measured.push_back(r.measured->medianUs);
  }
  ModelError err = modelError(modelled, measured);
  if (opts->json) printJson(input, hw, streamCopy, cal, source, *res, *opts, err);
  else printText(hw, streamCopy, source, *res, *opts, err);
  return allClose ? kExitOk : kExitFinding;
}

}  // namespace gir::cli
