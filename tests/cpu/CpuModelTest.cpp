// The CPU cost model (codegen/cpu/CpuModel.h): transcendentals at the rate the calibration measures for
// the function the emitter calls, else at 24 flops each at peak_gflops; device traffic at the warm-copy
// or the STREAM rate.
#include <catch2/catch.hpp>

#include "codegen/cpu/CpuEmitter.h"
#include "codegen/cpu/CpuModel.h"
#include "core/gir/Parser.h"
#include "core/hw/HardwareDesc.h"
#include "tests/cpu/CpuTestSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;

TEST_CASE("the model prices transcendentals at the calibrated rate, else at 24 flops each", "[cpu][model]") {
  // GELU's plan: one erf per element of a 64 x 768 graph.
  auto g = parseGirText(test::readText(test::sourcePath("tests/golden/cpu/gelu_fused.gir")), "gelu_fused.gir");
  REQUIRE(g);
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  auto uncalibrated = codegen::cpu::modelCpu(*g, *hw);
  REQUIRE(uncalibrated.kernels.size() == 1);
  const codegen::cpu::KernelModel& k = uncalibrated.kernels[0];
  REQUIRE(k.transcendentals > 0);
  CHECK(k.computeUs == Approx((24.0 * static_cast<double>(k.transcendentals) + static_cast<double>(k.flops)) / (hw->peakGflops * 1e3)));
  hw->transcendentalGelems = 2.0;
  auto calibrated = codegen::cpu::modelCpu(*g, *hw);
  const codegen::cpu::KernelModel& c = calibrated.kernels[0];
  CHECK(c.computeUs == Approx(static_cast<double>(k.transcendentals) / 2e3 + static_cast<double>(k.flops) / (hw->peakGflops * 1e3)));
  CHECK(c.memoryUs == Approx(k.memoryUs));  // the traffic is priced alike
}

TEST_CASE("each transcendental is priced at the rate of the function the emitted code calls for it", "[cpu][model]") {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  hw->transcendentalGelems = 8.0;  // exp, and any function without its own rate
  hw->transcendentalGelemsByFunction = {{"one_plus_erf", 2.0}, {"erf", 1.0}, {"exp_nonpositive", 4.0}};
  // GELU's erf goes into an add of 1: emitted as girOnePlusErf and priced at that function's rate, not erf's.
  // Softmax's exp of x - max(x) is emitted as girExpNonPositive. The names match the emitted calls.
  for (auto [file, function, call, rate] : {std::tuple{"tests/golden/cpu/gelu_fused.gir", "one_plus_erf", "girOnePlusErf(", 2.0},
                                            {"tests/golden/cpu/softmax_rows_band.gir", "exp_nonpositive", "girExpNonPositive(", 4.0}}) {
    INFO(file);
    Graph g = test::parseGirFileOrStop(file);
    auto m = codegen::cpu::modelCpu(g, *hw);
    auto source = codegen::cpu::emitCpu(g);
    REQUIRE(source);
    CHECK(source->code.find(call) != std::string::npos);
    double transcendentalUs = 0, flops = 0;
    for (const codegen::cpu::KernelModel& k : m.kernels) {
      REQUIRE(k.transcendentalsByFunction.size() == 1);
      CHECK(k.transcendentalsByFunction.begin()->first == function);
      CHECK(k.transcendentalsByFunction.begin()->second == k.transcendentals);
      transcendentalUs += static_cast<double>(k.transcendentals) / (rate * 1e3);
      flops += static_cast<double>(k.flops);
    }
    double computeUs = 0;
    for (const codegen::cpu::KernelModel& k : m.kernels) computeUs += k.computeUs;
    CHECK(computeUs == Approx(transcendentalUs + flops / (hw->peakGflops * 1e3)));
  }
  // A function without a rate of its own evaluates at the exp rate.
  std::string text = R"(gir @sigmoid units=4 block=1
level dram device
%x = buffer dram f32[4096] input
%y = buffer dram f32[4096] output
%x_u = slice %x offset(1024*u) shape[1024] strides[1]
%y_u = slice %y offset(1024*u) shape[1024] strides[1]
ew.sigmoid %x_u -> %y_u
)";
  auto sigmoid = codegen::cpu::modelCpu(test::parseGirOrStop(text), *hw).kernels.at(0);
  CHECK(sigmoid.transcendentalsByFunction == std::map<std::string, int64_t>{{"sigmoid", 4096}});
  CHECK(sigmoid.computeUs == Approx(4096 / 8e3));
}

