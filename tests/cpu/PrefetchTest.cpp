// Software prefetch of a later block's device reads (codegen/cpu/Prefetch.h, docs/cpu.md "Prefetch"):
// units that read a few short runs prefetch the block two visits on, guarded by each read's domain;
// units that read long rows, and reads of small buffers, get none; either way the kernel computes what
// the interpreter does.
#include <catch2/catch.hpp>

#include "tests/cpu/CpuTestSupport.h"

using namespace gir;

namespace {

// 64 planes of 8 rows of `row` floats; unit u = row * 64 + plane (rows outermost, as the search numbers
// a convolution's units), in blocks of 2. Row 0's units and the others load through moves on their own
// domains, as a convolution's edge band does; %w is a small buffer every unit reads whole.
std::string rowsGraph(int64_t row) {
  std::string r = std::to_string(row), plane = std::to_string(8 * row), n = std::to_string(512 * row);
  return "gir @rows target=cpu-host units=512 block=2\n"
         "level dram device\nlevel tile block capacity=1048576\nlevel local unit capacity=65536\n"
         "%x = buffer dram f32[" + n + "] input\n%w = buffer dram f32[" + r + "] input\n%y = buffer dram f32[" + n + "] output\n"
         "%r = buffer local f32[" + n + "]\n%s = buffer local f32[" + n + "]\n"
         "%x_u = slice %x offset(" + plane + "*(u%64)+" + r + "*(u/64)) shape[" + r + "] strides[1]\n"
         "%y_u = slice %y offset(" + plane + "*(u%64)+" + r + "*(u/64)) shape[" + r + "] strides[1]\n"
         "%w_all = slice %w offset(0) shape[" + r + "] strides[1]\n"
         "%r_u = slice %r offset(" + r + "*u) shape[" + r + "] strides[1]\n%s_u = slice %s offset(" + r + "*u) shape[" + r + "] strides[1]\n"
         "move %x_u -> %r_u domain[0,64)\nmove %x_u -> %r_u domain[64,512)\n"
         "ew.mul %r_u, %w_all -> %s_u\nmove %s_u -> %y_u\n";
}

}  // namespace

TEST_CASE("prefetch: short reads prefetch the block two visits on, under each read's domain", "[cpu][emit][prefetch]") {
  Graph g = test::parseGirOrStop(rowsGraph(64));
  std::string code = test::requireKernelMatches(g);
  // Blocks are visited plane pair by plane pair (8 rows, 32 blocks a row); the prefetch takes the
  // block of visit + 2 in that order, and every unit of it.
  CHECK(code.find("if (visit + 2 < 256) {") != std::string::npos);
  CHECK(code.find("for (int64_t u = (((visit + 2) % 8) * 32 + (visit + 2) / 8) * 2, u1 = std::min<int64_t>(u + 2, 512); u < u1; ++u) {") !=
        std::string::npos);
  CHECK(code.find("if (u >= 0 && u < 64) girPrefetch(x + (64*(u/64) + 512*(u%64)), 64);") != std::string::npos);
  CHECK(code.find("if (u >= 64 && u < 512) girPrefetch(x + (64*(u/64) + 512*(u%64)), 64);") != std::string::npos);
  CHECK(code.find("girPrefetch(w") == std::string::npos);  // 256 bytes: cached from unit to unit
}

TEST_CASE("prefetch: units reading long rows leave it to the hardware prefetcher", "[cpu][emit][prefetch]") {
  Graph g = test::parseGirOrStop(rowsGraph(2048));  // 8 KB a unit
  std::string code = test::requireKernelMatches(g);
  CHECK(code.find("girPrefetch(x") == std::string::npos);
  CHECK(code.find("if (visit + 2") == std::string::npos);
}
