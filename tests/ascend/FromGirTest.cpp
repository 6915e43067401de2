// GIR -> .asck (codegen/ascend/lower/FromGir.h): every valid GIR golden and every row-wise scenario subgraph lowers;
// the lowered program, run in order, reads what the GIR interpreter reads (checkLowering); its inserted output
// passes the oracle on ascend910 (4 IDs) and ascend910b (8 IDs); goldens for two small kernels; a GIR the
// mapping cannot express, or one with a race, gives a clear error; the check itself catches broken lowerings.
#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>
#include <set>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/asck/AsckPrinter.h"
#include "codegen/ascend/asck/AsckValidator.h"
#include "codegen/ascend/lower/FromGir.h"
#include "codegen/ascend/sync/SyncStages.h"
#include "core/compute/Preprocess.h"
#include "core/gir/Parser.h"
#include "core/gir/Validity.h"
#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"
#include "search/ModelPlanner.h"
#include "tests/ascend/AscendTestUtil.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::ascend;
using gir::test::readText;
using gir::test::sourcePath;

namespace {

struct LoweringCase {
  std::string name;
  Graph graph;
  std::map<std::string, std::string> tensorOf;  // GIR buffer -> model tensor (scenarios only)
};

std::vector<std::string> filesIn(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(sourcePath(dir)))
    if (e.path().extension() == ext) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

Graph parseOrFail(const std::string& path) {
  auto g = parseGirText(readText(path), path);
  INFO(path << ": " << (g ? "" : g.error().str()));
  REQUIRE(g.ok());
  return std::move(*g);
}

// The graphs to lower: every valid GIR golden (tests/golden/gir; softmax_race.gir and softmax_scope.gir are
// deliberately invalid and tested as bad input below), and per bundled scenario the GIR planner's plan
// (search::planSubgraph) of every memory-bound subgraph for ascend910. Each scenario is a test case of its
// own (its own CTest process, so ctest -j2 plans two at a time), and one test case checks the list of
// scenarios against scenarios/*.onnx.
const std::vector<LoweringCase>& goldenCases() {
  static const std::vector<LoweringCase> cases = [] {
    std::vector<LoweringCase> out;
    for (const auto& path : filesIn("tests/golden/gir", ".gir")) {
      Graph g = parseOrFail(path);
      if (!checkValidity(g, randomInputs(g, 1)).valid()) continue;
      out.push_back({gir::test::stem(path), std::move(g), {}});
    }
    return out;
  }();
  return cases;
}

const char* const kScenarios[] = {"bert_bias_residual_layernorm", "column_reduction", "efficientnet", "gelu",
                                  "gpt2_decode_attention", "layernorm", "rmsnorm", "row_reduction", "shufflenet",
                                  "silu", "softmax", "transformer_block", "transpose_reduce"};

std::vector<LoweringCase> scenarioCases(const std::string& stem) {
  std::string path = sourcePath("scenarios/" + stem + ".onnx");
  auto hw = loadHardwareByName("ascend910");
  REQUIRE(hw.ok());
  auto model = compute::importOnnxFile(path);
  INFO(path << ": " << (model ? "" : model.error().str()));
  REQUIRE(model.ok());
  auto pre = compute::preprocess(*model, *hw);
  REQUIRE(pre.ok());
  search::PlanRequest req;
  req.planners = {"gir"};
  req.validate = false;  // the lowering checks its input itself (verifier, memory checker, interpreter)
  std::vector<LoweringCase> out;
  for (size_t i = 0; i < pre->subgraphs.size(); ++i) {
    auto plans = search::planSubgraph(*model, pre->subgraphs[i], i, *hw, req);
    INFO(path << " #" << i << ": " << (plans ? "" : plans.error().str()));
    REQUIRE(plans.ok());
    const search::LoweredSubgraph* low = &plans->planners[0].lowered.lowered;
    LoweringCase c{stem + "#" + std::to_string(i), low->gir, {}};
    for (const auto* m : {&low->inputBuffers, &low->outputBuffers})
      for (const auto& [buffer, tensor] : *m) c.tensorOf[buffer] = model->tensor(tensor).name;
    out.push_back(std::move(c));
  }
  return out;
}

FromGirOptions optionsFor(const LoweringCase& c) {
  FromGirOptions opt;
  opt.tensorOf = c.tensorOf;
  return opt;
}

AsckLowering lowerOrFail(const Graph& g, const FromGirOptions& opt) {
  auto low = lowerGirToAsck(g, opt);
  INFO((low ? "" : low.error().str()));
  REQUIRE(low.ok());
  return std::move(*low);
}

std::string goldenPath(const std::string& file) { return sourcePath("tests/golden/ascend-from-gir/" + file); }

void compareGolden(const std::string& file, const std::string& text) {
  if (gir::test::blessMode()) {
    std::filesystem::create_directories(std::filesystem::path(goldenPath(file)).parent_path());
    gir::test::writeText(goldenPath(file), text);
  }
  INFO(file);
  CHECK(readText(goldenPath(file)) == text);
}

// The properties every lowered graph must have, on both targets: the lowering (checked against the
// interpreter inside lowerInsertAndJudge) prints, re-parses and validates; it fits UB; the inserted output
// passes the normative oracle, keeps the program, stays in the flag budget and beats barrier-all.
void lowerAndJudgeAll(const std::vector<LoweringCase>& cases, const std::string& what) {
  std::vector<Target> targets{gir::test::targetOrFail("ascend910"), gir::test::targetOrFail("ascend910b")};
  std::map<std::string, std::vector<std::string>> robust, notRobust;
  for (const auto& c : cases) {
    INFO(c.name);
    auto runs = lowerInsertAndJudge(c.graph, optionsFor(c), targets, normativeOracleOptions());
    INFO((runs ? "" : runs.error().str()));
    REQUIRE(runs.ok());
    REQUIRE(runs->size() == targets.size());
    for (size_t t = 0; t < targets.size(); ++t) {
      const FromGirRun& run = (*runs)[t];
      std::string name = c.name + " on " + targets[t].name;
      INFO(name);
      std::string text = printLowering(run.lowering);
      auto back = parseAsck(text, c.name + ".asck");
      INFO((back ? "" : back.error().str()));
      REQUIRE(back.ok());
      auto valid = validateInput(*back, text);
      INFO((valid ? "" : valid.error().str()));
      REQUIRE(valid.ok());
      CHECK(printAsck(*back) == printAsck(run.lowering.program));
      CHECK(run.lowering.layout.ubBytes <= FromGirOptions{}.ubCapacityBytes);
      INFO(run.report.violation);
      REQUIRE(run.report.correct);
      CHECK(run.inserted.stats.physicalMaxPerPair <= targets[t].flags);
      Program stripped = run.inserted.output;
      stripSync(stripped.body);
      CHECK(printAsck(stripped) == printAsck(normalizeCfg(run.lowering.program)));
      // Flags, not barriers, order the pipes: the output beats barrier-all, unless the inserter found
      // its placement slower in simulation and kept the barrier-all program (docs/ascend.md).
      INFO("cycles " << run.report.cyclesMean << ", barrier-all " << run.report.barrierAllMean << ", kept barrier-all "
                     << run.inserted.stats.keptBarrierAll);
      if (run.inserted.stats.keptBarrierAll)
        CHECK(run.inserted.stats.barrierAllCycles < run.inserted.stats.flagCycles);
      else
        CHECK(run.report.cyclesMean < run.report.barrierAllMean);
      (run.report.robust ? robust : notRobust)[targets[t].name].push_back(c.name);
    }
  }
  for (const auto& t : targets) {
    std::cout << "[ascend-from-gir] " << what << " on " << t.name << ": " << robust[t.name].size() << " of " << cases.size()
              << " outputs robust\n";
    for (const auto& n : notRobust[t.name]) std::cout << "  not robust: " << n << "\n";
  }
}

}  // namespace

