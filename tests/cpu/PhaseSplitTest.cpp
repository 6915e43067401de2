// Stride-2 reads of a unit's own array through its even and odd phases (codegen/cpu/PhaseSplit.h,
// docs/cpu.md "Stride-2 reads"): a stride-2 three-tap row filter over a window each unit copies reads the
// window's phases at unit stride; a window built by a zero fill and a move exists only as its phases,
// the move splitting each input row into them; a window a computation writes is split once complete;
// odd row strides and short runs keep their strided loads; every kernel computes what the interpreter
// does and its instrumented build moves the modelled DRAM bytes.
#include <catch2/catch.hpp>

#include "codegen/cpu/CpuCheck.h"
#include "codegen/cpu/PlanCandidates.h"
#include "core/compute/GraphBuilder.h"
#include "core/compute/Preprocess.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;

namespace {

// 16 units; unit u builds its window %win of `rows` rows of `width` floats, a zero in column 0 (node
// 0) and a row of %x in the rest (node 1, `data`: "move" or an elementwise op such as "ew.neg"; the
// zero keeps the window an array of its own, not %x itself),
// then writes y[r][i] = win[r][2i] * win[r][2i+1] + win[r][2i+2] for i < `outputs` (node 2 the product,
// node 3 the sum, which fuse into one loop nest over [rows, outputs]).
std::string tapsGraph(int64_t rows, int64_t width, int64_t outputs, const std::string& data = "move") {
  auto s = [](int64_t v) { return std::to_string(v); };
  std::string at = s(rows * width) + "*u", inAt = s(rows * (width - 1)) + "*u", outAt = s(rows * outputs) + "*u";
  auto shape = [&](int64_t cols, int64_t rowStride, int64_t step) {
    return " shape[" + s(rows) + "," + s(cols) + "] strides[" + s(rowStride) + "," + s(step) + "]\n";
  };
  return "gir @taps target=cpu-host units=16 block=1\n"
         "level dram device\nlevel tile block capacity=1048576\nlevel local unit capacity=65536\n"
         "%x = buffer dram f32[" + s(16 * rows * (width - 1)) + "] input\n%y = buffer dram f32[" + s(16 * rows * outputs) + "] output\n"
         "%win = buffer local f32[" + s(16 * rows * width) + "]\n%t = buffer local f32[" + s(16 * rows * outputs) + "]\n"
         "%x_u = slice %x offset(" + inAt + ")" + shape(width - 1, width - 1, 1) +
         "%pad = slice %win offset(" + at + ")" + shape(1, width, 1) + "%data = slice %win offset(" + at + "+1)" + shape(width - 1, width, 1) +
         "%e0 = slice %win offset(" + at + ")" + shape(outputs, width, 2) + "%o = slice %win offset(" + at + "+1)" + shape(outputs, width, 2) +
         "%e1 = slice %win offset(" + at + "+2)" + shape(outputs, width, 2) + "%t_u = slice %t offset(" + outAt + ")" + shape(outputs, outputs, 1) +
         "%y_u = slice %y offset(" + outAt + ")" + shape(outputs, outputs, 1) +
         "ew.copy 0.0 -> %pad\n" + data + " %x_u -> %data\new.mul %e0, %o -> %t_u\new.add %t_u, %e1 -> %y_u\n";
}

bool has(const std::string& code, const std::string& text) { return code.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("phase split: stride-2 taps over two rows read the window's phases at unit stride", "[cpu][emit][phase-split]") {
  Graph g = test::parseGirOrStop(tapsGraph(2, 34, 16));
  std::string code = test::requireKernelMatches(g, {1, 2, 3});
  CHECK(has(code, "alignas(64) float win_phases[2][34];"));
  // The window is never whole: the zero of column 0 (element 34r) goes to element 17r of the even phase,
  // and row r of %x (elements 34r + 1 + j) splits into the odd phase from 17r and the even from 17r + 1.
  CHECK(!has(code, "float win["));
  CHECK(has(code, "float* const out0 = win_phases[0];"));
  CHECK(has(code, "out0[i0*17] = v0;"));
  CHECK(has(code, "girDeinterleave(in1_0 + i0*33, win_phases[1] + i0*17, win_phases[0] + 1 + i0*17, 33);"));
  // Element 2i of row r is element 17r + i of the even phase; 2i + 1 of the odd; 2i + 2 is 17r + i + 1.
  CHECK(has(code, "const float* const in2_0 = win_phases[0];"));
  CHECK(has(code, "const float* const in2_1 = win_phases[1];"));
  CHECK(has(code, "const float* const in3_1 = win_phases[0] + 1;"));
  CHECK(has(code, "in2_0[i0*17 + i1]"));
  CHECK(has(code, "in3_1[i0*17 + i1]"));
  CHECK(!has(code, "[i0*34 + i1*2]"));
  test::requireCountsModelledBytes(g);
}

TEST_CASE("phase split: an odd-sized window splits into 17 even and 16 odd elements", "[cpu][emit][phase-split]") {
  Graph g = test::parseGirOrStop(tapsGraph(1, 33, 16));
  std::string code = test::requireKernelMatches(g, {1, 2, 3});
  CHECK(has(code, "alignas(64) float win_phases[2][17];"));
  CHECK(has(code, "girDeinterleave(in1_0, win_phases[1], win_phases[0] + 1, 32);"));
  CHECK(has(code, "in3_1[i0]"));
  test::requireCountsModelledBytes(g);
}

TEST_CASE("phase split: a window that a computation writes is split into its phases once complete", "[cpu][emit][phase-split]") {
  Graph g = test::parseGirOrStop(tapsGraph(2, 34, 16, "ew.neg"));
  std::string code = test::requireKernelMatches(g, {1, 2, 3});
  CHECK(has(code, "alignas(64) float win[68];"));
  CHECK(has(code, "girDeinterleave(win, win_phases[0], win_phases[1], 68);"));
  CHECK(has(code, "in2_0[i0*17 + i1]"));
  test::requireCountsModelledBytes(g);
}

TEST_CASE("phase split: an odd row stride, or a run shorter than a vector, keeps the strided loads", "[cpu][emit][phase-split]") {
  for (auto [width, outputs] : {std::pair<int64_t, int64_t>{35, 16}, {10, 4}}) {
    INFO("width " << width << ", outputs " << outputs);
    Graph g = test::parseGirOrStop(tapsGraph(2, width, outputs));
    std::string code = test::requireKernelMatches(g);
    CHECK(!has(code, "win_phases"));
    CHECK(has(code, "const float* const in2_0 = win;"));
    CHECK(has(code, "i1*2]"));
  }
}

TEST_CASE("phase split: a planned stride-2 depthwise convolution + SiLU builds its windows from the input rows", "[cpu][phase-split]") {
  // depthwise_silu_b32's subgraph (scenarios/scale) at 2x4x16x16: the GIR planner's kernel pads each
  // unit's window and reads it at stride 2; the window's rows are split straight from %x into its phases.
  compute::Graph m;
  m.name = "depthwise_silu";
  compute::GraphBuilder b(m);
  compute::TensorId x = test::addInput(m, "x", {2, 4, 16, 16});
  compute::ConvAttrs ca;
  ca.group = 4;
  ca.pads = {1, 1, 1, 1};
  ca.strides = {2, 2};
  compute::TensorId d = test::valueOrFail(b.conv(x, test::addInput(m, "w", {4, 1, 3, 3}), test::addInput(m, "b", {4}), ca));
  m.outputs = {test::valueOrFail(b.binary(ElementwiseOp::Mul, d, test::valueOrFail(b.unary(ElementwiseOp::Sigmoid, d))))};
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  auto pre = compute::preprocess(m, *hw);
  REQUIRE(pre);
  REQUIRE(pre->subgraphs.size() == 1);
  auto candidates = codegen::cpu::planCandidates(m, pre->subgraphs[0], *hw, {"gir"});
  auto lowered = std::find_if(candidates.begin(), candidates.end(), [](const auto& c) { return c.lowered.has_value(); });
  REQUIRE(lowered != candidates.end());
  const Graph& g = lowered->lowered->gir;
  std::string code = test::requireKernelMatches(g);
  CHECK(has(code, "_phases[2]["));
  CHECK(has(code, "girDeinterleave(in"));
  auto k = codegen::cpu::CompiledKernel::build(g, test::cpuTestOptions());
  REQUIRE(k);
  auto ref = codegen::cpu::referenceCase(m, pre->subgraphs[0], *lowered->lowered, 3);
  REQUIRE(ref);
  auto vsRef = codegen::cpu::checkAgainstReference(*ref, *k);
  REQUIRE(vsRef);
  INFO(vsRef->firstMismatch);
  CHECK(vsRef->close);
  test::requireCountsModelledBytes(g);
}
