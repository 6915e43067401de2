// The generated source of a GIR-Graph for a target, cut per kernel, for reading (the Measure tab's
// source view, issue #18 point 7): C++/OpenMP for a CPU description, CUDA or HIP for a GPU one, each
// kernel with the GIR node comments the emitter writes above the code of every node.
#pragma once

#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"
#include "core/hw/HardwareDesc.h"

namespace gir::codegen {

struct KernelSources {
  std::string language;              // "C++/OpenMP", "CUDA", "HIP"
  std::string whole;                 // the whole file as the back end emits it
  std::vector<std::string> kernels;  // kernel k: its comment lines and its function
};

// An error for targets without a source back end here (Ascend: its .asck is on the Ascend tab).
Expected<KernelSources> generatedKernelSources(const Graph& g, const HardwareDesc& hw);

// The text of function `name` in `code`: the comment lines right above its definition through the
// closing brace at column 0; empty when there is no such definition.
std::string functionText(const std::string& code, const std::string& name);

}  // namespace gir::codegen