namespace {

// ReLU over 1 M floats: 4 MiB read, 4 MiB written, an 8 MiB device footprint; the register value
// between the relu and the store moves nothing.
constexpr const char* kRelu4MiB = R"(gir @relu_4mib units=256 block=4
level dram device
level local unit capacity=32768
%x = buffer dram f32[1048576] input
%r = buffer local f32[1048576]
%y = buffer dram f32[1048576] output
%x_u = slice %x offset(4096*u) shape[4096] strides[1]
%r_u = slice %r offset(4096*u) shape[4096] strides[1]
%y_u = slice %y offset(4096*u) shape[4096] strides[1]
ew.relu %x_u -> %r_u
move %r_u -> %y_u
)";

// cpu-host with its device level copying at 10 GB/s, warm or cold: no warm-copy curve, no cold copy.
HardwareDesc hostCopyingAt10GBs() {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  for (MemoryLevelDesc& l : hw->levels)
    if (l.scope == Scope::Device) l.bandwidthGBs = 10;
  hw->warmCopy.clear();
  hw->coldCopyGBs = 0;
  return *hw;
}

}  // namespace

TEST_CASE("warm runs price device bytes at the warm-copy rate of the footprint, cold runs at the cold copy's", "[cpu][model]") {
  using codegen::cpu::CacheState;
  Graph g = test::parseGirOrStop(kRelu4MiB);
  HardwareDesc hw = hostCopyingAt10GBs();
  const double mib = 1 << 20;
  auto warm = codegen::cpu::modelCpu(g, hw);
  REQUIRE(warm.kernels.size() == 1);
  CHECK(warm.deviceFootprintBytes == 8 * mib);
  CHECK(warm.dramBytes == 8 * mib);
  CHECK(warm.kernels[0].memoryUs == Approx(8 * mib / 10e3));  // no curve: STREAM copy, warm or cold
  hw.warmCopy = {{2 << 20, 100, 50}, {8 << 20, 40, 30}, {32 << 20, 20, 25}};
  warm = codegen::cpu::modelCpu(g, hw);
  CHECK(warm.devicePlainGBs == Approx(40));
  CHECK(warm.kernels[0].memoryUs == Approx(8 * mib / 40e3));
  auto cold = codegen::cpu::modelCpu(g, hw, {CacheState::Cold, -1});
  CHECK(cold.devicePlainGBs == Approx(10));
  CHECK(cold.kernels[0].memoryUs == Approx(8 * mib / 10e3));
  // With streaming stores on (any footprint above 1 byte), y's 4 MiB go out at the streaming rate.
  auto streamed = codegen::cpu::modelCpu(g, hw, {CacheState::Warm, 1});
  CHECK(streamed.kernels[0].memoryUs == Approx(4 * mib / 40e3 + 4 * mib / 30e3));
  auto streamedCold = codegen::cpu::modelCpu(g, hw, {CacheState::Cold, 1});
  CHECK(streamedCold.kernels[0].memoryUs == Approx(4 * mib / 10e3 + 4 * mib / 25e3));
  // A calibrated cold copy (the copy right after the eviction --cold makes) replaces STREAM for cold runs
  // only; the streamed bytes keep the streaming rate.
  hw.coldCopyGBs = 16;
  CHECK(codegen::cpu::modelCpu(g, hw, {CacheState::Cold, -1}).kernels[0].memoryUs == Approx(8 * mib / 16e3));
  CHECK(codegen::cpu::modelCpu(g, hw, {CacheState::Cold, 1}).kernels[0].memoryUs == Approx(4 * mib / 16e3 + 4 * mib / 25e3));
  CHECK(codegen::cpu::modelCpu(g, hw).kernels[0].memoryUs == Approx(8 * mib / 40e3));
}

