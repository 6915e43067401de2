// The system compiler behind a source-hash cache; dlopen for loading.
#include "codegen/cpu/CpuCompiler.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace gir::codegen::cpu {

namespace fs = std::filesystem;

std::string hashHex(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string defaultCacheDir() {
  if (const char* d = std::getenv("GIR_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gir-workbench";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gir-workbench";
  return "/tmp/gir-workbench-cache";
}

static std::string compilerOf(const CompileOptions& o) {
  if (!o.compiler.empty()) return o.compiler;
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) return cxx;
  return "c++";
}

// -fno-trapping-math and -fno-math-errno change no value: they let GCC if-convert the float selects and
// vectorize floor/sqrt in `omp simd` loops (with the defaults girExp's loop stays scalar: "control flow
// in loop"). -ffast-math is not used: it would reassociate and flush, changing results.
std::string compileFlags(const CompileOptions& o) {
  return "-std=c++20 " + o.optLevel + (o.nativeArch ? " -march=native" : "") + " -fno-trapping-math -fno-math-errno -freciprocal-math -fopenmp -shared -fPIC";
}

void* SharedLibrary::symbol(const std::string& name) const { return handle_ ? dlsym(handle_.get(), name.c_str()) : nullptr; }

// Generated libraries are never unloaded: the OpenMP runtime they pull in keeps idle worker threads
// and thread_local scratch whose code must stay mapped (dlclose of libgomp under live threads crashes).
void SharedLibrary::closeHandle(void*) {}

namespace {

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// Writes through a temporary name and renames, so concurrent compilations never see half a file.
bool writeAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!(out << text)) return false;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return !ec;
}

std::string lineOf(const std::string& text, int line) {
  std::istringstream in(text);
  std::string l;
  for (int i = 1; std::getline(in, l); ++i)
    if (i == line) return l;
  return "";
}

// The first "file:line:col: error: message" of the compiler's output, with the source line quoted.
Diagnostic compileError(const std::string& source, const std::string& sourcePath, const std::string& log, int status) {
  static const std::regex kError(R"(([^\s:]+):(\d+):(\d+): (?:fatal )?error: (.*))");
  std::smatch m;
  std::istringstream in(log);
  std::string l;
  while (std::getline(in, l)) {
    if (!std::regex_search(l, m, kError)) continue;
    int line = std::stoi(m[2].str()), col = std::stoi(m[3].str());
    Diagnostic d = makeError("the generated C++ does not compile: " + m[4].str(), SourceLocation{sourcePath, line, col, ""});
    d.notes.push_back("generated source line " + std::to_string(line) + ": " + lineOf(source, line));
    d.notes.push_back("compiler output (head):\n" + log.substr(0, 2000));
    return d;
  }
  Diagnostic d = makeError("the compiler failed (exit status " + std::to_string(status) + ") on " + sourcePath);
  d.notes.push_back("compiler output (head):\n" + log.substr(0, 2000));
  return d;
}

}  // namespace

Expected<CompiledObject> compileSource(const std::string& source, const CompileOptions& options) {
  std::string dir = options.cacheDir.empty() ? defaultCacheDir() : options.cacheDir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return makeError("cannot create the kernel cache directory " + dir + ": " + ec.message());
  std::string cxx = compilerOf(options), flags = compileFlags(options);
  std::string key = hashHex(cxx + "\n" + flags + "\n" + source);
  CompiledObject obj{dir + "/" + key + ".cpp", dir + "/" + key + ".so", false, 0};
  if (fs::exists(obj.objectPath)) {
    obj.cacheHit = true;
    return obj;
  }
  if (!fs::exists(obj.sourcePath) && !writeAtomically(obj.sourcePath, source))
    return makeError("cannot write the generated source " + obj.sourcePath);
  std::string tmpObject = obj.objectPath + ".tmp." + std::to_string(::getpid());
  std::string logPath = dir + "/" + key + ".log." + std::to_string(::getpid());
  std::string cmd = shellQuote(cxx) + " " + flags + " -o " + shellQuote(tmpObject) + " " + shellQuote(obj.sourcePath) + " > " +
                    shellQuote(logPath) + " 2>&1";
  auto start = std::chrono::steady_clock::now();
  int status = std::system(cmd.c_str());
  obj.compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string log = readWhole(logPath);
  fs::remove(logPath, ec);
  if (status != 0) {
    fs::remove(tmpObject, ec);
    return compileError(source, obj.sourcePath, log, status);
  }
  fs::rename(tmpObject, obj.objectPath, ec);
  if (ec) return makeError("cannot move the compiled object into the cache: " + ec.message());
  return obj;
}

Expected<SharedLibrary> loadLibrary(const std::string& objectPath) {
  // libgomp reads its wait policy once, when the first generated library pulls it in. Spinning
  // workers (its default) are fast on an idle machine but stall every barrier by whole scheduler
  // slices on an oversubscribed one (measured: softmax 2 threads 14.7 ms spinning, 0.13 ms passive
  // on the shared 2-core build host), so passive unless the user chose otherwise.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  void* h = dlopen(objectPath.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h) {
    const char* why = dlerror();
    return makeError("cannot load " + objectPath + ": " + (why ? why : "unknown dlopen error"));
  }
  return SharedLibrary(h, objectPath);
}

}  // namespace gir::codegen::cpu
