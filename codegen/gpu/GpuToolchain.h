// Finding and running the GPU compilers: nvcc (CUDA_HOME, PATH, /usr/local/cuda/bin) and hipcc (PATH).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/gpu/GpuTarget.h"
#include "core/Expected.h"

namespace gir::gpu {

struct ToolResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr together
};

// The compiler for an API, or nullopt; `why` (if given) says where it looked.
std::optional<std::string> findCompiler(GpuApi api, std::string* why = nullptr);
// Whether the compiler can build for the target's device (hipcc needs the ROCm device libraries).
// Caches the answer per process.
Status compilerWorks(GpuApi api);

// Runs a shell command line, capturing its output; fails only when the command cannot start.
Expected<ToolResult> runCommand(const std::string& commandLine);
std::string shellQuote(const std::string& s);

// One compiler invocation for `source` with every arch in `archs` (two -gencode flags for sm_80 and
// sm_90; --offload-arch for HIP); `objectOnly` stops at an object file.
std::string compileCommandLine(GpuApi api, const std::string& compiler, const std::string& source, const std::string& output,
                               const std::vector<std::string>& archs, bool objectOnly);
// Compiles; a failure quotes the compiler's first error lines and the command.
Status compileGpu(GpuApi api, const std::string& source, const std::string& output, const std::vector<std::string>& archs, bool objectOnly);

}  // namespace gir::gpu
