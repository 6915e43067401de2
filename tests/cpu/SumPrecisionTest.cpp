// Which sums accumulate in float lanes (codegen/schedule/SumPrecision.h): those whose every term is
// provably >= 0, found through the writers of the reduce's input buffer. Anything of unknown sign
// (a graph input, a difference, an odd power) keeps double lanes.
#include <catch2/catch.hpp>

#include <string>

#include "codegen/schedule/SumPrecision.h"
#include "core/gir/Parser.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;

namespace {

// One unit: t = <producer>(x[, y]); s = reduce.<kind> t. The reduce is the last node.
bool floatSum(const std::string& producer, const std::string& reduceKind = "sum") {
  std::string text = R"(gir @sign target=cpu-host units=1 block=1
level dram device
level local unit capacity=32768
%x = buffer dram f32[16] input
%y = buffer dram f32[16] input
%t = buffer local f32[16]
%u = buffer local f32[16]
%s = buffer dram f32[1] output
%xs = slice %x offset(0) shape[16] strides[1]
%ys = slice %y offset(0) shape[16] strides[1]
%ts = slice %t offset(0) shape[16] strides[1]
%us = slice %u offset(0) shape[16] strides[1]
%ss = slice %s offset(0) shape[1] strides[1]
)" + producer + "\nreduce." + reduceKind + " axes[0] %us -> %ss\n";
  auto g = parseGirText(text);
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  return codegen::sumOfNonNegatives(*g, NodeId(static_cast<uint32_t>(g->nodes().size() - 1)));
}

}  // namespace

TEST_CASE("a sum of terms that cannot be negative accumulates in float, any other in double", "[cpu][emit][precision]") {
  CHECK(floatSum("ew.exp %xs -> %us"));                                      // softmax's denominator
  CHECK(floatSum("ew.mul %xs, %xs -> %us"));                                 // a square
  CHECK(floatSum("ew.pow %xs, 2.0 -> %us"));                                 // an even power
  CHECK(floatSum("ew.mul %xs, %xs -> %ts\new.div %ts, 1024.0 -> %us"));     // a variance's terms
  CHECK(floatSum("ew.sigmoid %xs -> %ts\nmove %ts -> %us"));                 // through a move
  CHECK_FALSE(floatSum("move %xs -> %us"));                                  // a graph input: unknown sign
  CHECK_FALSE(floatSum("ew.mul %xs, %ys -> %us"));                           // a product of two inputs
  CHECK_FALSE(floatSum("ew.pow %xs, 3.0 -> %us"));                           // an odd power
  CHECK_FALSE(floatSum("ew.exp %xs -> %ts\new.sub %ts, 1.0 -> %us"));        // exp - 1 can be negative
  CHECK_FALSE(floatSum("ew.mul %xs, %xs -> %ts\new.mul %ts, -1.0 -> %us"));  // a negative immediate
  CHECK_FALSE(floatSum("ew.exp %xs -> %us", "max"));                         // max is exact in float anyway
  // Two writers of one buffer: both must make nonnegative values.
  CHECK_FALSE(floatSum("ew.exp %xs -> %us\nmove %ys -> %us"));
}
