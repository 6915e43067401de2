// The GPU mapping read off the emitted source (issue 7, acceptance 2): a block-scope exchange uses
// shared memory and exactly one barrier per block sync; a unit-scope exchange uses shuffles and no
// barrier; a device sync splits the kernel. Also the plan's placement decisions.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "codegen/gpu/GpuPlan.h"
#include "core/gir/Graph.h"
#include "core/gir/Parser.h"
#include "search/ModelPlanner.h"
#include "tests/gpu/GpuTestSupport.h"

using namespace gir;
using gir::test::countOf;

namespace {

size_t syncsOf(const Graph& g, Scope scope) {
  size_t n = 0;
  for (const auto& node : g.nodes())
    if (!node.erased && node.isSync() && node.syncScope() == scope) ++n;
  return n;
}

}  // namespace

TEST_CASE("a block-scope exchange goes through __shared__ with one __syncthreads per block sync", "[gpu][mapping]") {
  auto c = test::caseFromFile("tests/golden/gir/softmax_block.gir");
  REQUIRE(syncsOf(c.gir, Scope::Block) == 2);
  for (const char* target : {"nvidia-h100", "amd-mi100"}) {
    INFO(target);
    std::string src = test::programFor(c.gir, target).kernelSource;
    CHECK(countOf(src, "__syncthreads()") == 2);
    CHECK(countOf(src, "__shared__ float s_pmax_s[4]") == 1);
    CHECK(countOf(src, "__shared__ float s_psum_s[4]") == 1);
    CHECK(countOf(src, "__global__") == 1);
    CHECK(countOf(src, "__syncwarp") == 0);
  }
}

TEST_CASE("a unit-scope exchange uses warp shuffles and no barrier", "[gpu][mapping]") {
  // softmax after the greedy optimizer: both row reductions stay inside one warp.
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw);
  auto plans = gpu::modelPlans(test::sourcePath("scenarios/softmax.onnx"), *hw, {"gir"}, 7);
  INFO((plans ? "" : plans.error().str()));
  REQUIRE(plans);
  const Graph& g = plans->front().gir;
  std::string cuda = test::programFor(g, "nvidia-h100").kernelSource;
  CHECK(countOf(cuda, "__shfl_xor_sync(0xffffffffu, acc, o)") == 2);  // one butterfly per row reduction
  CHECK(countOf(cuda, "for (int o = 16; o > 0; o >>= 1)") == 2);
  CHECK(countOf(cuda, "__syncthreads") == 0);
  CHECK(countOf(cuda, "__syncwarp") == 0);
  CHECK(countOf(cuda, "__shared__") == 0);
  std::string hip = test::programFor(g, "amd-mi100").kernelSource;
  CHECK(countOf(hip, "__shfl_xor(acc, o)") == 2);
  CHECK(countOf(hip, "for (int o = 32; o > 0; o >>= 1)") == 2);  // 64-lane wavefront
  CHECK(countOf(hip, "__syncthreads") == 0);

  // An explicit `sync unit` over registers: the reversed read is pulled from the owner lanes by shuffles.
  auto m = test::caseFromFile("tests/gpu/data/mapping.gir");
  REQUIRE(syncsOf(m.gir, Scope::Unit) == 1);
  std::string src = test::programFor(m.gir, "nvidia-h100").kernelSource;
  CHECK(countOf(src, "registers: the exchange is done by shuffles, no barrier") == 1);
  CHECK(countOf(src, "gir_pull(r_p, ") == 1);
  CHECK(countOf(src, "__syncthreads") == 0);
  CHECK(countOf(src, "__syncwarp") == 0);
}

TEST_CASE("a column strip in registers is reduced lane by column, with no shuffle", "[gpu][mapping]") {
  // Both reductions (the strip's rows, the combiner's partials) keep the columns innermost: lane l
  // sums column l from its own slots. HIP's 64-lane wavefront does not divide the 32 columns, so it
  // keeps the general path (pulls and a butterfly), which the emulation test also runs.
  auto c = test::caseFromFile("tests/gpu/data/column_strip.gir");
  std::string cuda = test::programFor(c.gir, "nvidia-h100").kernelSource;
  CHECK(countOf(cuda, "__shfl_xor") == 0);  // no butterfly
  CHECK(countOf(cuda, "gir_pull(r_") == 0);  // no pull from another lane
  CHECK(countOf(cuda, "const float x = r_in0[0 + k * 1 + t];") == 1);
  CHECK(countOf(cuda, "const float x = r_parts[0 + k * 1 + t];") == 1);
  std::string hip = test::programFor(c.gir, "amd-mi100").kernelSource;
  CHECK(countOf(hip, "__shfl_xor(acc, o)") == 2);
}

