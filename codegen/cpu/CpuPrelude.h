// The fixed head of every generated CPU source (includes, scratch, byte counter, vectorizable math).
#pragma once

#include <string_view>

namespace gir::codegen::cpu {

std::string_view cpuPrelude();

}  // namespace gir::codegen::cpu
