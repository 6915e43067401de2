// Stride-2 reads of a unit's own array through its even and odd phases (codegen/cpu/PhaseSplit.h,
// docs/cpu.md "Stride-2 reads"): a stride-2 three-tap row filter over a window each unit copies reads the
// window's phases at unit stride; odd row strides and short runs keep their strided loads; every
// kernel computes what the interpreter does and its instrumented build moves the modelled DRAM bytes.
#include <catch2/catch.hpp>

#include "tests/cpu/CpuTestSupport.h"

using namespace gir;

namespace {

// 16 units; unit u builds its window %win of `rows` rows of `width` floats, a zero in column 0 (node
// 0) and a row of %x in the rest (node 1; the zero keeps the window an array of its own, not %x itself),
// then writes y[r][i] = win[r][2i] * win[r][2i+1] + win[r][2i+2] for i < `outputs` (node 2 the product,
// node 3 the sum, which fuse into one loop nest over [rows, outputs]).
std::string tapsGraph(int64_t rows, int64_t width, int64_t outputs) {
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
         "ew.copy 0.0 -> %pad\nmove %x_u -> %data\new.mul %e0, %o -> %t_u\new.add %t_u, %e1 -> %y_u\n";
}

bool has(const std::string& code, const std::string& text) { return code.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("phase split: stride-2 taps over two rows read the window's phases at unit stride", "[cpu][emit][phase-split]") {
  Graph g = test::parseGirOrStop(tapsGraph(2, 34, 16));
  std::string code = test::requireKernelMatches(g, {1, 2, 3});
  CHECK(has(code, "alignas(64) float win_phases[2][34];"));
  CHECK(has(code, "girDeinterleave(win, win_phases[0], win_phases[1], 68);"));
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
  CHECK(has(code, "girDeinterleave(win, win_phases[0], win_phases[1], 33);"));
  CHECK(has(code, "in3_1[i0]"));
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
