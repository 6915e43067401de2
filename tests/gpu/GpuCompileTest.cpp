// CI compile test (issue 7, acceptance 1): every valid GIR golden and every plan (gir, eager, xla, tvm)
// of every bundled scenario compiles as CUDA for sm_80 and sm_90 (one nvcc invocation per model, two
// -gencode flags) and as HIP for gfx908 (hipcc). A missing or unusable compiler is a printed skip.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "codegen/gpu/GpuToolchain.h"
#include "tests/gpu/GpuTestSupport.h"

using namespace gir;

namespace {

struct CompileJob {
  std::string name, object, log;
};

// Writes the kernel sources, every plan of one model (or one GIR file) in one translation unit (the
// emitted files concatenate: names are per plan, the shared helper is guarded), and one script per
// compile; runs them two at a time.
std::vector<CompileJob> compileAll(const std::vector<gpu::GpuCase>& cases, const std::string& target, const std::vector<std::string>& archs,
                                   const std::string& compiler) {
  auto t = gpu::gpuTargetByName(target);
  REQUIRE(t);
  std::string dir = test::scratchDir("compile-" + target);
  std::map<std::string, std::string> units;  // source -> concatenated kernel source
  for (const auto& c : cases) units[c.source] += test::programFor(c.gir, target).kernelSource;
  std::vector<CompileJob> jobs;
  std::string list;
  for (const auto& [name, text] : units) {
    std::string src = dir + "/" + name + t->sourceExtension();
    test::writeText(src, text);
    CompileJob j{name, dir + "/" + name + ".o", dir + "/" + name + ".log"};
    test::writeText(dir + "/" + name + ".sh", gpu::compileCommandLine(t->api, compiler, src, j.object, archs, true) + " > '" + j.log + "' 2>&1\n");
    list += name + ".sh\n";
    jobs.push_back(j);
  }
  test::writeText(dir + "/jobs.txt", list);
  std::string out;
  test::runCommand("cd '" + dir + "' && xargs -P 2 -I{} sh {} < jobs.txt", out);
  return jobs;
}

}  // namespace

TEST_CASE("every bundled plan and valid GIR golden compiles for sm_80 + sm_90 (nvcc) and gfx908 (hipcc)", "[gpu][compile]") {
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw);
  std::vector<std::string> skipped;
  auto corpus = gpu::gpuCompileCorpus(test::sourcePath(""), *hw, &skipped);
  for (const auto& s : skipped) WARN("not in the GPU compile corpus: " << s.substr(0, s.find('\n')));
  REQUIRE(corpus.size() >= 30);  // 7 valid goldens + the scenarios' plans (gir, eager, xla, tvm)

  struct Api {
    gpu::GpuApi api;
    const char* target;
    std::vector<std::string> archs;
  };
  for (const Api& a : {Api{gpu::GpuApi::Cuda, "nvidia-h100", {"sm_80", "sm_90"}}, Api{gpu::GpuApi::Hip, "amd-mi100", {"gfx908"}}}) {
    Status works = gpu::compilerWorks(a.api);
    if (!works) {
      WARN("skipping the " << (a.api == gpu::GpuApi::Cuda ? "CUDA" : "HIP") << " compile test: " << works.error().message);
      continue;
    }
    auto compiler = gpu::findCompiler(a.api);
    REQUIRE(compiler);
    auto jobs = compileAll(corpus, a.target, a.archs, *compiler);
    for (const auto& j : jobs) {
      INFO(a.target << " " << j.name << ":\n" << test::readText(j.log).substr(0, 3000));
      CHECK(std::filesystem::exists(j.object));
      CHECK(test::readText(j.log).find("error") == std::string::npos);
    }
  }
}

TEST_CASE("the host harness and build script build a runnable program", "[gpu][compile]") {
  auto c = test::caseFromFile("tests/golden/gir/relu.gir");
  for (const char* target : {"nvidia-h100", "amd-mi100"}) {
    auto t = gpu::gpuTargetByName(target);
    REQUIRE(t);
    if (Status works = gpu::compilerWorks(t->api); !works) {
      WARN("skipping the " << target << " harness build: " << works.error().message);
      continue;
    }
    gpu::GpuProgram p = test::programFor(c.gir, target);
    std::string dir = test::scratchDir(std::string("harness-") + target);
    REQUIRE(gpu::writeGpuProgram(p, c, dir));
    std::string out;
    int code = test::runCommand("cd '" + dir + "' && ./build.sh", out);
    INFO(out);
    CHECK(code == 0);
    CHECK(std::filesystem::exists(dir + "/" + p.name));
    CHECK(std::filesystem::exists(dir + "/data/x.in.bin"));
    CHECK(std::filesystem::exists(dir + "/data/y.ref.bin"));
  }
}
