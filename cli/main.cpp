// `gir`: dispatches to one subcommand. Exit 0 success, 1 a finding, 2 bad input or usage.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string_view>

#include "cli/Args.h"
#include "cli/Commands.h"

namespace {

struct Command {
  std::string_view name;
  std::string_view usage;
  int (*run)(const gir::cli::CommandArgs&);
};

const Command kCommands[] = {
    {"check", "check FILE [--seed N] [--symbolic]  verify, check the memory model, interpret on random inputs (--symbolic: verify and decide the memory model on the affine forms, no run)", gir::cli::runCheck},
    {"print", "print FILE                      print a GIR file (text or JSON) as canonical text", gir::cli::runPrint},
    {"convert", "convert FILE -o OUT             text <-> JSON (by OUT's extension: .json or .gir)", gir::cli::runConvert},
    {"opt", "opt FILE [--greedy|--rule R --site N|--list] [--trace T] [--replay T] [--verify-each] [--print-after-each]", gir::cli::runOpt},
    {"import", "import MODEL.onnx [--target T] [--json|--dot] [--graph] [--library-epilogue]  import ONNX, classify library ops, list memory-bound subgraphs", gir::cli::runImport},
    {"lower", "lower MODEL.onnx [--target T] [--subgraph N] [--templates search|rows] [--rows-per-unit K] [--block B] [--optimized] [--list-templates] [--json] [-o OUT]", gir::cli::runLower},
    {"hardware", "hardware NAME|FILE              validate and print a hardware description", gir::cli::runHardware},
    {"walkthrough", "walkthrough [FILE]              the headless tour of a bundled example", gir::cli::runWalkthrough},
    {"ascend-sync", "ascend-sync IN.asck [-o OUT] [--stage S] [--stats] [--json] [--target T]  insert set_flag/wait_flag", gir::cli::runAscendSync},
    {"ascend-sim", "ascend-sim FILE.asck [--json] [--target T]  simulate an Ascend kernel and judge its sync (the oracle)", gir::cli::runAscendSim},
    {"ascend-lower", "ascend-lower FILE.gir|MODEL.onnx [--target T] [--subgraph N] [--plan gir|rows] [-o OUT.asck] [--insert] [--phases data|sync] [--no-double-buffer] [--ub-bytes N] [--stats] [--print-gir]  a GIR kernel as one AI Core's .asck program", gir::cli::runAscendLower},
    {"run", "run MODEL.onnx|FILE.gir --target cpu|nvidia-h100|nvidia-a100|amd-mi100 [--planner gir|eager|xla|tvm|all] [--measure [--cold] [--budget-ms N]] [--calibrate] [--stores auto|plain] [--json] [--emit]  generated C++/OpenMP (CUDA/HIP on a GPU): run, check, modelled vs measured", gir::cli::runRun},
    {"plan", "plan MODEL.onnx [--target T] [--planner gir|eager|xla|tvm|all] [--json] [--decisions] [--no-validate] [--library-epilogue]  fusion plans (GIR and baselines): kernels, DRAM bytes, minimal bytes, modelled time", gir::cli::runPlan},
    {"codegen", "codegen MODEL.onnx|FILE.gir --target nvidia-h100|nvidia-a100|amd-mi100 -o DIR [--planner gir|eager|xla|tvm|all]  CUDA/HIP sources, harness, build script", gir::cli::runCodegen},
};

int usage(std::ostream& os) {
  os << "usage: gir COMMAND [ARGS]\n\ncommands:\n";
  for (const auto& c : kCommands) os << "  " << c.usage << "\n";
  return gir::cli::kExitBadInput;
}

}  // namespace

// `gir run` times generated kernels in back-to-back parallel regions. With libgomp's default wait
// policy the workers fall asleep between calls on this kind of machine and each call pays a futex
// wake-up: SiLU 128x1024 took 135 us on 2 threads and 42 on 1; with spinning workers (what ONNX
// Runtime's and torch's thread pools do) 26 us. libgomp reads the variable when it loads, before
// main, so the process starts again with it set; a user's own setting is kept (docs/cpu.md).
void spinWorkersForRun(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY")) return;
  setenv("OMP_WAIT_POLICY", "active", 1);
  execv("/proc/self/exe", argv);  // on failure: go on with the default policy
}

int main(int argc, char** argv) {
  if (argc < 2) return usage(std::cerr);
  std::string_view name = argv[1];
  if (name == "run") spinWorkersForRun(argv);
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return gir::cli::kExitOk;
  }
  gir::cli::CommandArgs args(argv + 2, argv + argc);
  for (const auto& c : kCommands)
    if (c.name == name) return c.run(args);
  std::cerr << "error: unknown command '" << name << "'\n";
  return usage(std::cerr);
}
