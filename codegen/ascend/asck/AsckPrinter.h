// Canonical text of a .asck kernel; print(parse(print(p))) == print(p).
#pragma once

#include <string>

#include "codegen/ascend/asck/AsckProgram.h"

namespace gir::ascend {

std::string printAsck(const Program& p);
std::string printRef(const Program& p, const RegionRef& r);

}  // namespace gir::ascend
