// Argument parsing and file helpers shared by the subcommands.
#include "cli/Args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/AtomicFile.h"

namespace gir::cli {

Expected<int64_t> integerOption(const Args& args, const std::string& name, int64_t def, int64_t min) {
  if (!args.hasOption(name)) return def;
  std::string v = args.option(name);
  errno = 0;
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  std::string bound = min == 0 ? "a non-negative integer" : min == 1 ? "a positive integer" : "an integer of at least " + std::to_string(min);
  if (v.empty() || *end != '\0' || errno == ERANGE || n < min)
    return makeError("--" + name + " expects " + bound + ", got '" + v + "'");
  return static_cast<int64_t>(n);
}

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
