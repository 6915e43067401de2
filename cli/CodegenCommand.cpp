// `gir codegen MODEL.onnx|FILE.gir --target nvidia-h100|nvidia-a100|amd-mi100 -o DIR [--planner gir|eager|xla|tvm|all]`:
// CUDA or HIP sources per plan (DIR/CASE/NAME.cu|.hip), a host harness, a build script, the GIR the code
// came from and input/reference data (DIR/CASE/data), plus DIR/manifest.json listing every case.
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "codegen/gpu/GpuCorpus.h"
#include "codegen/gpu/GpuRun.h"
#include "search/ModelPlanner.h"

namespace gir::cli {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Expected<std::vector<std::string>> plannersOf(const std::string& opt) {
  if (opt.empty() || opt == "all") return search::plannerNames();
  if (search::isPlannerName(opt)) return std::vector<std::string>{opt};
  return makeError("--planner expects gir, eager, xla, tvm or all, got '" + opt + "'");
}

std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out;
}

}  // namespace

int runCodegen(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target", "o", "planner", "seed"}, {});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1 || !args->hasOption("o") || !args->hasOption("target"))
    return reportBadInput(makeError("usage: gir codegen MODEL.onnx|FILE.gir --target nvidia-h100|nvidia-a100|amd-mi100 -o DIR [--planner gir|eager|xla|tvm|all]"));
  const std::string input = args->positional[0];
  auto target = gpu::gpuTargetByName(args->option("target"));
  if (!target) return reportBadInput(target.error());
  auto hw = loadHardwareByName(target->name);
  if (!hw) return reportBadInput(hw.error());
  auto seedOption = integerOption(*args, "seed", 7);
  if (!seedOption) return reportBadInput(seedOption.error());
  uint64_t seed = static_cast<uint64_t>(*seedOption);

  std::vector<gpu::GpuCase> cases;
  if (endsWith(input, ".onnx")) {
    auto planners = plannersOf(args->option("planner"));
    if (!planners) return reportBadInput(planners.error());
    std::vector<std::string> skipped;  // a planner that fails on this model is left out, with a warning
    auto plans = gpu::modelPlans(input, *hw, *planners, seed, &skipped);
    if (!plans) return reportBadInput(plans.error());
    for (const auto& s : skipped) std::cerr << "warning: no GPU code for " << s << "\n";
    cases = std::move(*plans);
  } else {
    if (args->hasOption("planner")) return reportBadInput(makeError("--planner applies to ONNX models; a GIR file is its own plan"));
    auto c = gpu::girFileCase(input, seed);
    if (!c) return reportBadInput(c.error());
    cases.push_back(std::move(*c));
  }

  const std::string dir = args->option("o");
  std::ostringstream manifest;
  manifest << "{\n \"source\": \"" << jsonEscape(input) << "\",\n \"target\": \"" << target->name << "\",\n \"cases\": [";
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    auto program = gpu::emitGpuProgram(c.gir, *target);
    if (!program) {
      Diagnostic d = program.error();
      if (d.location.file.empty()) d.location.file = input;
      return reportBadInput(d);
    }
    std::string caseDir = (std::filesystem::path(dir) / program->name).string();
    if (auto st = gpu::writeGpuProgram(*program, c, caseDir); !st) return reportBadInput(st.error());
    std::cout << caseDir << ": " << program->kernels << " kernel(s), " << program->kernelFile() << ", " << program->harnessFile()
              << ", build.sh (" << c.planner << ", reference: " << c.reference << ")\n";
    manifest << (i ? "," : "") << "\n  {\"name\": \"" << program->name << "\", \"planner\": \"" << c.planner << "\", \"dir\": \""
             << jsonEscape(program->name) << "\", \"kernels\": " << program->kernels << ", \"min_bytes\": " << c.minBytes << "}";
  }
  manifest << "\n ]\n}\n";
  if (auto st = writeOutput((std::filesystem::path(dir) / "manifest.json").string(), manifest.str()); !st) return reportBadInput(st.error());
  return kExitOk;
}

}  // namespace gir::cli
