// Helpers shared by the tests: paths to the source tree, golden-file comparison with GIR_BLESS=1.
#pragma once

#include <cstddef>
#include <string>

namespace gir::test {

// Built with AddressSanitizer (g++ defines __SANITIZE_ADDRESS__, clang answers __has_feature): time and
// memory bounds, which hold for the product build, do not apply there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif
#else
constexpr bool kSanitizedBuild = false;
#endif

std::string sourcePath(const std::string& relative);  // GIR_SOURCE_DIR/relative
std::string binaryPath(const std::string& relative);  // GIR_BINARY_DIR/relative
std::string readText(const std::string& path);          // empty when missing
void writeText(const std::string& path, const std::string& text);
bool blessMode();  // GIR_BLESS=1: golden files are rewritten from the actual output

// Non-overlapping occurrences of `needle` in `text` (counting lines of emitted source).
size_t countOf(const std::string& text, const std::string& needle);

// Runs a shell command, capturing stdout+stderr; returns the exit code.
int runCommand(const std::string& command, std::string& output);

}  // namespace gir::test
