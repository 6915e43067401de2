// `gir run MODEL.onnx|FILE.gir --target nvidia-h100|nvidia-a100|amd-mi100 [--planner P|all] [--work DIR]`:
// the GPU side of `gir run`. Each plan is emitted, compiled with nvcc (hipcc), checked against the
// reference outputs and timed with events; on a machine without a GPU every plan still builds and
// the command says, per plan, that there is no device to run it on (exit 1: nothing was measured).
#include <filesystem>
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "codegen/cpu/CpuCompiler.h"
#include "codegen/gpu/GpuRun.h"

namespace gir::cli {

bool isGpuRunTarget(const std::string& target) { return static_cast<bool>(gpu::gpuTargetByName(target)); }

int runRunOnGpu(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target", "planner", "work"}, {});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1)
    return reportBadInput(makeError("usage: gir run MODEL.onnx|FILE.gir --target nvidia-h100|nvidia-a100|amd-mi100 [--planner gir|eager|xla|tvm|all] [--work DIR]"));
  auto target = gpu::gpuTargetByName(args->option("target"));
  if (!target) return reportBadInput(target.error());
  std::string planner = args->option("planner", "gir");
  std::vector<std::string> planners;
  if (planner == "all") planners = {"gir", "eager", "xla", "tvm"};
  else if (planner == "gir" || planner == "eager" || planner == "xla" || planner == "tvm") planners = {planner};
  else return reportBadInput(makeError("unknown planner '" + planner + "' (expected gir, eager, xla, tvm or all)"));
  gpu::GpuRunOptions options;
  options.workDir = args->option("work", codegen::cpu::defaultCacheDir() + "/gpu-run/" + target->name);
  std::error_code ec;
  std::filesystem::create_directories(options.workDir, ec);
  if (ec) return reportBadInput(makeError("cannot create the work directory '" + options.workDir + "': " + ec.message()));
  auto runs = gpu::runFileOnGpu(args->positional[0], *target, planners, options);
  if (!runs) return reportBadInput(runs.error());
  std::cout << gpu::describeGpuRuns(*runs);
  bool allMatched = !runs->empty();
  for (const auto& r : *runs) allMatched = allMatched && r.result && r.result->ok;
  if (!allMatched) std::cout << "sources, build scripts and data: " << options.workDir << "\n";
  return allMatched ? kExitOk : kExitFinding;
}

}  // namespace gir::cli
