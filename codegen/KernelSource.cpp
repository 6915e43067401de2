// Each back end names kernel k's function in a fixed way (codegen/cpu: `kernel<k>`, codegen/gpu:
// `<graph>_k<k>`), so the cut is by name, not by parsing the language.
#include "codegen/KernelSource.h"

#include <cctype>

#include "codegen/cpu/CpuEmitter.h"
#include "codegen/gpu/GpuEmitter.h"

namespace gir::codegen {

std::string functionText(const std::string& code, const std::string& name) {
  // The definition: the name followed by '(' on a line that does not start with a call's indent.
  size_t at = 0;
  for (;;) {
    at = code.find(name + "(", at);
    if (at == std::string::npos) return "";
    size_t lineStart = code.rfind('\n', at);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    bool atEnd = at + name.size() + 1 <= code.size();
    bool wholeName = at == 0 || !(std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_');
    if (atEnd && wholeName && code[lineStart] != ' ' && code.compare(lineStart, 2, "//") != 0) {
      size_t end = code.find("\n}\n", at);
      if (end == std::string::npos) return "";
      // Back over the comment lines right above the definition.
      size_t begin = lineStart;
      while (begin > 0) {
        size_t prev = code.rfind('\n', begin - 2);
        prev = prev == std::string::npos ? 0 : prev + 1;
        if (code.compare(prev, 2, "//") != 0) break;
        begin = prev;
      }
      return code.substr(begin, end + 3 - begin);
    }
    at += name.size();
  }
}

Expected<KernelSources> generatedKernelSources(const Graph& g, const HardwareDesc& hw) {
  KernelSources out;
  int kernels = 0;
  std::string prefix;
  if (hw.kind == "cpu") {
    auto src = cpu::emitCpu(g);
    if (!src) return src.takeError();
    out.language = "C++/OpenMP";
    out.whole = std::move(src->code);
    kernels = src->kernels;
    prefix = "kernel";
  } else if (hw.kind == "gpu") {
    auto target = gpu::gpuTargetByName(hw.name);
    if (!target) return target.takeError();
    auto program = gpu::emitGpuProgram(g, *target);
    if (!program) return program.takeError();
    out.language = target->api == gpu::GpuApi::Cuda ? "CUDA" : "HIP";
    out.whole = std::move(program->kernelSource);
    kernels = program->kernels;
    prefix = program->name + "_k";
  } else {
    return makeError("no source view for a " + hw.kind + " target ('" + hw.name + "'); an Ascend kernel's .asck is on the Ascend tab");
  }
  for (int k = 0; k < kernels; ++k) out.kernels.push_back(functionText(out.whole, prefix + std::to_string(k)));
  return out;
}

}  // namespace gir::codegen
