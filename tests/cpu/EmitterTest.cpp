// The emitted C++ of a small graph against a reviewed golden file, the schedule's stages and buffer
// placements, loop nests of awkward slices (transposes, outer-axis reductions and broadcasts,
// unit domains, u/k and u%k offsets) run against the interpreter, and compiler errors quoting the line.
#include <catch2/catch.hpp>

#include <cmath>

#include "codegen/cpu/CpuCheck.h"
#include "codegen/schedule/LoopNest.h"
#include "codegen/schedule/Schedule.h"
#include "core/gir/Parser.h"
#include "core/gir/Validity.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;
using gir::test::planOf;
using gir::test::countOf;
using namespace gir::codegen;
using namespace gir::codegen::cpu;

namespace {

// The emitted source of a GIR file against its reviewed golden; the golden itself compiles and
// matches the interpreter, so a bless cannot store wrong code. Returns the source.
std::string checkGoldenSource(const std::string& girPath, const std::string& goldenPath) {
  Graph g = test::parseGirFileOrStop(girPath);
  auto src = emitCpu(g);
  REQUIRE(src);
  std::string golden = test::sourcePath(goldenPath);
  if (test::blessMode()) test::writeText(golden, src->code);
  CHECK(src->code == test::readText(golden));
  auto k = CompiledKernel::build(g, test::cpuTestOptions());
  REQUIRE(k);
  auto check = checkAgainstInterpreter(g, *k, 4);
  REQUIRE(check);
  CHECK(check->close);
  return src->code;
}

}  // namespace

TEST_CASE("the generated code of softmax_block matches its golden file", "[cpu][emit]") {
  checkGoldenSource("tests/golden/gir/softmax_block.gir", "tests/golden/cpu/softmax_block.cpp");
}

TEST_CASE("an elementwise chain (GELU's plan) is one loop whose register values are locals", "[cpu][emit][fusion]") {
  std::string code = checkGoldenSource("tests/golden/cpu/gelu_fused.gir", "tests/golden/cpu/gelu_fused.cpp");
  // One loop nest for the seven nodes. It computes erf, so its iterations go in pairs (docs/cpu.md,
  // "Paired iterations"): the body twice, side by side, then once for the elements after the last pair.
  CHECK(countOf(code, "for (int64_t pair0 = 0; pair0 + 2 * girLanes <= ") == 1);
  CHECK(countOf(code, "for (int64_t i0 ") == 1);  // the tail
  CHECK(countOf(code, "// node ") == 7);          // one comment per GIR node
  CHECK(countOf(code, "alignas(64) float") == 0);  // no per-unit arrays: every intermediate is a value
  CHECK(countOf(code, "const float v") == 3 * 6);  // the erf is emitted with its add of 1
  CHECK(countOf(code, "const float v1 = ") == 2);
  CHECK(countOf(code, "const float v1_1 = ") == 1);
  CHECK(countOf(code, "girOnePlusErf(v1)") == 2);
  CHECK(countOf(code, "girOnePlusErf(v1_1)") == 1);
  // The kernel computes erf: its function sits in a region with 512-bit vectors preferred, closed after it.
  CHECK(countOf(code, "#pragma GCC target(\"prefer-vector-width=512\")") == 1);
  CHECK(code.find("#pragma GCC pop_options") > code.find("void kernel0("));
  CHECK(code.find("#pragma GCC pop_options") < code.find("extern \"C\""));
  // Rows of 1,024 read in one pass: its loads are the stream the hardware prefetcher follows, so no
  // prefetch of the next unit (docs/cpu.md, "Prefetching the next unit").
  CHECK(countOf(code, "__builtin_prefetch(in") == 0);
}

TEST_CASE("an erf goes into its add of 1 only when that add is its one reader", "[cpu][emit]") {
  // %e's erf feeds only the add of 1: one girOnePlusErf. %f's erf is also an output, and %g's is
  // added to 2: both stay girErf. Inputs over [-8, 8] reach both tails, where 1 + erf(x) cancels.
  Graph g = test::parseGirOrStop(R"(gir @erfs target=cpu-host units=2 block=1
level dram device
level local unit capacity=32768
%x = buffer dram f32[64] input
%e = buffer local f32[64]
%a = buffer dram f32[64] output
%f = buffer dram f32[64] output
%b = buffer dram f32[64] output
%h = buffer local f32[64]
%c = buffer dram f32[64] output
%s0 = slice %x offset(32*u) shape[32] strides[1]
%s1 = slice %e offset(32*u) shape[32] strides[1]
%s2 = slice %a offset(32*u) shape[32] strides[1]
%s3 = slice %f offset(32*u) shape[32] strides[1]
%s4 = slice %b offset(32*u) shape[32] strides[1]
%s5 = slice %h offset(32*u) shape[32] strides[1]
%s6 = slice %c offset(32*u) shape[32] strides[1]
ew.erf %s0 -> %s1
ew.add %s1, 1 -> %s2
ew.erf %s0 -> %s3
ew.add %s3, 1 -> %s4
ew.erf %s0 -> %s5
ew.add 2, %s5 -> %s6
)");
  auto src = emitCpu(g);
  REQUIRE(src);
  // Each once per copy of the body: two in the paired loop, one in its tail (docs/cpu.md, "Paired iterations").
  CHECK(countOf(src->code, " = girOnePlusErf(") == 3 * 1);
  CHECK(countOf(src->code, " = girErf(") == 3 * 2);
  auto k = CompiledKernel::build(g, test::cpuTestOptions());
  REQUIRE(k);
  TensorMap in{{"x", std::vector<float>(64)}};
  for (size_t i = 0; i < 64; ++i) in["x"][i] = -8.0f + 16.0f * static_cast<float>(i) / 63.0f;
  auto out = k->run(in);
  REQUIRE(out);
  for (size_t i = 0; i < 64; ++i) {
    double want = 1 + std::erf(static_cast<double>(in["x"][i]));
    INFO("x = " << in["x"][i]);
    CHECK(std::abs((*out)["a"][i] - want) <= 2e-7 + 1e-4 * want);
    CHECK(std::abs((*out)["b"][i] - want) <= 2e-7 + 1e-4 * want);
  }
}