TEST_CASE("a device sync splits the kernel: one __global__ function and one launch per kernel", "[gpu][mapping]") {
  for (const char* file : {"two_kernels", "figure6", "softmax_device", "shufflenet_dest"}) {
    INFO(file);
    auto c = test::caseFromFile(std::string("tests/golden/gir/") + file + ".gir");
    int kernels = kernelCount(c.gir);
    REQUIRE(kernels == static_cast<int>(syncsOf(c.gir, Scope::Device)) + 1);
    for (const char* target : {"nvidia-h100", "amd-mi100"}) {
      auto p = test::programFor(c.gir, target);
      CHECK(p.kernels == kernels);
      CHECK(countOf(p.kernelSource, "__global__ void") == static_cast<size_t>(kernels));
      CHECK(countOf(p.kernelSource, ", 0, stream>>>(") == static_cast<size_t>(kernels));
      CHECK(countOf(p.kernelSource, "__syncthreads") == 0);  // no block syncs in these graphs
    }
  }
  // The per-op plan of a model: one launch per op kernel, in order.
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw);
  auto plans = gpu::modelPlans(test::sourcePath("scenarios/layernorm.onnx"), *hw, {"eager", "gir"}, 7);
  REQUIRE(plans);
  for (const auto& c : *plans) {
    INFO(c.name);
    auto p = test::programFor(c.gir, "nvidia-h100");
    CHECK(p.kernels == kernelCount(c.gir));
    CHECK(countOf(p.kernelSource, ", 0, stream>>>(") == static_cast<size_t>(p.kernels));
    if (c.planner == "gir") CHECK(p.kernels == 1);
    if (c.planner == "eager") CHECK(p.kernels > 5);
  }
}

TEST_CASE("unit domains become guards and a block is units per block x lanes threads", "[gpu][mapping]") {
  auto c = test::caseFromFile("tests/golden/gir/shufflenet_dest.gir");
  std::string cuda = test::programFor(c.gir, "nvidia-h100").kernelSource;
  CHECK(countOf(cuda, "if (u < 116) {") == 5);  // the concat's first move and the split's four
  CHECK(countOf(cuda, "if (u >= 116 && u < 232) {") == 1);
  CHECK(countOf(cuda, "<<<58, 128, 0, stream>>>") == 3);  // 232 units / 4 per block; 4 x 32 threads
  CHECK(countOf(cuda, "__launch_bounds__(128)") == 3);
  auto hip = test::programFor(c.gir, "amd-mi100");
  CHECK(countOf(hip.kernelSource, "<<<58, 256, 0, stream>>>") == 3);  // 4 x 64 threads
  CHECK(countOf(hip.kernelSource, "#include <hip/hip_runtime.h>") == 1);
  // Affine offsets with u / k and u % k terms become index arithmetic.
  CHECK(countOf(cuda, "g_c[(784 * (u / 2) + 90944 * (u % 2)) + e]") == 1);
}

TEST_CASE("four or more guarded nodes on disjoint domains are dispatched by binary search on u", "[gpu][mapping]") {
  // shufflenet_source's split: four moves on [0,58), [58,116), [116,174), [174,232). Two comparisons
  // pick a unit's move instead of four guards each; the leaves keep their own guard. The emulation
  // test runs this graph.
  auto c = test::caseFromFile("tests/golden/gir/shufflenet_source.gir");
  std::string cuda = test::programFor(c.gir, "nvidia-h100").kernelSource;
  CHECK(countOf(cuda, "// 4 nodes on disjoint unit domains: dispatched by binary search on u") == 1);
  CHECK(countOf(cuda, "  if (u < 116) {\n  if (u < 58) {\n") == 1);
  CHECK(countOf(cuda, "if (u >= 174 && u < 232) {") == 1);
  // The concat's two moves are a run of two: plain guards.
  CHECK(countOf(cuda, "if (u >= 116 && u < 232) {") == 1);
}

