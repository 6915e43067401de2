// `gir hardware NAME|FILE`: load, validate and print a hardware description.
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/hw/HardwareDesc.h"

namespace gir::cli {

int runHardware(const CommandArgs& argv) {
  auto args = parseArgs(argv, {}, {});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1) return reportBadInput(makeError("usage: gir hardware NAME|FILE"));
  auto hw = loadHardwareByName(args->positional[0]);
  if (!hw) return reportBadInput(hw.error());
  std::cout << hardwareToJson(*hw);
  return kExitOk;
}

}  // namespace gir::cli