TEST_CASE("the lists: every valid GIR golden, and every bundled scenario has a test case below", "[ascend][from-gir]") {
  std::set<std::string> names;
  for (const auto& c : goldenCases()) names.insert(c.name);
  for (const char* n : {"relu", "figure6", "two_kernels", "softmax_block", "softmax_device", "shufflenet_source", "shufflenet_dest"}) {
    INFO(n);
    CHECK(names.count(n) == 1);
  }
  CHECK(names.count("softmax_race") == 0);   // a race: see below
  CHECK(names.count("softmax_scope") == 0);  // shared memory across blocks: a scope violation
  std::set<std::string> bundled, tested(std::begin(kScenarios), std::end(kScenarios));
  for (const auto& path : filesIn("scenarios", ".onnx")) bundled.insert(gir::test::stem(path));
  CHECK(bundled == tested);
}

TEST_CASE("every valid GIR golden lowers, reads what the interpreter reads, and passes the oracle on both targets",
          "[ascend][from-gir]") {
  lowerAndJudgeAll(goldenCases(), "GIR goldens");
}

// One test case per bundled scenario: the GIR planner's plan of each memory-bound subgraph, lowered, checked
// against the interpreter, inserted for ascend910 and ascend910b and judged.
#define GIR_ASCEND_SCENARIO(stem)                                                                                         \
  TEST_CASE("scenario " stem ": the GIR plan of every subgraph lowers, reads what the interpreter reads, and passes " \
            "the oracle on both targets", "[ascend][from-gir][scenario]") {                                            \
    lowerAndJudgeAll(scenarioCases(stem), stem);                                                                     \
  }