TEST_CASE("LayerNorm's plan: each reduction fused with its producers, the scale and shift with the normalization", "[cpu][emit][fusion]") {
  std::string code = checkGoldenSource("tests/golden/cpu/layernorm_fused.gir", "tests/golden/cpu/layernorm_fused.cpp");
  CHECK(countOf(code, "// one loop nest over ") == 4);  // mean, variance, rsqrt, normalize-scale-shift
  // Both sums run over whole rows of 768 in lane blocks of 128: two float partials of 64 elements
  // side by side, added to each other and then into the accumulator's lanes. The mean's sum may
  // cancel and accumulates in double lanes; the variance sums squares, which cannot cancel, in float
  // lanes (codegen/schedule/SumPrecision.h).
  CHECK(countOf(code, "alignas(64) float part") == 4);
  CHECK(countOf(code, "block0 < 768; block0 += 128") == 2);
  CHECK(countOf(code, "const int64_t i0 = step0 + 16 + lane0;") == 2);  // the second partial's copy of each body
  CHECK(countOf(code, "alignas(64) double lanes") == 1);
  CHECK(countOf(code, "alignas(64) float lanes") == 1);
  CHECK(countOf(code, "reduction(+:acc") == 0);  // 768 is whole blocks: no tail loop
  // rsqrt is no transcendental of the op table's: 256-bit vectors, as GCC prefers (docs/cpu.md, "Vector width").
  CHECK(countOf(code, "prefer-vector-width") == 0);
  // The mean's pass over x's row of 768 is followed by more passes: each of its lane blocks prefetches
  // the same 128 elements of the next unit's row into L2. The later passes read x's row through its
  // home, in the caches by then, and prefetch nothing (docs/cpu.md, "Prefetching the next unit").
  // (y is not streamed: the normalization loops element by element, no place to prefetch from.)
  CHECK(countOf(code, "__builtin_prefetch(x + (768*u) + 768 + block0 + line, 0, 2)") == 1);
  CHECK(countOf(code, "__builtin_prefetch(x") == 1);
  CHECK(code.find("__builtin_prefetch(x + (768*u)") > code.find("for (int64_t block0 = 0; block0 < 768; block0 += 128)"));
  // No prefetch of a later block: a unit reads 9 KB of device memory, x's row, gamma and beta (docs/cpu.md,
  // "Prefetch"); the prelude's definition is the one mention.
  CHECK(countOf(code, "girPrefetch(") == 1);
}

TEST_CASE("softmax over 16 rows per unit: max, exp-and-sum and divide run as one band per row", "[cpu][emit][fusion][band]") {
  std::string code = checkGoldenSource("tests/golden/cpu/softmax_rows_band.gir", "tests/golden/cpu/softmax_rows_band.cpp");
  CHECK(countOf(code, "// one band: 3 loop nests share their outer loops [16]") == 1);
  // Rows of 128 in a pipeline: loop nest k works on row pipe0 - k, so the loop runs 16 + 2 times and
  // each nest is guarded by its rows (docs/cpu.md, "Row pipelines").
  CHECK(countOf(code, "for (int64_t pipe0 = 0; pipe0 < 18; ++pipe0)") == 1);
  CHECK(countOf(code, "for (int64_t i0 ") == 0);
  CHECK(countOf(code, "if (pipe0 < 16) {") == 1);
  CHECK(countOf(code, "if (pipe0 >= 1 && pipe0 < 17) {") == 1);
  CHECK(countOf(code, "if (pipe0 >= 2 && pipe0 < 18) {") == 1);
  CHECK(code.find("const int64_t i0 = pipe0;") < code.find("const int64_t i0 = pipe0 - 1;"));
  CHECK(code.find("const int64_t i0 = pipe0 - 1;") < code.find("const int64_t i0 = pipe0 - 2;"));
  // Each pass over a row of 128: the max and the divide as loops, the sum of exponentials in lane blocks.
  CHECK(countOf(code, "for (int64_t i1 ") == 2);
  CHECK(countOf(code, "const int64_t i1 = step1 + lane1;") == 1);
  // Each row of 128 prefetches the same row of the next unit into L2, once (x is the band's one device input).
  CHECK(countOf(code, "__builtin_prefetch(in0_0 + 2048 + i0*128 + line, 0, 2)") == 1);
  CHECK(countOf(code, "__builtin_prefetch(in") == 1);
  CHECK(countOf(code, "girPrefetch(") == 1);  // units of 8 KB: no prefetch of a later block (docs/cpu.md, "Prefetch")
}