TEST_CASE("with a calibrated read rate, reads stream faster and writes take the rest of a copy's time", "[cpu][model]") {
  // The ReLU (4 MiB read, 4 MiB written) and a row sum of the same input (4 MiB read, 16 KiB written).
  Graph relu = test::parseGirOrStop(kRelu4MiB);
  Graph sum = test::parseGirOrStop(R"(gir @rowsum_4mib units=256 block=4
level dram device
level local unit capacity=32768
%x = buffer dram f32[1048576] input
%s = buffer local f32[4096]
%y = buffer dram f32[4096] output
%x_u = slice %x offset(4096*u) shape[16,256] strides[256,1]
%s_u = slice %s offset(16*u) shape[16] strides[1]
%y_u = slice %y offset(16*u) shape[16] strides[1]
reduce.sum axes[1] %x_u -> %s_u
move %s_u -> %y_u
)");
  HardwareDesc hw = hostCopyingAt10GBs();
  const double mib = 1 << 20, kib = 1 << 10;
  auto deviceUs = [&](const Graph& g, int64_t streamAbove = -1) { return codegen::cpu::modelCpu(g, hw, {codegen::cpu::CacheState::Warm, streamAbove}).kernels[0].deviceUs; };
  CHECK(deviceUs(sum) == Approx((4 * mib + 16 * kib) / 10e3));  // not measured: every byte at the copy's rate
  hw.readToCopyRatio = 1.25;
  // A read at 12.5 GB/s; a write at 1 / (2/10 - 1/12.5) = 8.33 GB/s, so that a copy still costs what it measured.
  CHECK(deviceUs(sum) == Approx(4 * mib / 12.5e3 + 16 * kib / (1e3 / (2.0 / 10 - 1.0 / 12.5))));
  CHECK(deviceUs(relu) == Approx(8 * mib / 10e3));
  CHECK(deviceUs(relu, 1) == Approx(8 * mib / 10e3));  // streamed, with the streaming copy at the same 10 GB/s
  // A ratio under 1 (a noisy calibration) is held at 1: a read is never slower than a copy's bytes.
  hw.readToCopyRatio = 0.9;
  CHECK(deviceUs(sum) == Approx((4 * mib + 16 * kib) / 10e3));
}

TEST_CASE("pow by an immediate 2 is a multiply and pow by 3 a transcendental", "[cpu][model]") {
  std::string text = kRelu4MiB;
  text.replace(text.find("ew.relu %x_u -> %r_u"), 20, "ew.pow %x_u, 2.0 -> %r_u");
  Graph square = test::parseGirOrStop(text);
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  CHECK(codegen::cpu::modelCpu(square, *hw).kernels[0].transcendentals == 0);
  CHECK(codegen::cpu::modelCpu(square, *hw).kernels[0].flops == 1 << 20);
  text.replace(text.find("2.0 -> %r_u"), 3, "3.0");
  Graph cube = test::parseGirOrStop(text);
  CHECK(codegen::cpu::modelCpu(cube, *hw).kernels[0].transcendentals == 1 << 20);
}

TEST_CASE("device and cache traffic run in part side by side, compute overlaps them almost wholly", "[cpu][model]") {
  // The ReLU with its value kept in a local array across a block sync (the move after it is another
  // stage, so the array is stored and read back): device bytes, cache bytes and flops, each in turn
  // made the slowest.
  std::string text = kRelu4MiB;
  text.replace(text.find("move %r_u -> %y_u"), 17, "sync block (%r_u) -> (%r_u)\nmove %r_u -> %y_u");
  Graph g = test::parseGirOrStop(text);
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  hw->warmCopy.clear();
  auto kernelOf = [&](double dramGBs, double localGBs, double gflops) {
    for (MemoryLevelDesc& l : hw->levels) {
      if (l.scope == Scope::Device) l.bandwidthGBs = dramGBs;
      if (l.scope == Scope::Unit) l.bandwidthGBs = localGBs;
    }
    hw->peakGflops = gflops;
    auto m = codegen::cpu::modelCpu(g, *hw);
    REQUIRE(m.kernels.size() == 1);
    return m.kernels[0];
  };
  double fixed = hw->launchCostUs + hw->syncCostUs[static_cast<int>(Scope::Device)];
  for (auto [dram, local, gflops] : {std::tuple{1.0, 1000.0, 1000.0}, {1000.0, 0.01, 1000.0}, {1000.0, 1000.0, 0.0001}}) {
    codegen::cpu::KernelModel k = kernelOf(dram, local, gflops);
    INFO("dram " << dram << " GB/s, local " << local << " GB/s, " << gflops << " GFLOP/s: device " << k.deviceUs << ", cache " << k.cacheUs
                 << ", compute " << k.computeUs << " us");
    REQUIRE(k.deviceUs > 0);
    REQUIRE(k.cacheUs > 0);
    REQUIRE(k.computeUs > 0);
    // The device traffic plus half the cache traffic, at least the cache traffic.
    CHECK(k.memoryUs == Approx(std::max(k.deviceUs + 0.5 * k.cacheUs, k.cacheUs)));
    // Compute overlaps memory almost wholly: the slower, plus 0.1 of the lesser.
    CHECK(k.modelledUs == Approx(fixed + std::max(k.memoryUs, k.computeUs) + 0.1 * std::min(k.memoryUs, k.computeUs)));
  }
  // The slow level is the one that shows: 8 MiB at 1 GB/s is 8,389 us whatever the rest costs.
  CHECK(kernelOf(1.0, 1000.0, 1000.0).modelledUs == Approx(fixed + 8.0 * (1 << 20) / 1e3).epsilon(0.01));
}