GIR_ASCEND_SCENARIO("bert_bias_residual_layernorm")
GIR_ASCEND_SCENARIO("column_reduction")
GIR_ASCEND_SCENARIO("efficientnet")
GIR_ASCEND_SCENARIO("gelu")
GIR_ASCEND_SCENARIO("gpt2_decode_attention")
GIR_ASCEND_SCENARIO("layernorm")
GIR_ASCEND_SCENARIO("rmsnorm")
GIR_ASCEND_SCENARIO("row_reduction")
GIR_ASCEND_SCENARIO("shufflenet")
GIR_ASCEND_SCENARIO("silu")
GIR_ASCEND_SCENARIO("softmax")
GIR_ASCEND_SCENARIO("transformer_block")
GIR_ASCEND_SCENARIO("transpose_reduce")
#undef GIR_ASCEND_SCENARIO

TEST_CASE("phases split where data crosses units, or at every sync as written", "[ascend][from-gir]") {
  auto phasesOf = [](const char* name, PhaseSplit split) {
    Graph g = parseOrFail(sourcePath(std::string("tests/golden/gir/") + name + ".gir"));
    FromGirOptions opt;
    opt.phases = split;
    AsckLowering low = lowerOrFail(g, opt);
    auto st = checkLowering(g, low);
    INFO(name << ": " << (st ? "" : st.error().str()));
    CHECK(st.ok());
    return low.plan.phases;
  };
  // figure6: both device syncs pass each unit's own 16 elements on: one loop runs all three kernels per unit.
  CHECK(phasesOf("figure6", PhaseSplit::Data) == 1);
  CHECK(phasesOf("figure6", PhaseSplit::Sync) == 3);
  // two_kernels: unit u reads what unit 63-u wrote.
  CHECK(phasesOf("two_kernels", PhaseSplit::Data) == 2);
  CHECK(phasesOf("two_kernels", PhaseSplit::Sync) == 2);
  // softmax_block: partial maxima and sums cross the units of a block twice.
  CHECK(phasesOf("softmax_block", PhaseSplit::Data) == 3);
  CHECK(phasesOf("softmax_block", PhaseSplit::Sync) == 3);

  // Split at every sync, every GIR golden still lowers and passes the oracle.
  Target target = gir::test::targetOrFail("ascend910");
  for (const auto& c : goldenCases()) {
    INFO(c.name);
    FromGirOptions opt = optionsFor(c);
    opt.phases = PhaseSplit::Sync;
    auto run = lowerInsertAndJudge(c.graph, opt, target, normativeOracleOptions());
    INFO((run ? "" : run.error().str()));
    REQUIRE(run.ok());
    INFO(run->report.violation);
    CHECK(run->report.correct);
  }
}

TEST_CASE("goldens: relu and two_kernels lowered, and inserted for both targets", "[ascend][from-gir]") {
  for (const char* name : {"relu", "two_kernels"}) {
    INFO(name);
    Graph g = parseOrFail(sourcePath(std::string("tests/golden/gir/") + name + ".gir"));
    AsckLowering low = lowerOrFail(g, {});
    compareGolden(std::string(name) + ".asck", printLowering(low));
    for (const char* targetName : {"ascend910", "ascend910b"}) {
      Target target = gir::test::targetOrFail(targetName);
      auto run = lowerInsertAndJudge(g, {}, target, normativeOracleOptions());
      REQUIRE(run.ok());
      REQUIRE(run->report.correct);
      AsckLowering shown = run->lowering;
      shown.program = run->inserted.output;
      compareGolden(std::string(name) + "." + targetName + ".asck", printLowering(shown));
      // The stored output is judged again on its own (a bless cannot store a wrong program).
      std::string stored = readText(goldenPath(std::string(name) + "." + targetName + ".asck"));
      auto p = parseAsck(stored, name);
      REQUIRE(p.ok());
      CHECK(validateOutput(*p, stored, target.flags).ok());
      CHECK(runOracle(*p, target, normativeOracleOptions()).correct);
    }
  }
}