TEST_CASE("the plan sinks loads into their consumer's kernel and moves what registers cannot hold to global memory", "[gpu][plan]") {
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw);
  auto t = gpu::gpuTargetByName("nvidia-h100");
  REQUIRE(t);
  auto plans = gpu::modelPlans(test::sourcePath("scenarios/softmax.onnx"), *hw, {"eager"}, 7);
  REQUIRE(plans);
  auto p = gpu::planGpu(plans->front().gir, *t);
  REQUIRE(p);
  // x is loaded again for the subtraction two kernels later: that load runs in the subtraction's kernel.
  for (size_t b = 0; b < p->buffers.size(); ++b) {
    INFO(p->graph.buffers()[b].name << ": " << p->buffers[b].spillReason);
    CHECK_FALSE(p->buffers[b].spilled);
  }

  auto across = test::caseFromFile("tests/gpu/data/reg_across.gir");
  auto q = gpu::planGpu(across.gir, *t);
  REQUIRE(q);
  auto r = q->graph.findBuffer("r");
  REQUIRE(r);
  CHECK(q->buffers[r->value].spilled);
  CHECK(q->buffers[r->value].placement == gpu::Placement::Global);
  CHECK(q->buffers[r->value].spillReason == "kernels 0 and 1 both touch it");
  auto s = q->graph.findBuffer("s");
  REQUIRE(s);
  CHECK(q->buffers[s->value].placement == gpu::Placement::Registers);
  CHECK(q->buffers[s->value].slots == 2);  // 40 elements over 32 lanes

  auto blockCase = test::caseFromFile("tests/golden/gir/softmax_block.gir");
  auto sb = gpu::planGpu(blockCase.gir, *t);
  REQUIRE(sb);
  auto pm = sb->graph.findBuffer("pmax_s");
  REQUIRE(pm);
  CHECK(sb->buffers[pm->value].placement == gpu::Placement::Shared);
  CHECK(sb->buffers[pm->value].blockScale == 4);
  CHECK(sb->buffers[pm->value].blockExtent == 4);
}

TEST_CASE("graphs the GPU cannot run are refused with the reason", "[gpu][plan]") {
  auto c = test::caseFromFile("tests/golden/gir/relu.gir");
  c.gir.unitsPerBlock = 64;  // 64 warps x 32 lanes = 2048 threads
  auto t = gpu::gpuTargetByName("nvidia-h100");
  REQUIRE(t);
  auto p = gpu::emitGpuProgram(c.gir, *t);
  REQUIRE_FALSE(p);
  CHECK(p.error().str().find("2048 threads per block; nvidia-h100 allows 1024") != std::string::npos);
  // A cycle is an error, not an abort: the plan verifies before it compacts (issue #17).
  auto text = test::readText(test::sourcePath("tests/data/gir-bad/cycle.gir"));
  auto cyclic = parseGirText(text, "cycle.gir");
  REQUIRE(cyclic);
  auto q = gpu::planGpu(*cyclic, *t);
  REQUIRE_FALSE(q);
  CHECK(q.error().str().find("cycle") != std::string::npos);
  auto bad = gpu::gpuTargetByName("cpu-host");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("known GPU targets: nvidia-h100, nvidia-a100, amd-mi100") != std::string::npos);
}