namespace {

// Softmax over `rows` rows of `length` per unit, 4 units: the band of softmax_rows_band.gir at other sizes.
std::string softmaxRows(int64_t rows, int64_t length) {
  std::string cell = std::to_string(rows * length), all = std::to_string(4 * rows * length), r = std::to_string(rows),
              l = std::to_string(length), sums = std::to_string(4 * rows);
  std::string box = "offset(" + cell + "*u) shape[1,1," + r + "," + l + "] strides[" + cell + "," + cell + "," + l + ",1]";
  std::string row = "offset(" + r + "*u) shape[1,1," + r + "] strides[" + r + "," + r + ",1]";
  return "gir @softmax_rows target=cpu-host units=4 block=1\nlevel dram device\nlevel local unit capacity=1048576\n"
         "%x = buffer dram f32[" + all + "] input\n%a = buffer local f32[" + all + "]\n%m = buffer local f32[" + sums + "]\n"
         "%mb = buffer local f32[" + all + "]\n%d = buffer local f32[" + all + "]\n%e = buffer local f32[" + all + "]\n"
         "%s = buffer local f32[" + sums + "]\n%sb = buffer local f32[" + all + "]\n%q = buffer local f32[" + all + "]\n"
         "%y = buffer dram f32[" + all + "] output\n"
         "%s0 = slice %x offset(" + cell + "*u) shape[" + cell + "] strides[1]\n%s1 = slice %a " + box + "\n%s2 = slice %m " + row + "\n"
         "%s3 = slice %mb " + box + "\n%s4 = slice %d " + box + "\n%s5 = slice %e " + box + "\n%s6 = slice %s " + row + "\n"
         "%s7 = slice %sb " + box + "\n%s8 = slice %q " + box + "\n%s9 = slice %y offset(" + cell + "*u) shape[" + cell + "] strides[1]\n"
         "move %s0 -> %s1\nreduce.max axes[3] %s1 -> %s2\nbroadcast axes[3] %s2 -> %s3\new.sub %s1, %s3 -> %s4\n"
         "ew.exp %s4 -> %s5\nreduce.sum axes[3] %s5 -> %s6\nbroadcast axes[3] %s6 -> %s7\new.div %s5, %s7 -> %s8\nmove %s8 -> %s9\n";
}

}  // namespace

TEST_CASE("a band pipelines its rows only where they are short and at least four", "[cpu][emit][fusion][band]") {
  struct Case {
    int64_t rows, length;
    bool pipelined;
  };
  // 5 rows: the pipeline's first and last iterations run fewer nests than the others. 1,024 floats: the
  // rows in flight would not stay in L1. 3 rows: too few to fill it (docs/cpu.md, "Row pipelines").
  for (Case cs : {Case{5, 128, true}, Case{16, 512, true}, Case{4, 1024, false}, Case{3, 256, false}}) {
    CAPTURE(cs.rows, cs.length);
    Graph g = test::parseGirOrStop(softmaxRows(cs.rows, cs.length));
    auto src = emitCpu(g);
    REQUIRE(src);
    CHECK(countOf(src->code, "one band: 3 loop nests share their outer loops [" + std::to_string(cs.rows) + "]") == 1);
    std::string loop = "for (int64_t pipe0 = 0; pipe0 < " + std::to_string(cs.rows + 2) + "; ++pipe0)";
    CHECK(countOf(src->code, loop) == (cs.pipelined ? 1 : 0));
    CHECK(countOf(src->code, "for (int64_t i0 = 0; i0 < " + std::to_string(cs.rows) + "; ++i0)") == (cs.pipelined ? 0 : 1));
    auto k = CompiledKernel::build(g, test::cpuTestOptions());
    REQUIRE(k);
    auto check = checkAgainstInterpreter(g, *k, 7);
    REQUIRE(check);
    CHECK(check->close);
    test::requireCountsModelledBytes(g);  // each row's input read once, its output written once, as modelled
  }
}

TEST_CASE("a division by an immediate is a multiply by its reciprocal where that is a normal float", "[cpu][emit]") {
  Graph g = test::parseGirOrStop(R"(gir @divs target=cpu-host units=2 block=1
level dram device
%x = buffer dram f32[64] input
%a = buffer dram f32[64] output
%b = buffer dram f32[64] output
%c = buffer dram f32[64] output
%s0 = slice %x offset(32*u) shape[32] strides[1]
%s1 = slice %a offset(32*u) shape[32] strides[1]
%s2 = slice %b offset(32*u) shape[32] strides[1]
%s3 = slice %c offset(32*u) shape[32] strides[1]
ew.div %s0, 768 -> %s1
ew.div %s0, 1e+38 -> %s2
ew.div %s0, 0 -> %s3
)");
  auto src = emitCpu(g);
  REQUIRE(src);
  CHECK(countOf(src->code, "* 0.00130208337f") == 1);  // 1/768 rounded to float
  CHECK(countOf(src->code, "/ 9.99999968e+37f") == 1);  // 1e-38 is below the smallest normal float
  CHECK(countOf(src->code, "/ 0.0f") == 1);             // x / 0 keeps its infinities and NaNs
  auto k = CompiledKernel::build(g, test::cpuTestOptions());
  REQUIRE(k);
  auto check = checkAgainstInterpreter(g, *k, 3);
  REQUIRE(check);
  CHECK(check->close);
}