TEST_CASE("double buffering lets the next unit's load overlap this unit's compute", "[ascend][from-gir]") {
  Graph g = parseOrFail(sourcePath("tests/golden/gir/relu.gir"));
  Target target = gir::test::targetOrFail("ascend910");
  FromGirOptions single;
  single.doubleBuffer = false;
  auto one = lowerInsertAndJudge(g, single, target, normativeOracleOptions());
  auto two = lowerInsertAndJudge(g, {}, target, normativeOracleOptions());
  REQUIRE(one.ok());
  REQUIRE(two.ok());
  REQUIRE(one->report.correct);
  REQUIRE(two->report.correct);
  for (const auto& b : one->lowering.program.buffers) CHECK((b.tile == 0 || b.mem == Mem::GM));
  CHECK(two->lowering.layout.doubleBuffered);
  // Per unit: MTE2 129 cycles, V 33, MTE3 129. One UB slot: the load of unit u+1 overwrites what V of unit u
  // reads, so the loads come every 129 + 33 cycles; two slots: every 129 (MTE2 is the bottleneck).
  CHECK(two->report.cyclesMean < 1024 * 129 * 1.05);
  CHECK(one->report.cyclesMean > 1024 * (129 + 33) * 0.98);
}

TEST_CASE("when 4 flags force merges, the faster of one and two UB slots is kept", "[ascend][from-gir]") {
  Graph g = parseOrFail(sourcePath("tests/golden/ascend-from-gir/layernorm_fused.gir"));
  Target t910 = gir::test::targetOrFail("ascend910");
  FromGirOptions forced;
  forced.keepFasterBuffering = false;
  auto dbl = lowerInsertAndJudge(g, forced, t910, normativeOracleOptions());
  auto kept = lowerInsertAndJudge(g, {}, t910, normativeOracleOptions());
  REQUIRE(dbl.ok());
  REQUIRE(kept.ok());
  REQUIRE(dbl->report.correct);
  REQUIRE(kept->report.correct);
  CHECK(dbl->inserted.stats.merges > 0);
  CHECK_FALSE(kept->lowering.layout.doubleBuffered);
  CHECK(kept->report.cyclesMean < dbl->report.cyclesMean);
  CHECK_THAT(kept->lowering.notes.back(), Catch::Contains("double buffering dropped: with 4 flags per pipe pair"));
  // With 8 flags nothing merges: the two slots stay and run far faster than the merged ones. (They do not beat
  // one slot here: this fused kernel is bound by its V chain, not by the loads a second slot would overlap.)
  auto wide = lowerInsertAndJudge(g, {}, gir::test::targetOrFail("ascend910b"), normativeOracleOptions());
  REQUIRE(wide.ok());
  CHECK(wide->report.correct);
  CHECK(wide->inserted.stats.merges == 0);
  CHECK(wide->lowering.layout.doubleBuffered);
  CHECK(wide->report.cyclesMean * 2 < dbl->report.cyclesMean);
}

TEST_CASE("UB budget: per-unit buffers pool by lifetime, then pools drop their second slot, then the lowering gives up",
          "[ascend][from-gir]") {
  Graph g = parseOrFail(sourcePath("tests/golden/gir/relu.gir"));  // two per-unit UB buffers of 32 bytes
  FromGirOptions opt;
  // Two slots each need 128 bytes. xr (load .. relu) and yr (relu .. store) overlap at the relu, so pooling
  // cannot share them; at 100 bytes one of the two pools keeps its second slot.
  opt.ubCapacityBytes = 100;
  AsckLowering low = lowerOrFail(g, opt);
  CHECK(low.layout.pooled);
  CHECK(low.layout.doubleBuffered);
  CHECK(low.layout.ubBytes == 96);
  CHECK(checkLowering(g, low).ok());
  opt.ubCapacityBytes = 64;
  low = lowerOrFail(g, opt);
  CHECK_FALSE(low.layout.doubleBuffered);
  CHECK(low.layout.ubBytes == 64);
  CHECK(checkLowering(g, low).ok());
  opt.ubCapacityBytes = 32;
  auto bad = lowerGirToAsck(g, opt);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().str(), Catch::Contains("needs 64 bytes of UB, the core has 32"));
}

