// GPU targets of the CUDA and HIP emitters (docs/gpu.md): one mapping, parameterized by the
// lanes of a unit (warp = 32, wavefront = 64) and by the API spelling of the toolchain.
#pragma once

#include <string>
#include <vector>

#include "core/Expected.h"

namespace gir::gpu {

enum class GpuApi { Cuda, Hip };

struct GpuTarget {
  std::string name;          // hardware description name: nvidia-h100, nvidia-a100, amd-mi100
  GpuApi api = GpuApi::Cuda;
  int lanes = 32;            // threads per unit (warp / wavefront)
  int maxThreadsPerBlock = 1024;
  std::vector<std::string> archs;  // what the build script compiles for: sm_90 / sm_80 / gfx908

  std::string apiPrefix() const { return api == GpuApi::Cuda ? "cuda" : "hip"; }
  std::string sourceExtension() const { return api == GpuApi::Cuda ? ".cu" : ".hip"; }
  std::string compilerName() const { return api == GpuApi::Cuda ? "nvcc" : "hipcc"; }
};

// The GPU target of a hardware name; an error lists the known ones.
Expected<GpuTarget> gpuTargetByName(const std::string& name);
std::vector<std::string> gpuTargetNames();

}  // namespace gir::gpu