TEST_CASE("a division by a value the same along the row is a multiply by its reciprocal, by a varying one a division",
          "[cpu][emit]") {
  // %q = x / s (s a per-unit scalar broadcast along the row), %r = x / x (the divisor varies).
  Graph g = test::parseGirOrStop(R"(gir @row_divs target=cpu-host units=2 block=1
level dram device
level local unit capacity=32768
%x = buffer dram f32[64] input
%s = buffer dram f32[2] input
%q = buffer dram f32[64] output
%r = buffer dram f32[64] output
%x_u = slice %x offset(32*u) shape[32] strides[1]
%s_u = slice %s offset(u) shape[1] strides[1]
%q_u = slice %q offset(32*u) shape[32] strides[1]
%r_u = slice %r offset(32*u) shape[32] strides[1]
%l = buffer local f32[2]
%l_u = slice %l offset(u) shape[1] strides[1]
%b = buffer local f32[64]
%b_u = slice %b offset(32*u) shape[32] strides[1]
move %s_u -> %l_u
broadcast axes[0] %l_u -> %b_u
ew.div %x_u, %b_u -> %q_u
ew.div %x_u, %x_u -> %r_u
)");
  auto src = emitCpu(g);
  REQUIRE(src);
  INFO(src->code);
  CHECK(countOf(src->code, " * (1.0f / v") == 1);  // the broadcast's value, inverted once per row
  CHECK(countOf(src->code, "] / in") == 1);        // x / x: one division per element
  test::requireKernelMatches(g);
}

namespace {

// Two units, each summing one row of `n` floats into y[u].
Graph rowSum(int n) {
  std::string row = std::to_string(n);
  return test::parseGirOrStop(R"(gir @rowsum target=cpu-host units=2 block=1
level dram device
level local unit capacity=32768
%x = buffer dram f32[)" + std::to_string(2 * n) + R"(] input
%y = buffer dram f32[2] output
%s0 = slice %x offset()" + row + "*u) shape[1," + row + "] strides[" + row + R"(,1]
%s1 = slice %y offset(u) shape[1] strides[1]
reduce.sum axes[1] %s0 -> %s1
)");
}

}  // namespace

TEST_CASE("a sum over fewer than 128 elements takes one partial per lane block", "[cpu][emit][reduce]") {
  // 100 = one block of 64 (a single float partial: there is no room for two) + a tail of 36.
  Graph g = rowSum(100);
  auto src = emitCpu(g);
  REQUIRE(src);
  CHECK(countOf(src->code, "block0 < 64; block0 += 64") == 1);
  CHECK(countOf(src->code, "part0_1") == 0);
  CHECK(countOf(src->code, "lanes0[lane0] += part0[lane0];") == 1);
  CHECK(countOf(src->code, "for (int64_t i0 = 64; i0 < 100; ++i0)") == 1);
  test::requireKernelMatches(g);
}

TEST_CASE("a sum whose row is not whole lane blocks finishes in a tail loop", "[cpu][emit][reduce]") {
  // 200 = one block of 128 (two partials of 64) + 72: the tail is a simd reduction into the
  // accumulator the lanes end in.
  Graph g = rowSum(200);
  auto src = emitCpu(g);
  REQUIRE(src);
  CHECK(countOf(src->code, "block0 < 128; block0 += 128") == 1);
  CHECK(countOf(src->code, "lanes0[lane0] += (part0[lane0] + part0_1[lane0]);") == 1);
  CHECK(countOf(src->code, "for (int64_t i0 = 128; i0 < 200; ++i0)") == 1);
  CHECK(countOf(src->code, "acc0 += girLaneSum(lanes0);") == 1);
  test::requireKernelMatches(g);
}

namespace {

// A column strip per unit, loaded into registers and summed over its rows (ReduceSum over columns'
// unit kernel, small): `rows` x 8 per unit, 4 units, `extra` adds a second reader of the strip.
Graph columnStripSum(int rows, bool extra) {
  std::string r = std::to_string(rows), n = std::to_string(rows * 32);
  std::string text = "gir @colsum target=cpu-host units=4 block=1\nlevel dram device\nlevel local unit capacity=32768\n"
                     "%x = buffer dram f32[" + n + "] input\n%y = buffer dram f32[32] output\n"
                     "%r = buffer local f32[" + n + "]\n%xs = slice %x offset(8*u) shape[" + r + ",8] strides[32,1]\n"
                     "%rs = slice %r offset(" + std::to_string(rows * 8) + "*u) shape[" + r + ",8] strides[8,1]\n"
                     "%ys = slice %y offset(8*u) shape[8] strides[1]\nmove %xs -> %rs\nreduce.sum axes[0] %rs -> %ys\n";
  if (extra) text += "%z = buffer dram f32[" + n + "] output\n%zs = slice %z offset(" + std::to_string(rows * 8) + "*u) shape[" + r +
                     ",8] strides[8,1]\nmove %rs -> %zs\n";
  return test::parseGirOrStop(text);
}

}  // namespace

