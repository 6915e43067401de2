// Compiler discovery and invocation for the GPU back ends.
#include "codegen/gpu/GpuToolchain.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <sys/wait.h>
#include <unistd.h>

namespace gir::gpu {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

std::optional<std::string> onPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string all = path;
  for (size_t start = 0; start <= all.size();) {
    size_t end = all.find(':', start);
    if (end == std::string::npos) end = all.size();
    fs::path candidate = fs::path(all.substr(start, end - start)) / name;
    if (end > start && executable(candidate)) return candidate.string();
    start = end + 1;
  }
  return std::nullopt;
}

// A few lines of compiler output around the first error, for messages.
std::string firstErrors(const std::string& out) {
  size_t pos = out.find("error");
  if (pos == std::string::npos) pos = 0;
  size_t lineStart = out.rfind('\n', pos);
  lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
  std::string excerpt = out.substr(lineStart, 1200);
  return excerpt;
}

}  // namespace

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::optional<std::string> findCompiler(GpuApi api, std::string* why) {
  if (api == GpuApi::Hip) {
    if (auto p = onPath("hipcc")) return p;
    if (why) *why = "hipcc is not on PATH (Debian package hipcc)";
    return std::nullopt;
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && executable(fs::path(home) / "bin" / "nvcc"))
    return (fs::path(home) / "bin" / "nvcc").string();
  if (auto p = onPath("nvcc")) return p;
  if (executable("/usr/local/cuda/bin/nvcc")) return std::string("/usr/local/cuda/bin/nvcc");
  if (why) *why = "nvcc is not in $CUDA_HOME/bin, on PATH or in /usr/local/cuda/bin";
  return std::nullopt;
}

Expected<ToolResult> runCommand(const std::string& commandLine) {
  std::string cmd = commandLine + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return makeError("cannot run: " + commandLine);
  ToolResult r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return r;
}

std::string compileCommandLine(GpuApi api, const std::string& compiler, const std::string& source, const std::string& output,
                               const std::vector<std::string>& archs, bool objectOnly) {
  std::string cmd = shellQuote(compiler) + " -O3 -std=c++17";
  for (const auto& a : archs)
    cmd += api == GpuApi::Cuda ? " -gencode arch=compute_" + a.substr(3) + ",code=" + a : " --offload-arch=" + a;
  if (objectOnly) cmd += " -c";
  return cmd + " -o " + shellQuote(output) + " " + shellQuote(source);
}

Status compilerWorks(GpuApi api) {
  static std::mutex mu;
  static std::map<GpuApi, Status> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(api); it != cache.end()) return it->second;
  std::string why;
  auto compiler = findCompiler(api, &why);
  Status st = success();
  if (!compiler) {
    st = makeError(why);
  } else {
    // A one-kernel probe: hipcc also needs clang's AMDGPU back end and the ROCm device libraries.
    fs::path dir = fs::temp_directory_path() / ("gir-gpu-probe-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string ext = api == GpuApi::Cuda ? ".cu" : ".hip";
    std::string src = (dir / ("probe" + ext)).string();
    if (FILE* f = std::fopen(src.c_str(), "w")) {
      std::fputs(api == GpuApi::Cuda ? "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"
                                     : "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n",
                 f);
      std::fclose(f);
    }
    std::vector<std::string> arch = {api == GpuApi::Cuda ? "sm_80" : "gfx908"};
    auto r = runCommand(compileCommandLine(api, *compiler, src, (dir / "probe.o").string(), arch, true));
    if (!r || r->exitCode != 0)
      st = makeError(*compiler + " cannot compile a one-line kernel for " + arch[0] + ": " + (r ? firstErrors(r->output) : r.error().message));
    fs::remove_all(dir);
  }
  cache.emplace(api, st);
  return st;
}

Status compileGpu(GpuApi api, const std::string& source, const std::string& output, const std::vector<std::string>& archs, bool objectOnly) {
  std::string why;
  auto compiler = findCompiler(api, &why);
  if (!compiler) return makeError(why);
  std::string cmd = compileCommandLine(api, *compiler, source, output, archs, objectOnly);
  auto r = runCommand(cmd);
  if (!r) return r.takeError();
  if (r->exitCode != 0) {
    Diagnostic d = makeError("compiling " + source + " failed (exit " + std::to_string(r->exitCode) + "):\n" + firstErrors(r->output),
                             SourceLocation{source, 0, 0, ""});
    d.notes.push_back("command: " + cmd);
    return d;
  }
  return success();
}

}  // namespace gir::gpu
