// `gir run`: bad input exits 2 with a clear message; a GIR file and a model run, check and report
// the JSON the app reads; calibration writes a copy and never the bundled description.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "codegen/cpu/Calibration.h"
#include "tests/cli/CliSupport.h"

using namespace gir;

namespace {

std::string cacheArg() { return " --opt O1 --cache " + test::binaryPath("tests/cpu-kernel-cache"); }

nlohmann::json lastJson(const std::string& out) {
  size_t p = out.find('{');
  REQUIRE(p != std::string::npos);
  return nlohmann::json::parse(out.substr(p));
}

}  // namespace

TEST_CASE("gir run rejects bad input with exit 2 and a clear message", "[cpu][cli]") {
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"run", "usage: gir run"},
      {"run " + test::sourcePath("scenarios/no_such_model.onnx") + " --target cpu", "no_such_model.onnx"},
      {"run " + test::sourcePath("scenarios/softmax.onnx") + " --target tpu", "unknown target 'tpu' for gir run (expected cpu, nvidia-h100"},
      {"run " + test::sourcePath("scenarios/softmax.onnx") + " --planner fastest", "unknown planner 'fastest'"},
      {"run " + test::sourcePath("scenarios/softmax.onnx") + " --threads two", "--threads expects a non-negative integer"},
      {"run " + test::sourcePath("scenarios/softmax.onnx") + " --subgraph 9", "there is no subgraph 9"},
      {"run " + test::sourcePath("tests/data/onnx-bad/cycle.onnx") + " --target cpu", "cycle.onnx"},
      {"run " + test::sourcePath("tests/golden/gir/softmax_race.gir"), "not valid"},
      {"run " + test::sourcePath("tests/golden/gir/relu.gir") + " --planner gir", "--planner applies to models"},
      {"run " + test::sourcePath("tests/golden/gir/relu.gir") + " --stores always", "--stores expects auto or plain, got 'always'"},
      {"run " + test::sourcePath("scenarios/softmax.onnx") + " --calibrate --calibrate-out " + test::sourcePath("hardware/cpu-host.json"),
       "refusing to overwrite the bundled"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    int code = 0;
    std::string out = test::runGir(c.args + cacheArg(), code);
    INFO(out);
    CHECK(code == 2);
    CHECK(out.find("error: ") != std::string::npos);
    CHECK(out.find(c.expect) != std::string::npos);
  }
}

TEST_CASE("gir run on a GIR file measures and reports JSON", "[cpu][cli]") {
  int code = 0;
  std::string out = test::runGir("run " + test::sourcePath("tests/golden/gir/two_kernels.gir") + " --measure --json --threads 2" + cacheArg(), code);
  INFO(out);
  REQUIRE(code == 0);
  auto j = lastJson(out);
  CHECK(j["stream_copy_gbs"].get<double>() > 0);
  const auto& p = j["planners"]["file"];
  CHECK(p["measured_us"].get<double>() > 0);
  CHECK(p["modelled_us"].get<double>() > 0);
  CHECK(p["max_rel_error"].get<double>() <= 1e-4);
  REQUIRE(j["candidates"].size() == 1);
  CHECK(j["candidates"][0]["per_kernel"].size() == 2);
}

TEST_CASE("gir run on a model checks every lowerable planner against the reference", "[cpu][cli]") {
  int code = 0;
  std::string out = test::runGir("run " + test::sourcePath("scenarios/silu.onnx") + " --target cpu --json" + cacheArg(), code);
  INFO(out);
  REQUIRE(code == 0);
  auto j = lastJson(out);
  for (const char* p : {"gir", "eager", "xla", "tvm"}) {
    INFO(p);
    CHECK(j["planners"][p]["max_rel_error"].get<double>() <= 1e-4);
    CHECK(j["planners"][p]["modelled_us"].get<double>() > 0);
    CHECK(j["planners"][p]["measured_us"].is_null());  // no --measure
  }
  CHECK(j["planners"]["gir"]["modelled_us"].get<double>() < j["planners"]["eager"]["modelled_us"].get<double>());
  // SiLU's GIR, XLA and TVM plans are one fused kernel, eager's are two: the source hash says which
  // candidates are the same code (the benchmark counts them as one kernel).
  std::map<std::string, std::string> hashOf;
  for (const auto& c : j["candidates"])
    if (c["variant"] == "units/block=1") hashOf[c["planner"].get<std::string>()] = c["source_hash"].get<std::string>();
    else CHECK(c["skipped"].get<std::string>().rfind("the same GIR-Graph as units/block=1", 0) == 0);  // SiLU's blocks share nothing
  REQUIRE(hashOf.size() == 4);
  CHECK(hashOf["gir"].size() == 16);
  CHECK(hashOf["xla"] == hashOf["gir"]);
  CHECK(hashOf["tvm"] == hashOf["gir"]);
  CHECK(hashOf["eager"] != hashOf["gir"]);
  // Each kernel's modelled time splits into its device, cache and compute terms; the slowest bounds it.
  for (const auto& c : j["candidates"])
    for (const auto& k : c.value("per_kernel", nlohmann::json::array())) {
      double slowest = std::max({k["device_us"].get<double>(), k["cache_us"].get<double>(), k["compute_us"].get<double>()});
      CHECK(k["modelled_us"].get<double>() >= slowest);
      CHECK(k["bytes_per_level"]["dram"].get<int64_t>() == k["dram_bytes"].get<int64_t>());
    }
}

