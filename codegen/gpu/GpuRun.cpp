// Writing, building and running an emitted GPU program; the harness reports one GIR_RESULT line.
#include "codegen/gpu/GpuRun.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "codegen/gpu/GpuToolchain.h"
#include "core/gir/Printer.h"

namespace gir::gpu {

namespace fs = std::filesystem;

namespace {

Status writeFile(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) return makeError("cannot write " + p.string());
  return success();
}

Status writeFloats(const fs::path& p, const std::vector<float>& v) {
  return writeFile(p, std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
}

// The number after `"key": ` in the harness's result line.
double jsonNumber(const std::string& line, const std::string& key) {
  size_t pos = line.find("\"" + key + "\": ");
  if (pos == std::string::npos) return 0;
  return std::atof(line.c_str() + pos + key.size() + 4);
}

}  // namespace

Status writeGpuProgram(const GpuProgram& program, const GpuCase& c, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "data", ec);
  if (ec) return makeError("cannot create " + dir + ": " + ec.message());
  for (auto [name, text] : {std::pair{program.kernelFile(), &program.kernelSource}, std::pair{program.harnessFile(), &program.harnessSource},
                            std::pair{std::string("build.sh"), &program.buildScript}})
    if (auto st = writeFile(fs::path(dir) / name, *text); !st) return st;
  fs::permissions(fs::path(dir) / "build.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add, ec);
  if (auto st = writeFile(fs::path(dir) / (program.name + ".gir"), printGraph(c.gir)); !st) return st;
  for (const auto& [name, v] : c.inputs)
    if (auto st = writeFloats(fs::path(dir) / "data" / (name + ".in.bin"), v); !st) return st;
  for (const auto& [name, v] : c.expected)
    if (auto st = writeFloats(fs::path(dir) / "data" / (name + ".ref.bin"), v); !st) return st;
  return success();
}

bool gpuPresent(GpuApi api, std::string* why) {
  std::error_code ec;
  if (api == GpuApi::Cuda) {
    if (fs::exists("/dev/nvidiactl", ec) || fs::exists("/proc/driver/nvidia/version", ec)) return true;
    if (why) *why = "no NVIDIA driver on this machine (/dev/nvidiactl and /proc/driver/nvidia are absent)";
    return false;
  }
  if (fs::exists("/dev/kfd", ec)) return true;
  if (why) *why = "no AMD GPU driver on this machine (/dev/kfd is absent)";
  return false;
}

std::string defaultTargetForThisMachine() {
  if (gpuPresent(GpuApi::Cuda)) return "nvidia-h100";
  if (gpuPresent(GpuApi::Hip)) return "amd-mi100";
  return "cpu-host";
}

Expected<GpuRunResult> runOnGpu(const GpuCase& c, const GpuTarget& target, const GpuRunOptions& options) {
  auto program = emitGpuProgram(c.gir, target);
  if (!program) return program.takeError();
  if (auto st = writeGpuProgram(*program, c, options.workDir); !st) return st.takeError();
  GpuRunResult r;
  r.kernels = program->kernels;
  r.binary = (fs::path(options.workDir) / program->name).string();
  std::string harness = (fs::path(options.workDir) / program->harnessFile()).string();
  if (auto st = compileGpu(target.api, harness, r.binary, target.archs, false); !st) return st.takeError();
  std::string why;
  if (!gpuPresent(target.api, &why)) return makeError("no GPU: " + why + "; " + r.binary + " is built and can be run on a machine with one");
  std::string cmd = shellQuote(r.binary) + " " + shellQuote((fs::path(options.workDir) / "data").string()) + " --warmup " +
                    std::to_string(options.warmup) + " --repeat " + std::to_string(options.repeat) + " --rtol " +
                    std::to_string(options.rtol) + " --atol " + std::to_string(options.atol);
  auto run = runCommand(cmd);
  if (!run) return run.takeError();
  r.harnessOutput = run->output;
  if (run->exitCode == 3) return makeError("no GPU: " + run->output);
  size_t pos = run->output.find("GIR_RESULT ");
  if (pos == std::string::npos)
    return makeError(r.binary + " exited with " + std::to_string(run->exitCode) + " without a result:\n" + run->output);
  std::string line = run->output.substr(pos, run->output.find('\n', pos) - pos);
  r.ok = line.find("\"ok\": true") != std::string::npos && run->exitCode == 0;
  r.maxAbsError = jsonNumber(line, "max_abs_error");
  r.maxRelError = jsonNumber(line, "max_rel_error");
  r.medianUs = jsonNumber(line, "median_us");
  r.minUs = jsonNumber(line, "min_us");
  return r;
}

Expected<std::vector<GpuCaseRun>> runFileOnGpu(const std::string& input, const GpuTarget& target,
                                               const std::vector<std::string>& planners, const GpuRunOptions& options) {
  std::vector<GpuCase> cases;
  bool model = input.size() > 5 && input.compare(input.size() - 5, 5, ".onnx") == 0;
  if (model) {
    auto hw = loadHardwareByName(target.name);
    if (!hw) return hw.takeError();
    auto plans = modelPlans(input, *hw, planners, 7);
    if (!plans) return plans.takeError();
    cases = std::move(*plans);
  } else {
    auto c = girFileCase(input, 7);
    if (!c) return c.takeError();
    cases.push_back(std::move(*c));
  }
  std::vector<GpuCaseRun> runs;
  for (const auto& c : cases) {
    GpuRunOptions o = options;
    o.workDir = (fs::path(options.workDir) / c.name).string();
    auto r = runOnGpu(c, target, o);
    GpuCaseRun run{c.name, c.planner, std::nullopt, ""};
    if (r) run.result = std::move(*r);
    else run.error = r.error().message;
    runs.push_back(std::move(run));
  }
  return runs;
}

std::string describeGpuRuns(const std::vector<GpuCaseRun>& runs) {
  std::string out;
  char buf[256];
  for (const auto& r : runs) {
    out += r.name + " (" + r.planner + "): ";
    if (!r.result) {
      out += r.error + "\n";
      continue;
    }
    std::snprintf(buf, sizeof buf, "%d kernel(s), %s, max rel error %.3g, median %.2f us (min %.2f us)\n", r.result->kernels,
                  r.result->ok ? "matches the reference" : "MISMATCH", r.result->maxRelError, r.result->medianUs, r.result->minUs);
    out += buf;
  }
  return out;
}

}  // namespace gir::gpu