TEST_CASE("every plan of the row-wise scenarios keeps its register and shared buffers on chip", "[gpu][plan]") {
  // Nothing spills to global memory, so the emitted kernels touch global memory exactly where the
  // GIR-Graph touches dram: the traffic the cost model counts. Spills elsewhere are named below.
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw);
  std::vector<gpu::GpuCase> cases;
  for (const char* m : {"softmax", "layernorm", "rmsnorm", "gelu", "silu", "row_reduction", "bert_bias_residual_layernorm", "efficientnet"}) {
    auto plans = gpu::modelPlans(test::sourcePath(std::string("scenarios/") + m + ".onnx"), *hw, search::plannerNames(), 7);
    INFO(m << (plans ? "" : ": " + plans.error().str()));
    REQUIRE(plans);
    for (auto& c : *plans) cases.push_back(std::move(c));
  }
  cases.push_back(test::caseFromFile("tests/golden/gir/softmax_device.gir"));
  REQUIRE(cases.size() == 33);
  for (const char* target : {"nvidia-h100", "amd-mi100"}) {
    auto t = gpu::gpuTargetByName(target);
    REQUIRE(t);
    for (const auto& c : cases) {
      auto p = gpu::planGpu(c.gir, *t);
      INFO(target << " " << c.name);
      REQUIRE(p);
      std::vector<std::string> spilled;
      for (size_t b = 0; b < p->buffers.size(); ++b)
        if (p->buffers[b].spilled) spilled.push_back(p->graph.buffers()[b].name + ": " + p->buffers[b].spillReason);
      if (c.name == "softmax_device")  // keeps x's and exp's registers across its device syncs
        CHECK(spilled == std::vector<std::string>{"xr: kernels 0 and 1 both touch it", "e: kernels 1 and 2 both touch it"});
      else if (c.source == "efficientnet")  // the zero-padded depthwise input is written as an inner window
        CHECK(spilled == std::vector<std::string>{"k0_depthwise_padded: a node writes it through a non-contiguous slice"});
      else
        CHECK(spilled.empty());
    }
  }
}

namespace {

// A chain of `exps` elementwise exps over a unit's 1,024 register elements (32 iterations per lane
// loop), from x to y. With `transposed`, each exp reads its input as the transpose of the 32 x 32
// block its producer wrote, so no two nodes share a lane loop (codegen/schedule/LaneChains.h): each is its own loop.
Graph expChain(int exps, bool transposed) {
  std::string text = "gir @chain target=nvidia-h100 units=32 block=4\nlevel dram device\nlevel smem block capacity=232448\n"
                     "level reg unit capacity=32640\n%x = buffer dram f32[32768] input\n%y = buffer dram f32[32768] output\n";
  for (int i = 0; i <= exps; ++i) text += "%r" + std::to_string(i) + " = buffer reg f32[32768]\n";
  text += "%sx = slice %x offset(1024*u) shape[1024] strides[1]\n%sy = slice %y offset(1024*u) shape[1024] strides[1]\n";
  for (int i = 0; i <= exps; ++i) {
    std::string r = " = slice %r" + std::to_string(i) + " offset(1024*u) ", n = std::to_string(i);
    text += "%s" + n + r + "shape[1024] strides[1]\n";
    text += "%w" + n + r + "shape[32,32] strides[32,1]\n%t" + n + r + "shape[32,32] strides[1,32]\n";
  }
  text += "move %sx -> %s0\n";
  for (int i = 0; i < exps; ++i) {
    std::string from = std::to_string(i), to = std::to_string(i + 1);
    text += transposed ? "ew.exp %t" + from + " -> %w" + to + "\n" : "ew.exp %s" + from + " -> %s" + to + "\n";
  }
  text += "move %s" + std::to_string(exps) + " -> %sy\n";
  auto g = parseGirText(text);
  if (!g) throw std::runtime_error(g.error().str());
  return std::move(*g);
}

// `units` units of 1,024 elements, each loaded into registers by its own move (on a domain of one
// unit) and stored by one move: `units` + 1 loops of 32 iterations, none with a pull.
Graph loadsOnDisjointDomains(int units) {
  std::string n = std::to_string(units), size = std::to_string(units * 1024);
  std::string text = "gir @loads target=nvidia-h100 units=" + n + " block=4\nlevel dram device\nlevel smem block capacity=232448\n"
                     "level reg unit capacity=32640\n%x = buffer dram f32[" + size + "] input\n%y = buffer dram f32[" + size +
                     "] output\n%r = buffer reg f32[" + size + "]\n%sx = slice %x offset(1024*u) shape[1024] strides[1]\n"
                     "%sy = slice %y offset(1024*u) shape[1024] strides[1]\n%s = slice %r offset(1024*u) shape[1024] strides[1]\n";
  for (int u = 0; u < units; ++u) text += "move %sx -> %s domain[" + std::to_string(u) + "," + std::to_string(u + 1) + ")\n";
  text += "move %s -> %sy\n";
  auto g = parseGirText(text);
  if (!g) throw std::runtime_error(g.error().str());
  return std::move(*g);
}

}  // namespace