TEST_CASE("a column sum reads its strip where the move put it in registers, and adds rows in blocks of 4", "[cpu][emit][reduce]") {
  // 64 rows: the reduce reads %x itself (no strip array), 16 row blocks of 4 in float into double lanes.
  std::string blocked = test::requireKernelMatches(columnStripSum(64, false), {1, 2, 3});
  CHECK(countOf(blocked, "(read through by node 1: a move into registers is a load)") == 1);
  CHECK(countOf(blocked, "float r[") == 0);
  CHECK(countOf(blocked, "i0 < 64; i0 += 4)") == 1);
  CHECK(countOf(blocked, "in0[i0*32 + i1 + 96]") == 1);
  // 6 rows: not whole blocks, so one double add per row; the strip is still read in place.
  std::string rows = test::requireKernelMatches(columnStripSum(6, false), {1, 2});
  CHECK(countOf(rows, "read through") == 1);
  CHECK(countOf(rows, "+= 4)") == 0);
  // A second reader of the strip: the strip is stored, the move emitted, the reduce reads the array.
  std::string stored = test::requireKernelMatches(columnStripSum(64, true), {1, 2});
  CHECK(countOf(stored, "read through") == 0);
  CHECK(countOf(stored, "alignas(64) float r[512];") == 1);
  CHECK(countOf(stored, "i0 < 64; i0 += 4)") == 1);
}

TEST_CASE("schedule: stages at block syncs, kernels at device syncs, placement by scope and lifetime", "[cpu][schedule]") {
  Graph g = test::parseGirFileOrStop("tests/golden/gir/softmax_block.gir");
  auto s = buildSchedule(g);
  REQUIRE(s);
  REQUIRE(s->kernels.size() == 1);
  CHECK(s->kernels[0].blockSyncs == 2);
  CHECK(s->kernels[0].stages.size() == 3);
  CHECK(s->blocks == 8);
  CHECK(planOf(g, *s, "x").placement == Placement::Global);
  CHECK(planOf(g, *s, "pmax_s").placement == Placement::PerBlock);  // smem: one scratch per block
  CHECK(planOf(g, *s, "pmax_s").instanceSize == 4);
  CHECK(planOf(g, *s, "xr").placement == Placement::PerBlockUnits);  // registers live across a block sync
  CHECK(planOf(g, *s, "xr").instanceSize == 16);
  CHECK(planOf(g, *s, "pmax").placement == Placement::PerUnit);      // registers inside one stage
  CHECK(planOf(g, *s, "pmax").instanceSize == 1);

  Graph two = test::parseGirFileOrStop("tests/golden/gir/two_kernels.gir");
  auto s2 = buildSchedule(two);
  REQUIRE(s2);
  CHECK(s2->kernels.size() == 2);
  CHECK(planOf(two, *s2, "t").placement == Placement::Global);
}

// Awkward slices on purpose: a transposing move (shapes that do not refine each other), a reduction
// over the outer axis, a broadcast along the outer axis from DRAM, u/k and u%k offsets, unit domains.
constexpr const char* kAwkward = R"(gir @awkward target=cpu-host units=8 block=2
level dram device
level tile block capacity=1048576
level local unit capacity=32768
%x = buffer dram f32[8,4,6] input
%v = buffer dram f32[6] input
%y = buffer dram f32[8,6,4] output
%z = buffer dram f32[8,6] output
%w = buffer dram f32[8,4,6] output
%c = buffer dram f32[16] output
%r = buffer local f32[192]
%t = buffer local f32[192]
%s = buffer local f32[48]
%t2 = buffer local f32[192]
%b = buffer local f32[192]
%q = buffer local f32[16]
%x_u = slice %x offset(24*u) shape[4,6] strides[6,1]
%r_u = slice %r offset(24*u) shape[24] strides[1]
%r_t = slice %r offset(24*u) shape[6,4] strides[1,6]
%t_f = slice %t offset(24*u) shape[24] strides[1]
%t2_u = slice %t2 offset(24*u) shape[4,6] strides[6,1]
%y_u = slice %y offset(24*u) shape[24] strides[1]
%r_m = slice %r offset(24*u) shape[4,6] strides[6,1]
%s_u = slice %s offset(6*u) shape[6] strides[1]
%z_u = slice %z offset(6*u) shape[6] strides[1]
%b_u = slice %b offset(24*u) shape[4,6] strides[6,1]
%w_u = slice %w offset(24*u) shape[4,6] strides[6,1]
%v_a = slice %v offset(0) shape[6] strides[1]
%x_k = slice %x offset(24*(u%2)+48*(u/2)) shape[2] strides[1]
%q_u = slice %q offset(2*u) shape[2] strides[1]
%c_u = slice %c offset(2*u) shape[2] strides[1]
move %x_u -> %r_u
move %r_t -> %t_f
move %t_f -> %y_u
reduce.sum axes[0] %r_m -> %s_u
move %s_u -> %z_u
broadcast axes[0] %v_a -> %b_u
ew.mul %b_u, %r_m -> %t2_u domain[0,4)
ew.add %b_u, %r_m -> %t2_u domain[4,8)
move %t2_u -> %w_u
move %x_k -> %q_u
move %q_u -> %c_u
)";

TEST_CASE("awkward slices: transposes, outer reductions, DRAM broadcasts, domains, u/k and u%k", "[cpu][emit]") {
  Graph g = test::parseGirOrStop(kAwkward);
  std::string code = test::requireKernelMatches(g, {1, 2, 3});
  CHECK(code.find("// pack %v[") != std::string::npos);      // the DRAM broadcast input is read once
  CHECK(code.find("if (u >= 0 && u < 4)") != std::string::npos);
  CHECK(code.find("48*(u/2) + 24*(u%2)") != std::string::npos);
}

