// The `gir` subcommands. Each lives in its own file; main.cpp lists them in one table.
#pragma once

#include <string>
#include <vector>

namespace gir::cli {

using CommandArgs = std::vector<std::string>;

// GIR files (check, print, convert) — cli/GirCommands.cpp
int runCheck(const CommandArgs& args);
int runPrint(const CommandArgs& args);
int runConvert(const CommandArgs& args);
// The rewrite stepper and the greedy optimizer — cli/OptCommand.cpp
int runOpt(const CommandArgs& args);
// ONNX import and preprocessing — cli/ImportCommand.cpp
int runImport(const CommandArgs& args);
// Hardware descriptions — cli/HardwareCommand.cpp
int runHardware(const CommandArgs& args);
// The headless walkthrough on a bundled example — cli/WalkthroughCommand.cpp
int runWalkthrough(const CommandArgs& args);
// Ascend set/wait insertion and the oracle — cli/AscendCommands.cpp
int runAscendSync(const CommandArgs& args);
int runAscendSim(const CommandArgs& args);
// GIR kernels lowered to .asck, checked, optionally with set/wait inserted — cli/AscendLowerCommand.cpp
int runAscendLower(const CommandArgs& args);
// A model's memory-bound subgraph as merged per-op GIR kernels — cli/LowerCommand.cpp
int runLower(const CommandArgs& args);
// Baseline fusion plans of a model's memory-bound subgraphs — cli/PlanCommand.cpp
int runPlan(const CommandArgs& args);
// CUDA/HIP sources, harness and build script for a model's plans or a GIR file — cli/CodegenCommand.cpp
int runCodegen(const CommandArgs& args);

// Generated C++/OpenMP on this CPU: run, check, model vs measure, calibrate — cli/RunCommand.cpp
int runRun(const CommandArgs& args);
// `gir run` for a GPU target (cli/RunGpuCommand.cpp); runRun hands over when --target names one.
bool isGpuRunTarget(const std::string& target);
int runRunOnGpu(const CommandArgs& args);

}  // namespace gir::cli
