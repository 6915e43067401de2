// Argument parsing and file helpers shared by the subcommands.
#include "cli/Args.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/AtomicFile.h"

namespace gir::cli {

Expected<Args> parseArgs(const std::vector<std::string>& argv, const std::set<std::string>& valueOptions,
                         const std::set<std::string>& boolFlags) {
  Args out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.size() < 2 || a[0] != '-' || a == "-") { out.positional.push_back(a); continue; }
    std::string name = a.substr(a[1] == '-' ? 2 : 1);
    std::string value;
    bool hasValue = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      hasValue = true;
    }
    if (valueOptions.count(name)) {
      if (!hasValue) {
        if (i + 1 >= argv.size()) return makeError("option '--" + name + "' expects a value");
        value = argv[++i];
      }
      out.options[name] = value;
    } else if (boolFlags.count(name) && !hasValue) {
      out.flags.insert(name);
    } else {
      return makeError("unknown option '" + a + "'");
    }
  }
  return out;
}

int reportBadInput(const Diagnostic& d) {
  std::cerr << d.str() << "\n";
  return kExitBadInput;
}

Status writeOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return success();
  }
  return writeFileAtomically(path, text);
}

Expected<std::string> readFile(const std::string& path) { return readWholeFile(path); }

}  // namespace gir::cli
