// Shared by the fuzz targets (docs/fuzzing.md): what a target may assert, and the input as text.
// A target returns normally for every input the product rejects with an error value; a crash, a
// sanitizer report or a failed GIR_FUZZ_CHECK is a finding.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

// libFuzzer's entry point, also called by ReplayMain.cpp in builds without libFuzzer.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace gir::fuzz {

inline std::string asText(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

[[noreturn]] inline void fail(const char* file, int line, const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n%s\n", file, line, what, detail.c_str());
  std::abort();
}

}  // namespace gir::fuzz

// An invariant of the product (a round trip, an oracle's verdict), not an input check.
#define GIR_FUZZ_CHECK(cond, detail) \
  do {                               \
    if (!(cond)) ::gir::fuzz::fail(__FILE__, __LINE__, #cond, (detail)); \
  } while (0)
