// The fixed head of every generated CPU source (includes, scratch, byte counter, vectorizable math).
#pragma once

#include <string_view>

namespace gir::codegen::cpu {

std::string_view cpuPrelude();

// Lines that open and close a region of functions compiled with 512-bit vectors preferred (GCC's
// default tuning for -march=native keeps 256 on most AVX-512 machines). A kernel that computes a
// transcendental is such a region, and so is the calibration's exp rate (docs/cpu.md, "Vector width").
std::string_view wideVectorsBegin();
std::string_view wideVectorsEnd();

}  // namespace gir::codegen::cpu
