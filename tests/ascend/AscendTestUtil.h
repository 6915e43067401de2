// Shared helpers of the ascend tests: the corpus list, loading kernels and targets, a fast oracle setting.
#pragma once

#include <string>
#include <vector>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckProgram.h"
#include "codegen/ascend/asck/AsckTarget.h"

namespace gir::test {

std::vector<std::string> ascendCorpus();  // absolute paths of tests/ascend/corpus/*.asck, sorted
ascend::Program loadKernelOrFail(const std::string& path);
ascend::Target targetOrFail(const std::string& name);
// Exhaustive up to 64 paths, else all-then, all-else and 16 random; one latency seed; no robust check.
ascend::OracleOptions quickOracle();
std::string stem(const std::string& path);

}  // namespace gir::test