TEST_CASE("lane loops unroll up to the kernel's budget of unrolled code, a pull counting its shuffles", "[gpu][mapping]") {
  // 10 exps and 2 moves, each exp reading a transpose: 11 loops of 32 iterations (the store shares
  // the last exp's), and 10 pulls of 32 shuffles on each of 32 iterations: 10,592 units, unrolled.
  std::string small = test::programFor(expChain(10, true), "nvidia-h100").kernelSource;
  CHECK(countOf(small, "#pragma unroll\n") == 12);  // and the pull helper
  CHECK(countOf(small, "#pragma unroll 1\n") == 0);
  // 12 exps: 13 x 32 + 12 x 32 x 32 = 12,704 units, over the 12,288 of docs/gpu.md ("Unrolling").
  std::string big = test::programFor(expChain(12, true), "nvidia-h100").kernelSource;
  CHECK(countOf(big, "#pragma unroll 1\n") == 13);
  CHECK(countOf(big, "#pragma unroll\n") == 1);  // the shared pull helper, outside the kernel
  CHECK_THAT(big, Catch::Contains("12704 units of unrolled code (iterations and their pulls' shuffles), over the budget of 12288"));
  // 301 loops of plain loads and stores (9,632 iterations, as channel shuffle b32's moves): unrolled.
  std::string moves = test::programFor(loadsOnDisjointDomains(300), "nvidia-h100").kernelSource;
  CHECK(countOf(moves, "#pragma unroll 1\n") == 0);
  CHECK(countOf(moves, "#pragma unroll\n") == 302);
}

TEST_CASE("a chain of elementwise nodes on one lane loop is one loop, its intermediates values and not arrays", "[gpu][mapping]") {
  // x -> r0 -> exp ... -> r10 -> y: the load keeps its loop (all of a lane's loads issued before the
  // first is waited for), then one loop for the exps and the store; r1..r10 are read only inside it.
  std::string chained = test::programFor(expChain(10, false), "nvidia-h100").kernelSource;
  CHECK(countOf(chained, "#pragma unroll\n") == 3);  // the load's loop, the chain's and the pull helper
  CHECK(countOf(chained, "[32];") == 1);               // r0's register array, the load's destination
  CHECK(countOf(chained, "float r_") == 11);          // and r1..r10, each a local of the iteration
  CHECK_THAT(chained, Catch::Contains("const float r_r10 = expf(r_r9);"));
  // Each exp reading a transpose: no two exps share a loop, so r0..r9 stay arrays; r10, read by
  // the store in the last exp's loop, is a value.
  std::string transposed = test::programFor(expChain(10, true), "nvidia-h100").kernelSource;
  CHECK(countOf(transposed, "[32];") == 10);
  CHECK_THAT(transposed, Catch::Contains("const float r_r10 = expf(c0_0);"));
}

TEST_CASE("division by a constant is a multiplication by its reciprocal, by a value it stays a division", "[gpu][mapping]") {
  auto g = parseGirText(
      "gir @div target=nvidia-h100 units=4 block=4\nlevel dram device\nlevel reg unit capacity=32640\n"
      "%x = buffer dram f32[128] input\n%y = buffer dram f32[128] output\n%z = buffer dram f32[128] output\n"
      "%r = buffer reg f32[128]\n%q = buffer reg f32[128]\n%sx = slice %x offset(32*u) shape[32] strides[1]\n"
      "%sy = slice %y offset(32*u) shape[32] strides[1]\n%sz = slice %z offset(32*u) shape[32] strides[1]\n"
      "%sr = slice %r offset(32*u) shape[32] strides[1]\n%sq = slice %q offset(32*u) shape[32] strides[1]\n"
      "move %sx -> %sr\new.div %sr, 3.0 -> %sq\nmove %sq -> %sy\new.div %sq, %sr -> %sz\n");
  REQUIRE(g);
  std::string src = test::programFor(*g, "nvidia-h100").kernelSource;
  CHECK_THAT(src, Catch::Contains("* 0.333333343f)"));
  CHECK_THAT(src, !Catch::Contains("/ 3.0f"));
  CHECK_THAT(src, Catch::Contains("= (r_q / c2_1);"));  // q / r, in the chain of the load's readers: a division by a value
}