TEST_CASE("a warm run prices each buffer at its reuse footprint: what runs touch since its previous touch", "[cpu][model]") {
  // Three kernels in a chain over 4 MiB buffers, a 16 MiB graph. Kernel 1 reads t1, which kernel 0
  // wrote just before it: x, t1 and t2 (12 MiB) are touched from that write to this read. It writes
  // t2, last touched by kernel 2 in the run before: all 16 MiB lie in between.
  Graph g = test::parseGirOrStop(R"(gir @chain units=256 block=4
level dram device
%x = buffer dram f32[1048576] input
%t1 = buffer dram f32[1048576]
%t2 = buffer dram f32[1048576]
%y = buffer dram f32[1048576] output
%x_u = slice %x offset(4096*u) shape[4096] strides[1]
%t1_w = slice %t1 offset(4096*u) shape[4096] strides[1]
%t1_r = slice %t1 offset(4096*u) shape[4096] strides[1]
%t2_w = slice %t2 offset(4096*u) shape[4096] strides[1]
%t2_r = slice %t2 offset(4096*u) shape[4096] strides[1]
%y_u = slice %y offset(4096*u) shape[4096] strides[1]
ew.relu %x_u -> %t1_w
sync device (%t1_w) -> (%t1_r)
ew.relu %t1_r -> %t2_w
sync device (%t2_w) -> (%t2_r)
ew.relu %t2_r -> %y_u
)");
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  hw->warmCopy = {{2 << 20, 100, 50}, {8 << 20, 40, 30}, {32 << 20, 20, 25}};
  const int64_t mib = 1 << 20;
  auto warm = codegen::cpu::modelCpu(g, *hw);
  REQUIRE(warm.kernels.size() == 3);
  CHECK(warm.deviceFootprintBytes == 16 * mib);
  double at12 = hw->warmCopyGBs(12 * mib, false), at16 = hw->warmCopyGBs(16 * mib, false);
  REQUIRE(at12 > at16);
  CHECK(warm.devicePlainGBs == Approx(at16));  // the graph's figure stays the whole footprint's
  // Kernel 0: x (last touched by itself a run before: 16 MiB) and t1 (by kernel 1: 16 MiB).
  CHECK(warm.kernels[0].deviceUs == Approx(8.0 * mib / (at16 * 1e3)));
  CHECK(warm.kernels[1].deviceUs == Approx(4.0 * mib / (at12 * 1e3) + 4.0 * mib / (at16 * 1e3)));
  CHECK(warm.kernels[2].deviceUs == Approx(4.0 * mib / (at12 * 1e3) + 4.0 * mib / (at16 * 1e3)));
  // Cold runs have no reuse: every byte at the cold copy's rate.
  hw->coldCopyGBs = 16;
  auto cold = codegen::cpu::modelCpu(g, *hw, {codegen::cpu::CacheState::Cold, -1});
  CHECK(cold.kernels[1].deviceUs == Approx(8.0 * mib / 16e3));
}
