// The GPU side of `gir run`: write a case's program and data, compile it with nvcc (hipcc for HIP
// targets), run the harness, check it against the reference outputs and time it with events.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/gpu/GpuCorpus.h"
#include "codegen/gpu/GpuEmitter.h"
#include "codegen/gpu/GpuTarget.h"
#include "core/Expected.h"

namespace gir::gpu {

struct GpuRunOptions {
  std::string workDir;  // sources, binary and data go here (created)
  int warmup = 10;
  int repeat = 100;
  double rtol = 1e-4, atol = 1e-5;
};

struct GpuRunResult {
  bool ok = false;          // every output within rtol/atol of the reference
  double maxAbsError = 0, maxRelError = 0;
  double medianUs = 0, minUs = 0;  // the whole launch sequence, CUDA/HIP events
  int kernels = 0;
  std::string binary;
  std::string harnessOutput;
};

// Writes DIR/NAME.cu|.hip, DIR/harness.cu|.hip, DIR/build.sh, DIR/NAME.gir and DIR/data/ (every input
// as NAME.in.bin, every reference output as NAME.ref.bin, raw little-endian float32).
Status writeGpuProgram(const GpuProgram& program, const GpuCase& c, const std::string& dir);

// Whether this machine has a GPU of the API's kind (driver device nodes); `why` says what is missing.
bool gpuPresent(GpuApi api, std::string* why = nullptr);
// The bundled description of this machine's kind: nvidia-h100 where an NVIDIA driver is, amd-mi100 where
// an AMD one is, else cpu-host (the app's default target).
std::string defaultTargetForThisMachine();

// Emits, writes, compiles and runs. Fails with a message starting "no GPU" when the program built
// but the machine has no device to run it on; with the compiler's output when it does not build.
Expected<GpuRunResult> runOnGpu(const GpuCase& c, const GpuTarget& target, const GpuRunOptions& options);

// One case of `runFileOnGpu`: its result, or why it did not run ("no GPU: ..." when it built but the
// machine has no device).
struct GpuCaseRun {
  std::string name, planner;
  std::optional<GpuRunResult> result;
  std::string error;
};

// The GPU side of `gir run FILE --target nvidia-*|amd-mi100` in one call: a .gir file, or every plan of
// a model's subgraphs under `planners` (see GpuCorpus.h), each run in options.workDir/CASE. Fails only
// when the input cannot be read or lowered.
Expected<std::vector<GpuCaseRun>> runFileOnGpu(const std::string& input, const GpuTarget& target,
                                               const std::vector<std::string>& planners, const GpuRunOptions& options);
// One line per case: kernels, numerics and median time, or the reason it did not run.
std::string describeGpuRuns(const std::vector<GpuCaseRun>& runs);

}  // namespace gir::gpu