TEST_CASE("UB pools: buffers whose lifetimes do not overlap share one, and the check catches a wrong sharing",
          "[ascend][from-gir]") {
  // Per unit: a = load x; b = exp a; c = exp b; d = a + c; store d. Lifetimes over the 5 nodes: a [0,3],
  // b [1,2], c [2,3], d [3,4]: b and d can share, a and c cannot share with anything alive beside them.
  const char* text = R"(gir @pool_chain target=ascend910 units=4 block=1
level gm device
level ub unit capacity=262144
%x = buffer gm f32[256] input
%a = buffer ub f32[256]
%b = buffer ub f32[256]
%c = buffer ub f32[256]
%d = buffer ub f32[256]
%y = buffer gm f32[256] output
%xs = slice %x offset(64*u) shape[64] strides[1]
%as = slice %a offset(64*u) shape[64] strides[1]
%bs = slice %b offset(64*u) shape[64] strides[1]
%cs = slice %c offset(64*u) shape[64] strides[1]
%ds = slice %d offset(64*u) shape[64] strides[1]
%ys = slice %y offset(64*u) shape[64] strides[1]
move %xs -> %as
ew.exp %as -> %bs
ew.exp %bs -> %cs
ew.add %as, %cs -> %ds
move %ds -> %ys
)";
  auto g = parseGirText(text, "pool_chain.gir");
  INFO((g ? "" : g.error().str()));
  REQUIRE(g.ok());
  FromGirOptions opt;
  opt.ubCapacityBytes = 800;  // unpooled: 1024 bytes with one slot each; pooled: 768
  AsckLowering low = lowerOrFail(*g, opt);
  REQUIRE(low.layout.pooled);
  CHECK(low.layout.ubBytes == 768);
  auto asckOf = [&](const char* name) {
    for (uint32_t b = 0; b < g->buffers().size(); ++b)
      if (g->buffers()[b].name == name) return low.layout.buffers[low.layout.ofGir.at(b)].asck;
    return -1;
  };
  CHECK(asckOf("b") == asckOf("d"));
  CHECK(asckOf("a") != asckOf("b"));
  CHECK(asckOf("a") != asckOf("c"));
  CHECK(asckOf("b") != asckOf("c"));
  CHECK(checkLowering(*g, low).ok());
  auto run = lowerInsertAndJudge(*g, opt, gir::test::targetOrFail("ascend910"), normativeOracleOptions());
  REQUIRE(run.ok());
  INFO(run->report.violation);
  CHECK(run->report.correct);

  // c written over a, which d still reads: the in-order run reads c's values where the interpreter reads a's.
  int from = asckOf("c"), to = asckOf("a");
  for (auto& bl : low.layout.buffers)
    if (bl.asck == from) bl.asck = to;
  for (auto& st : low.program.body[0].body)
    for (auto* refs : {&st.instr.dsts, &st.instr.srcs})
      for (auto& r : *refs)
        if (r.buffer == from) r.buffer = to;
  auto st = checkLowering(*g, low);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().str(), Catch::Contains("'n3_add' for unit 0: input 0 element 0 reads %c[0] as written by n2 unit 0, "
                                               "the interpreter reads %a[0] as written by n0 unit 0"));
}

TEST_CASE("UB spill: buffers that outlive a phase go to GM when UB cannot hold them, and still pass the oracle",
          "[ascend][from-gir]") {
  // softmax_block keeps x's rows (xr) and the exponentials (e) in block-shared memory across its syncs: 2 KB
  // each, whole in UB. At 600 bytes both spill: their writers store them (MTE3), their readers load (MTE2).
  Graph g = parseOrFail(sourcePath("tests/golden/gir/softmax_block.gir"));
  FromGirOptions opt;
  opt.ubCapacityBytes = 600;
  std::vector<Target> targets{gir::test::targetOrFail("ascend910"), gir::test::targetOrFail("ascend910b")};
  auto runs = lowerInsertAndJudge(g, opt, targets, normativeOracleOptions());
  INFO((runs ? "" : runs.error().str()));
  REQUIRE(runs.ok());
  for (const auto& run : *runs) {
    const Layout& lay = run.lowering.layout;
    CHECK(lay.ubBytes <= 600);
    std::set<std::string> spilled;
    for (const auto& bl : lay.buffers)
      if (bl.spilled) {
        spilled.insert(g.buffer(bl.gir).name);
        CHECK(lay.decls[bl.asck].mem == Mem::GM);
      }
    CHECK(spilled == std::set<std::string>{"xr", "e"});
    CHECK_THAT(printLowering(run.lowering), Catch::Contains("# spilled to GM (stored after their writers, loaded by their readers): %xr"));
    INFO(run.report.violation);
    CHECK(run.report.correct);
    CHECK(run.report.robust);
  }
  // Spilling needs no more than what does not fit: with the target's UB nothing spills.
  AsckLowering whole = lowerOrFail(g, {});
  for (const auto& bl : whole.layout.buffers) CHECK_FALSE(bl.spilled);
  opt.ubCapacityBytes = 100;  // three one-slot pools and the two 128-byte block partials do not fit
  auto bad = lowerGirToAsck(g, opt);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().str(), Catch::Contains("every buffer that outlives a phase spilled to GM"));
}