TEST_CASE("loop nests refine shapes and merge contiguous loops", "[cpu][schedule]") {
  Graph g = test::parseGirOrStop(kAwkward);
  // node 0: [4,6] dense -> [24]: one loop of 24.
  auto n0 = loopNestOf(g, NodeId(0));
  REQUIRE(n0);
  CHECK(n0->extents == std::vector<int64_t>{24});
  CHECK(n0->inputs[0].strides == std::vector<int64_t>{1});
  // node 1: a transposed [6,4] view into a flat [24]: two loops, the input walks with strides (1, 6).
  auto n1 = loopNestOf(g, NodeId(1));
  REQUIRE(n1);
  CHECK(n1->extents == std::vector<int64_t>{6, 4});
  CHECK(n1->inputs[0].strides == std::vector<int64_t>{1, 6});
  CHECK(n1->output.strides == std::vector<int64_t>{4, 1});
  // node 3: reduce over the outer axis: the reduced loop is not innermost.
  auto n3 = loopNestOf(g, NodeId(3));
  REQUIRE(n3);
  CHECK(n3->reduced == std::vector<bool>{true, false});
  CHECK_FALSE(n3->reductionIsInnermost());
  CHECK(n3->output.strides == std::vector<int64_t>{0, 1});
}

TEST_CASE("a compiler error quotes the generated source line", "[cpu][compile]") {
  std::string broken = "// deliberately broken\nint ok() { return 1; }\nint broken() { return undeclared_name + 1; }\n";
  CompileOptions o = test::cpuTestOptions().compile;
  auto obj = compileSource(broken, o);
  REQUIRE_FALSE(obj);
  std::string text = obj.error().str();
  INFO(text);
  CHECK(obj.error().location.line == 3);
  CHECK(text.find("undeclared_name") != std::string::npos);
  CHECK(text.find("generated source line 3: int broken() { return undeclared_name + 1; }") != std::string::npos);
  CHECK(text.find(".cpp") != std::string::npos);
}

TEST_CASE("the cache returns the same object for the same source", "[cpu][compile]") {
  CompileOptions o = test::cpuTestOptions().compile;
  std::string src = "extern \"C\" int gir_cache_probe() { return 7; }\n";
  auto a = compileSource(src, o);
  REQUIRE(a);
  auto b = compileSource(src, o);
  REQUIRE(b);
  CHECK(b->cacheHit);
  CHECK(a->objectPath == b->objectPath);
  auto lib = loadLibrary(b->objectPath);
  REQUIRE(lib);
  auto fn = reinterpret_cast<int (*)()>(lib->symbol("gir_cache_probe"));
  REQUIRE(fn);
  CHECK(fn() == 7);
  o.optLevel = "-O2";  // other flags, another key
  auto c = compileSource(src, o);
  REQUIRE(c);
  CHECK(c->objectPath != a->objectPath);
}

TEST_CASE("guarded groups on disjoint unit domains are reached by a binary search on u, and still match", "[cpu][emit]") {
  Graph g = test::parseGirFileOrStop("tests/golden/gir/shufflenet_source.gir");  // a concat: one move per input's unit range
  auto src = emitCpu(g);
  REQUIRE(src);
  CHECK(countOf(src->code, "groups on disjoint unit domains: a binary search on u") == 1);
  CHECK(countOf(src->code, "if (u < ") >= 3);
  auto k = CompiledKernel::build(g, test::cpuTestOptions());
  REQUIRE(k);
  auto check = checkAgainstInterpreter(g, *k, 5);
  REQUIRE(check);
  CHECK(check->close);
}

TEST_CASE("streaming stores: a large write-once output goes out a 64-byte line at a time, same values, same bytes", "[cpu][emit][stream]") {
  // y (1 MiB) is written once and read by nobody: with a cache threshold below the graph's 2 MiB of
  // device buffers, its lines go out with streaming stores (docs/cpu.md, "Streaming stores").
  Graph g = test::parseGirOrStop(R"(gir @streamed target=cpu-host units=64 block=2
level dram device
level local unit capacity=32768
%x = buffer dram f32[64,4096] input
%y = buffer dram f32[64,4096] output
%r = buffer local f32[262144]
%x_u = slice %x offset(4096*u) shape[4096] strides[1]
%r_u = slice %r offset(4096*u) shape[4096] strides[1]
%y_u = slice %y offset(4096*u) shape[4096] strides[1]
move %x_u -> %r_u
ew.exp %r_u -> %y_u
)");
  auto options = test::cpuTestOptions();
  options.emit.streamAboveCacheBytes = 1;
  auto k = CompiledKernel::build(g, options);
  INFO((k ? "" : k.error().str()));
  REQUIRE(k);
  const std::string& code = k->source().code;
  CHECK(countOf(code, "for (int64_t step0 = 0; step0 < 4096; step0 += 16) {") == 1);
  CHECK(countOf(code, "alignas(64) float nt1[16];") == 1);
  CHECK(countOf(code, "const int64_t i0 = step0 + lane0;") == 1);
  CHECK(countOf(code, "nt1[lane0] = v1;") == 1);
  CHECK(countOf(code, "girStreamLine(out1 + step0, nt1);  // streaming stores") == 1);
  CHECK(countOf(code, "girStreamFence();  //") == 1);
  for (uint64_t seed : {1, 2}) {
    auto check = checkAgainstInterpreter(g, *k, seed);
    REQUIRE(check);
    INFO(check->firstMismatch);
    CHECK(check->close);
  }
  auto counting = test::cpuTestOptions(true);
  counting.emit.streamAboveCacheBytes = 1;
  auto ki = CompiledKernel::build(g, counting);
  REQUIRE(ki);
  auto bytes = ki->countBytes(randomInputs(g, 1));
  REQUIRE(bytes);
  CHECK(*bytes == 2 * 4 * 64 * 4096);  // x read once, y written once: streaming changes no count
  // Above the threshold only: with the graph's 2 MiB inside it, plain stores.
  auto plain = emitCpu(g, CpuEmitOptions{false, int64_t{4} << 20});
  REQUIRE(plain);
  CHECK(countOf(plain->code, "girStreamLine(out") == 0);
}

