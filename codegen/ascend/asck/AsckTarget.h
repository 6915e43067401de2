// The machine parameters the simulator and the insertion need: flags per pipe pair, sync cost, latencies.
#pragma once

#include <string>

#include "codegen/ascend/asck/AsckProgram.h"
#include "core/Expected.h"

namespace gir::ascend {

struct Target {
  std::string name = "ascend910";
  int flags = 4;
  int syncCost = 1;
  int latency[kNumPipes] = {4, 32, 64, 32, 128, 128, 64};  // contract defaults, Pipe order

  int cyclesOf(const Instr& i) const { return i.cycles > 0 ? i.cycles : latency[static_cast<int>(i.pipe)]; }
};

// NAME.target.json beside the input (dir may be empty) wins; else the hardware description NAME
// (hardware/NAME.json with an "ascend" section). Empty name: ascend910.
Expected<Target> loadTarget(const std::string& name, const std::string& dir);
Expected<Target> parseTargetJson(const std::string& text, const std::string& fileName, const std::string& name);

}  // namespace gir::ascend
