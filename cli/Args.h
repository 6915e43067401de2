// Command-line arguments of one `gir` subcommand: positionals, --flags and --options with values.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/Expected.h"

namespace gir::cli {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // --name value, or --name=value
  std::set<std::string> flags;                 // --name

  bool has(const std::string& flag) const { return flags.count(flag) > 0; }
  std::string option(const std::string& name, const std::string& def = "") const {
    auto it = options.find(name);
    return it == options.end() ? def : it->second;
  }
  bool hasOption(const std::string& name) const { return options.count(name) > 0; }
};

// valueOptions: names (without --) that take a value; boolFlags: names that do not. Anything else is an error.
Expected<Args> parseArgs(const std::vector<std::string>& argv, const std::set<std::string>& valueOptions,
                         const std::set<std::string>& boolFlags);

// Exit codes shared by every subcommand.
// --NAME as an integer of at least `min` (`def` when absent). The error names the option and quotes
// the text: not a number, trailing characters, out of range (strtoull would read "abc" as 0).
Expected<int64_t> integerOption(const Args& args, const std::string& name, int64_t def, int64_t min = 0);

constexpr int kExitOk = 0;
constexpr int kExitFinding = 1;
constexpr int kExitBadInput = 2;

// Prints the diagnostic on stderr and returns kExitBadInput.
int reportBadInput(const Diagnostic& d);
// Writes text to path atomically (temp file + rename) or to stdout when path is "-" or empty.
Status writeOutput(const std::string& path, const std::string& text);
Expected<std::string> readFile(const std::string& path);

}  // namespace gir::cli