namespace {

// Two passes per row of 4,096 over 64 units: a sum of squares, then the row scaled by it (RMSNorm's shape).
Graph twoPassRows() {
  return test::parseGirOrStop(R"(gir @two_pass target=cpu-host units=64 block=1
level dram device
level local unit capacity=65536
%x = buffer dram f32[262144] input
%r = buffer local f32[262144]
%q = buffer local f32[262144]
%s = buffer local f32[64]
%b = buffer local f32[262144]
%y = buffer dram f32[262144] output
%x_u = slice %x offset(4096*u) shape[1,4096] strides[4096,1]
%r_u = slice %r offset(4096*u) shape[1,4096] strides[4096,1]
%q_u = slice %q offset(4096*u) shape[1,4096] strides[4096,1]
%s_u = slice %s offset(u) shape[1,1] strides[1,1]
%b_u = slice %b offset(4096*u) shape[1,4096] strides[4096,1]
%y_u = slice %y offset(4096*u) shape[1,4096] strides[4096,1]
move %x_u -> %r_u
ew.mul %r_u, %r_u -> %q_u
reduce.sum axes[1] %q_u -> %s_u
broadcast axes[1] %s_u -> %b_u
ew.mul %r_u, %b_u -> %y_u
)");
}

}  // namespace

TEST_CASE("a unit's long rows are prefetched for the unit after next by its last pass, where that pass goes by lines",
          "[cpu][emit][prefetch]") {
  // Two passes per row of 4,096: a sum of squares, then the row scaled by it (RMSNorm's shape). With y
  // streamed, the scaling pass goes by 64-byte lines and prefetches x's row of unit u + 2 at each one;
  // the sum's pass prefetches nothing (docs/cpu.md, "Prefetching the next unit").
  Graph g = twoPassRows();
  auto options = test::cpuTestOptions();
  options.emit.streamAboveCacheBytes = 1;
  auto k = CompiledKernel::build(g, options);
  INFO((k ? "" : k.error().str()));
  REQUIRE(k);
  const std::string& code = k->source().code;
  CHECK(countOf(code, "__builtin_prefetch(x + (4096*u) + 8192 + step0, 0, 2);  // unit u + 2's line, into L2") == 1);
  CHECK(countOf(code, "__builtin_prefetch(") == 3);  // that one and the prelude's girPrefetch
  CHECK(code.find("__builtin_prefetch(x + (4096*u)") > code.find("girLaneSum("));  // after the sum's pass
  auto check = checkAgainstInterpreter(g, *k, 3);
  REQUIRE(check);
  CHECK(check->close);
  // With plain stores the scaling pass is one `omp simd` loop, no place to prefetch from: the sum's pass
  // prefetches the next unit's row at each lane block instead.
  auto plain = emitCpu(g, CpuEmitOptions{false, int64_t{64} << 20});
  REQUIRE(plain);
  CHECK(countOf(plain->code, "__builtin_prefetch(x + (4096*u) + 4096 + block0 + line, 0, 2);  // the next unit's lines, into L2") == 1);
  CHECK(countOf(plain->code, "__builtin_prefetch(") == 3);
}

TEST_CASE("a single-pass row sum reads its row's two halves side by side, each at least 4 KB, where the machine asks for two segments",
          "[cpu][emit][segments]") {
  // Row sums (ReduceSum over the last axis): the stage's only pass reads each row once, nothing is
  // prefetched for it, so with `row_sum_segments` 2 its two partials walk the row's halves as two
  // streams (docs/cpu.md, "Two segments"). Rows of 2,100 leave a tail of 52 after the 2,048 the blocks
  // cover; rows of 1,024 have halves under 4 KB and stay one stream. With 1 every row is one stream.
  auto rowSums = [](int64_t row) {
    std::string n = std::to_string(row), all = std::to_string(16 * row);
    return test::parseGirOrStop("gir @row_sums target=cpu-host units=16 block=1\nlevel dram device\nlevel local unit capacity=65536\n"
                                "%x = buffer dram f32[" + all + "] input\n%r = buffer local f32[" + all + "]\n"
                                "%s = buffer local f32[16]\n%y = buffer dram f32[16] output\n"
                                "%x_u = slice %x offset(" + n + "*u) shape[1," + n + "] strides[" + n + ",1]\n"
                                "%r_u = slice %r offset(" + n + "*u) shape[1," + n + "] strides[" + n + ",1]\n"
                                "%s_u = slice %s offset(u) shape[1,1] strides[1,1]\n"
                                "%y_u = slice %y offset(u) shape[1,1] strides[1,1]\n"
                                "move %x_u -> %r_u\nreduce.sum axes[1] %r_u -> %s_u\nmove %s_u -> %y_u\n");
  };
  struct Case {
    int64_t row, segments, half;  // half 0: one stream
  };
  for (auto [row, segments, half] : {Case{4096, 2, 2048}, Case{2100, 2, 1024}, Case{1024, 2, 0}, Case{4096, 1, 0}}) {
    CAPTURE(row, segments);
    Graph g = rowSums(row);
    auto options = test::cpuTestOptions();
    options.emit.rowSumSegments = static_cast<int>(segments);
    auto k = CompiledKernel::build(g, options);
    INFO((k ? "" : k.error().str()));
    REQUIRE(k);
    const std::string& code = k->source().code;
    // The unit's row is the one loop left ([1, n] over a unit: its index is i0).
    if (half > 0) {
      CHECK(countOf(code, "\"Two segments\"") == 1);
      CHECK(countOf(code, "const int64_t i0 = step0 + " + std::to_string(half) + " + lane0;") == 1);
      CHECK(countOf(code, "block0 < " + std::to_string(half) + "; block0 += 64)") == 1);
    } else {
      CHECK(countOf(code, "\"Two segments\"") == 0);
      CHECK(countOf(code, "const int64_t i0 = step0 + 16 + lane0;") == 1);
    }
    auto check = checkAgainstInterpreter(g, *k, 3);
    REQUIRE(check);
    CHECK(check->close);
    auto countingOptions = test::cpuTestOptions(true);
    countingOptions.emit.rowSumSegments = static_cast<int>(segments);
    auto counting = CompiledKernel::build(g, countingOptions);
    REQUIRE(counting);
    auto bytes = counting->countBytes(randomInputs(g, 5));
    REQUIRE(bytes);
    CHECK(*bytes == (16 * row + 16) * 4);  // each row read once, each sum written once
  }
}

