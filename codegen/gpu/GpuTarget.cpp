// The three GPU targets the workbench ships hardware descriptions for.
#include "codegen/gpu/GpuTarget.h"

namespace gir::gpu {

namespace {
std::vector<GpuTarget> knownTargets() {
  return {
      GpuTarget{"nvidia-h100", GpuApi::Cuda, 32, 1024, {"sm_90"}},
      GpuTarget{"nvidia-a100", GpuApi::Cuda, 32, 1024, {"sm_80"}},
      GpuTarget{"amd-mi100", GpuApi::Hip, 64, 1024, {"gfx908"}},
  };
}
}  // namespace

Expected<GpuTarget> gpuTargetByName(const std::string& name) {
  for (auto& t : knownTargets())
    if (t.name == name) return t;
  std::string known;
  for (const auto& n : gpuTargetNames()) known += (known.empty() ? "" : ", ") + n;
  return makeError("'" + name + "' is not a GPU target; known GPU targets: " + known);
}

std::vector<std::string> gpuTargetNames() {
  std::vector<std::string> out;
  for (const auto& t : knownTargets()) out.push_back(t.name);
  return out;
}

}  // namespace gir::gpu