TEST_CASE("gir run prices with the calibration an earlier --calibrate left in its cache", "[cpu][cli]") {
  // A cache of its own, holding a calibrated description whose STREAM copy no machine has: the run must
  // say it uses that file and price with it; --hardware still wins; a broken file is an error naming it.
  std::string cache = test::binaryPath("tests/cpu-calibrated-cache");
  std::filesystem::create_directories(cache);
  std::string path = cache + "/cpu-host.calibrated.json";
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  for (MemoryLevelDesc& l : hw->levels)
    if (l.scope == Scope::Device) l.bandwidthGBs = 7.25;
  test::writeText(path, hardwareToJson(*hw) + "\n");
  std::string gir = "run " + test::sourcePath("tests/golden/gir/relu.gir") + " --target cpu --opt O1 --cache " + cache;
  int code = 0;
  std::string out = test::runGir(gir, code);
  INFO(out);
  CHECK(code == 0);
  CHECK(out.find("stream copy 7.2 GB/s, calibrated earlier: " + path) != std::string::npos);
  auto j = lastJson(test::runGir(gir + " --json", code));
  CHECK(j["stream_copy_gbs"] == 7.25);
  CHECK(j["hardware_source"] == "calibrated earlier: " + path);
  out = test::runGir(gir + " --hardware " + test::sourcePath("hardware/cpu-host.json"), code);
  CHECK(code == 0);
  CHECK(out.find("stream copy 20.0 GB/s, from ") != std::string::npos);
  test::writeText(path, "{\"name\": \n");
  out = test::runGir(gir, code);
  CHECK(code == 2);
  CHECK(out.find("error: " + path) != std::string::npos);
  CHECK(out.find("run --calibrate again, or delete it") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("calibration measures positive figures and writes them into a copy of cpu-host", "[cpu][calibrate]") {
  codegen::cpu::CalibrationOptions o;
  o.compile.cacheDir = test::binaryPath("tests/cpu-kernel-cache");
  o.dramArrayBytes = 8 << 20;  // small: the test checks the plumbing, not this machine's DRAM
  o.repeats = 3;
  o.threads = 2;
  auto c = codegen::cpu::calibrate(o);
  INFO((c ? c->str() : c.error().str()));
  REQUIRE(c);
  CHECK(c->threads == 2);
  for (double v : {c->streamCopyGBs, c->streamReadGBs, c->tileGBs, c->localGBs, c->launchUs, c->transcendentalGelems}) CHECK(v > 0);
  CHECK(c->barrierUs >= 0);
  auto base = loadHardwareByName("cpu-host");
  REQUIRE(base);
  HardwareDesc hw = codegen::cpu::applyCalibration(*base, *c);
  CHECK(hw.dramBandwidthGBs() == c->streamCopyGBs);
  CHECK(hw.level("tile")->bandwidthGBs == c->tileGBs);
  CHECK(hw.level("local")->bandwidthGBs == c->localGBs);
  CHECK(hw.launchCostUs == c->launchUs);
  CHECK(hw.transcendentalGelems == c->transcendentalGelems);
  // A rate for every function kernels call for a transcendental: each op's and the two special forms.
  std::set<std::string> functions;
  for (const auto& [function, rate] : c->transcendentalGelemsByFunction) {
    functions.insert(function);
    CHECK(rate > 0);
  }
  CHECK(functions == std::set<std::string>{"erf", "exp", "exp_nonpositive", "log", "one_plus_erf", "pow", "sigmoid", "tanh"});
  CHECK(c->transcendentalGelems == c->transcendentalGelemsByFunction.at("exp"));
  CHECK(hw.transcendentalGelemsByFunction == c->transcendentalGelemsByFunction);
  CHECK(c->streamingCopyGBs > 0);
  CHECK(c->streamStoreAboveBytes <= 2 * o.dramArrayBytes);  // measured only up to the arrays' size
  CHECK(hw.streamStoreAboveBytes == c->streamStoreAboveBytes);
  auto back = parseHardwareDesc(hardwareToJson(hw), "calibrated.json");
  REQUIRE(back);
  CHECK(back->dramBandwidthGBs() == Approx(c->streamCopyGBs));
  CHECK(back->transcendentalGelems == Approx(c->transcendentalGelems));
  CHECK(back->streamStoreAboveBytes == c->streamStoreAboveBytes);
  // Both row-sum reads measured; two segments only where they won clearly (docs/cpu.md, "Two segments").
  REQUIRE(c->rowSumOneStreamGBs > 0);
  REQUIRE(c->rowSumTwoSegmentsGBs > 0);
  CHECK(c->rowSumSegments == (c->rowSumTwoSegmentsGBs >= codegen::cpu::kClearSegmentsWin * c->rowSumOneStreamGBs ? 2 : 1));
  CHECK(hw.rowSumSegments == c->rowSumSegments);
  CHECK(back->rowSumSegments == c->rowSumSegments);
  CHECK_FALSE(c->warmCopy.empty());  // 2 to 16 MiB with these arrays
  CHECK(hw.warmCopy.size() == c->warmCopy.size());
  CHECK(back->warmCopy.size() == c->warmCopy.size());
  CHECK(c->coldCopyGBs > 0);  // after an eviction of twice the last-level cache, over the 16 MiB the arrays allow
  CHECK(back->coldCopyGBs == Approx(c->coldCopyGBs));
  REQUIRE(c->streamReadGBs > 0);
  CHECK(hw.readToCopyRatio == Approx(c->streamReadGBs / c->streamCopyGBs));
  CHECK(back->readToCopyRatio == Approx(hw.readToCopyRatio));
}

TEST_CASE("the streaming threshold is the footprint before the first clear streaming win", "[cpu][calibrate]") {
  using codegen::cpu::streamingCrossover;
  constexpr int64_t MiB = 1 << 20;
  // The curve one calibration measured on 2026-11-27 (GB/s, rounded): streaming wins clearly from 128 MiB
  // on, but lost again at 256 MiB. The last loss must not push the threshold to 256 MiB.
  std::vector<WarmCopyPoint> noisyTail = {{64 * MiB, 42.6, 41.6}, {96 * MiB, 40.1, 37.8}, {128 * MiB, 26.2, 35.4},
                                          {192 * MiB, 21.9, 23.2}, {256 * MiB, 20.5, 15.7}};
  CHECK(streamingCrossover(noisyTail) == 96 * MiB);
  // A win within 10 % is noise on this machine; a clear win at the first point: half of it.
  CHECK(streamingCrossover({{2 * MiB, 100, 105}, {4 * MiB, 50, 80}}) == 2 * MiB);
  CHECK(streamingCrossover({{2 * MiB, 50, 80}}) == MiB);
  CHECK(streamingCrossover({{2 * MiB, 100, 50}, {256 * MiB, 20, 21}}) == 0);
  CHECK(streamingCrossover({}) == 0);
}

TEST_CASE("gir run on a GIR file too large to interpret decides it on the affine forms", "[cpu][cli]") {
  // The 16-row softmax at the size of 64x12x128x128 attention scores: 12.6 M elements per tensor,
  // beyond what the element-wise checker holds (it took 24 GB for a 16384x2048 LayerNorm).
  std::string text = test::readText(test::sourcePath("tests/golden/cpu/softmax_rows_band.gir"));
  auto scaled = [](std::string t, const std::string& from, const std::string& to) {
    for (size_t at = t.find(from); at != std::string::npos; at = t.find(from, at + to.size())) t.replace(at, from.size(), to);
    return t;
  };
  text = scaled(scaled(scaled(text, "units=8 ", "units=6144 "), "f32[16384]", "f32[12582912]"), "f32[128]", "f32[98304]");
  std::string big = test::binaryPath("tests/softmax_attention_scores.gir");
  test::writeText(big, text);
  int code = 0;
  std::string out = test::runGir("run " + big + " --emit", code);
  CHECK(code == 0);
  CHECK(out.find("// one band: 3 loop nests share their outer loops [16]") != std::string::npos);
  // Units that overlap their output rows race: found on the affine forms, exit 2.
  std::string racy = test::binaryPath("tests/softmax_attention_scores_racy.gir");
  test::writeText(racy, scaled(text, "%y offset(2048*u)", "%y offset(2047*u)"));
  out = test::runGir("run " + racy + " --emit", code);
  INFO(out);
  CHECK(code == 2);
  CHECK(out.find("not valid") != std::string::npos);
}