TEST_CASE("a sum whose row more passes read stays one stream", "[cpu][emit][segments]") {
  // RMSNorm's shape: the sum of squares, then the scaling pass over the same row (L2 by then). The
  // next unit's row is prefetched instead (the test above on prefetching).
  Graph g = twoPassRows();
  CpuEmitOptions options{false, int64_t{64} << 20};
  options.rowSumSegments = 2;
  auto code = emitCpu(g, options);
  REQUIRE(code);
  CHECK(countOf(code->code, "Two segments") == 0);
  CHECK(countOf(code->code, "girLaneSum(") >= 1);
}

TEST_CASE("paired iterations: a transcendental body over a row of 56 runs two vectors side by side, same values, same bytes",
          "[cpu][emit][paired]") {
  // SiLU over rows of 56, depthwise + SiLU's output row: 56 is no multiple of two vectors on any x86
  // width, so the tail loop runs too (docs/cpu.md, "Paired iterations").
  auto silu = [](int64_t row) {
    std::string n = std::to_string(row), all = std::to_string(8 * row);
    return test::parseGirOrStop("gir @silu target=cpu-host units=8 block=2\nlevel dram device\nlevel local unit capacity=32768\n"
                                "%x = buffer dram f32[" + all + "] input\n%r = buffer local f32[" + all + "]\n"
                                "%s = buffer local f32[" + all + "]\n%y = buffer dram f32[" + all + "] output\n"
                                "%x_u = slice %x offset(" + n + "*u) shape[" + n + "] strides[1]\n"
                                "%r_u = slice %r offset(" + n + "*u) shape[" + n + "] strides[1]\n"
                                "%s_u = slice %s offset(" + n + "*u) shape[" + n + "] strides[1]\n"
                                "%y_u = slice %y offset(" + n + "*u) shape[" + n + "] strides[1]\n"
                                "move %x_u -> %r_u\new.sigmoid %r_u -> %s_u\new.mul %r_u, %s_u -> %y_u\n");
  };
  Graph g = silu(56);
  auto k = CompiledKernel::build(g, test::cpuTestOptions());
  INFO((k ? "" : k.error().str()));
  REQUIRE(k);
  const std::string& code = k->source().code;
  CHECK(countOf(code, "for (int64_t pair0 = 0; pair0 + 2 * girLanes <= 56; pair0 += 2 * girLanes) {") == 1);
  CHECK(countOf(code, "const int64_t i0 = pair0 + lane0, i0_1 = i0 + girLanes;") == 1);
  CHECK(countOf(code, "const float v0_1 = in0_0[i0_1];") == 1);
  CHECK(countOf(code, "const float v1_1 = girSigmoid(v0_1);") == 1);
  CHECK(countOf(code, "const float v2_1 = (v0_1 * v1_1);") == 1);
  CHECK(countOf(code, "out2[i0_1] = v2_1;") == 1);
  CHECK(countOf(code, "for (int64_t i0 = 56 / (2 * girLanes) * (2 * girLanes); i0 < 56; ++i0) {") == 1);
  CHECK(countOf(code, "// node 0: ") == 1);
  for (uint64_t seed : {1, 2}) {
    auto check = checkAgainstInterpreter(g, *k, seed);
    REQUIRE(check);
    INFO(check->firstMismatch);
    CHECK(check->close);
  }
  auto ki = CompiledKernel::build(g, test::cpuTestOptions(true));
  REQUIRE(ki);
  auto bytes = ki->countBytes(randomInputs(g, 1));
  REQUIRE(bytes);
  CHECK(*bytes == 2 * 4 * 8 * 56);  // x read once, y written once, by whichever copy of the body
  // A row shorter than two 512-bit vectors keeps the plain loop.
  auto shortRow = emitCpu(silu(24));
  REQUIRE(shortRow);
  CHECK(countOf(shortRow->code, "pair0") == 0);
  CHECK(countOf(shortRow->code, "#pragma omp simd\n") >= 1);
}
