// Reading whole files and writing them atomically: a crash mid-save never loses the previous file.
#pragma once

#include <string>

#include "core/Expected.h"

namespace gir {

Expected<std::string> readWholeFile(const std::string& path);
// Writes to PATH.tmp-XXXX in the same directory, flushes and fsyncs it, then renames over PATH.
Status writeFileAtomically(const std::string& path, const std::string& contents);

}  // namespace gir