TEST_CASE("a GIR the loop nests cannot express is rejected naming the node", "[ascend][from-gir]") {
  // Unit u reads element 4(u%3) + u/3 and writes element 6(u%2) + u/2 (both permutations of 0..11): the
  // divisors 3 and 2 do not nest, so no mixed-radix loop nest makes both affine.
  const char* text = R"(gir @no_nest target=ascend910 units=12 block=1
level gm device
level ub unit capacity=262144
%x = buffer gm f32[12] input
%r = buffer ub f32[12]
%y = buffer gm f32[12] output
%xs = slice %x offset(4*(u%3)+u/3) shape[1] strides[1]
%rs = slice %r offset(u) shape[1] strides[1]
%ys = slice %y offset(6*(u%2)+u/2) shape[1] strides[1]
move %xs -> %rs
move %rs -> %ys
)";
  auto g = parseGirText(text, "no_nest.gir");
  INFO((g ? "" : g.error().str()));
  REQUIRE(g.ok());
  REQUIRE(checkValidity(*g, randomInputs(*g, 1)).valid());
  auto low = lowerGirToAsck(*g, {});
  REQUIRE_FALSE(low.ok());
  std::string msg = low.error().str();
  CHECK_THAT(msg, Catch::Contains("divisors 2 and 3 do not nest"));
  CHECK_THAT(msg, Catch::Contains("move %"));
}

TEST_CASE("a GIR with a race or a scope violation has no program order to lower", "[ascend][from-gir]") {
  Graph race = parseOrFail(sourcePath("tests/golden/gir/softmax_race.gir"));
  auto low = lowerGirToAsck(race, {});
  REQUIRE_FALSE(low.ok());
  CHECK_THAT(low.error().str(), Catch::Contains("no single program order to lower: race"));
  CHECK_THAT(low.error().str(), Catch::Contains("%pmax_s"));
  Graph scope = parseOrFail(sourcePath("tests/golden/gir/softmax_scope.gir"));
  low = lowerGirToAsck(scope, {});
  REQUIRE_FALSE(low.ok());
  CHECK_THAT(low.error().str(), Catch::Contains("no single program order to lower: scope"));
}

TEST_CASE("the check catches broken lowerings", "[ascend][from-gir]") {
  Graph g = parseOrFail(sourcePath("tests/golden/gir/relu.gir"));
  AsckLowering good = lowerOrFail(g, {});
  REQUIRE(checkLowering(g, good).ok());
  auto& body = good.program.body[0].body;  // loop u 1024 { MTE2 load; V relu; MTE3 store }
  REQUIRE(body.size() == 3);

  SECTION("a tile index that does not hold the unit's elements") {
    body[2].instr.dsts[0].index.constant = 1;  // y[u+1] for unit u
    auto st = checkLowering(g, good);
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.error().str(), Catch::Contains("lies outside its reference y[u+1]"));
  }
  SECTION("a load into the other UB slot than the compute reads") {
    body[0].instr.dsts[0].index.constant = 1;  // xr[(u+1)%2]
    auto st = checkLowering(g, good);
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.error().str(), Catch::Contains("'n1_relu' for unit 0: input 0 element 0 reads an element nothing wrote"));
  }
  SECTION("the compute before its load") {
    std::swap(body[0], body[1]);
    std::swap(good.origins[0], good.origins[1]);
    numberStmts(good.program);
    auto st = checkLowering(g, good);
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.error().str(), Catch::Contains("'n1_relu' for unit 0"));
  }
}
