// Helpers of the gpu test area: cases from files, emitted programs, counting constructs in source,
// and running emitted CUDA on the CPU emulation (tests/gpu/emu/cuda_runtime.h).
#pragma once

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "codegen/gpu/GpuCorpus.h"
#include "codegen/gpu/GpuEmitter.h"
#include "codegen/gpu/GpuRun.h"
#include "tests/support/TestSupport.h"

namespace gir::test {

inline gpu::GpuCase caseFromFile(const std::string& relative) {
  auto c = gpu::girFileCase(sourcePath(relative), 1);
  if (!c) throw std::runtime_error(c.error().str());
  return std::move(*c);
}

inline gpu::GpuProgram programFor(const Graph& g, const std::string& target) {
  auto t = gpu::gpuTargetByName(target);
  if (!t) throw std::runtime_error(t.error().str());
  auto p = gpu::emitGpuProgram(g, *t);
  if (!p) throw std::runtime_error(p.error().str());
  return std::move(*p);
}

// A fresh scratch directory under the build tree.
inline std::string scratchDir(const std::string& name) {
  std::filesystem::path d = binaryPath("tests/gpu-scratch/" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

// The emitted kernel source with each `k<<<grid, block, 0, stream>>>(args);` turned into an emulated launch.
inline std::string emulationSource(const std::string& cuda) {
  static const std::regex launch(R"((\w+)<<<(\d+), (\d+), 0, stream>>>\(([^)]*)\);)");
  return std::regex_replace(cuda, launch, "gir_emu::launch($1, $2, $3, $4);");
}

struct EmulationResult {
  std::string name, output;
  bool ok = false;
};

// Writes every case (CUDA for nvidia-h100, HIP for amd-mi100), compiles its harness with the host
// compiler against the emulation headers (two at a time), runs it on the case's data and reads its
// GIR_RESULT line.
inline std::vector<EmulationResult> emulate(const std::vector<gpu::GpuCase>& cases, const std::string& scratch,
                                            const std::string& target = "nvidia-h100") {
  std::string dir = scratchDir(scratch), list, harness;
  for (const auto& c : cases) {
    gpu::GpuProgram p = programFor(c.gir, target);
    harness = p.harnessFile();
    std::string caseDir = dir + "/" + p.name;
    if (auto st = gpu::writeGpuProgram(p, c, caseDir); !st) throw std::runtime_error(st.error().str());
    writeText(caseDir + "/" + p.kernelFile(), emulationSource(p.kernelSource));
    list += p.name + "\n";
  }
  writeText(dir + "/cases.txt", list);
  std::string emu = sourcePath("tests/gpu/emu");
  std::string cmd = "cd '" + dir + "' && xargs -P 2 -I{} sh -c 'cd {} && c++ -x c++ -std=c++17 -O1 -w -I" + emu +
                    " " + harness + " -o emu > compile.log 2>&1 && ./emu data --warmup 0 --repeat 1 > run.log 2>&1; true' < cases.txt";
  std::string out;
  runCommand(cmd, out);
  std::vector<EmulationResult> results;
  for (const auto& c : cases) {
    std::string caseDir = dir + "/" + programFor(c.gir, target).name;
    EmulationResult r{c.name, readText(caseDir + "/run.log") + readText(caseDir + "/compile.log"), false};
    r.ok = r.output.find("GIR_RESULT") != std::string::npos && r.output.find("\"ok\": true") != std::string::npos;
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace gir::test
