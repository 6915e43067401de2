// Compiling generated C++ with the system compiler into a shared object kept in a cache directory
// keyed by the hash of source, compiler and flags, and loading it with dlopen (docs/cpu.md, "Compiling and loading").
// Compiler errors come back as a Diagnostic quoting the generated source line, never swallowed.
#pragma once

#include <memory>
#include <string>

#include "core/Expected.h"

namespace gir::codegen::cpu {

struct CompileOptions {
  // Where shared objects live. Empty: $GIR_CACHE_DIR, else $XDG_CACHE_HOME/gir-workbench, else
  // $HOME/.cache/gir-workbench, else /tmp/gir-workbench-cache.
  std::string cacheDir;
  std::string compiler;          // empty: $CXX, else "c++"
  std::string optLevel = "-O3";  // tests may pass -O1 to bound compile time
  bool nativeArch = true;        // -march=native
};

std::string defaultCacheDir();
// The full command-line flags used (part of the cache key).
std::string compileFlags(const CompileOptions& options);

// A dlopen'ed library. It stays loaded for the life of the process (see closeHandle).
class SharedLibrary {
 public:
  SharedLibrary() = default;
  SharedLibrary(void* handle, std::string path) : handle_(handle, &closeHandle), path_(std::move(path)) {}
  void* symbol(const std::string& name) const;
  const std::string& path() const { return path_; }
  bool loaded() const { return handle_ != nullptr; }

 private:
  static void closeHandle(void* h);
  std::shared_ptr<void> handle_;
  std::string path_;
};

struct CompiledObject {
  std::string sourcePath;  // the generated source, kept next to the object for reading
  std::string objectPath;  // the shared object
  bool cacheHit = false;
  double compileSeconds = 0;
};

// Compiles `source` (or finds it in the cache). On a compiler error: the first error message, the
// generated source line it points at (quoted), the source path and the head of the compiler output.
Expected<CompiledObject> compileSource(const std::string& source, const CompileOptions& options = {});
Expected<SharedLibrary> loadLibrary(const std::string& objectPath);

// FNV-1a, 64 bits, as 16 hex digits: the cache key.
std::string hashHex(const std::string& text);

}  // namespace gir::codegen::cpu
