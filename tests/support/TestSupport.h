// Helpers shared by the tests: paths to the source tree, golden-file comparison with GIR_BLESS=1.
#pragma once

#include <cstddef>
#include <string>

namespace gir::test {

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
