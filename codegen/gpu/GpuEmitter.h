// CUDA and HIP source for a GIR-Graph (docs/gpu.md): one `__global__` function per kernel,
// a launcher that runs them in order, a host harness that checks and times them, and a build script.
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu/GpuPlan.h"
#include "codegen/gpu/GpuTarget.h"
#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::gpu {

// A device array of the launcher's buffer table: graph buffers at the dram level, and unit- or
// block-level buffers the mapping spilled to global memory.
struct GpuBuffer {
  std::string name;   // GIR buffer name
  int64_t elements = 0;
  BufferRole role = BufferRole::Temp;
};

struct GpuProgram {
  std::string name;             // C identifier of the graph; file stem
  GpuTarget target;
  std::string kernelSource;     // NAME.cu / NAME.hip: kernels + `gir_launch_NAME`
  std::string harnessSource;    // harness.cu / harness.hip: includes the kernel source; main()
  std::string buildScript;      // build.sh
  std::vector<GpuBuffer> buffers;  // the launcher's table, in order
  int kernels = 0;
  std::vector<int> threadsPerBlock, blocks;  // per kernel launch
  std::string kernelFile() const { return name + target.sourceExtension(); }
  std::string harnessFile() const { return "harness" + target.sourceExtension(); }
};

// The kernel source alone (what the golden tests and `gir codegen` read).
Expected<std::string> emitGpuKernels(const GpuPlan& plan);
// Everything: plan, kernels, harness and build script.
Expected<GpuProgram> emitGpuProgram(const Graph& g, const GpuTarget& target);

// The harness and build script for an emitted program (GpuHarness.cpp).
std::string emitHarness(const GpuProgram& p);
std::string emitBuildScript(const GpuProgram& p);

}  // namespace gir::gpu
