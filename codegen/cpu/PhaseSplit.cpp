// Stride-2 reads through even and odd phases (PhaseSplit.h).
#include "codegen/cpu/PhaseSplit.h"

#include <algorithm>

namespace gir::codegen::cpu {

namespace {

std::string phasesName(const EmitContext& c, BufferId b) { return c.names[b.value] + "_phases"; }

bool writtenInGroup(const EmitContext& c, const LoopGroup& grp, BufferId b) {
  return std::any_of(grp.nodes.begin(), grp.nodes.end(), [&](NodeId id) {
    const Node& n = c.g.node(id);
    return std::any_of(n.outputs.begin(), n.outputs.end(), [&](SliceId s) { return c.g.slice(s).buffer == b; });
  });
}

}  // namespace

bool readsPhases(const EmitContext& c, const LoopGroup& grp, size_t k, size_t input, const std::vector<bool>& unitArrays) {
  const NestOperand& op = grp.nests[k].inputs[input];
  BufferId b = c.g.slice(op.slice).buffer;
  if (!grp.fused || op.staged || !unitArrays[b.value] || grp.extents.empty() || grp.extents.back() < kPhaseSplitMinRun) return false;
  if (op.strides.back() != 2 || std::any_of(op.strides.begin(), op.strides.end(), [](int64_t s) { return s % 2 != 0; })) return false;
  InstanceOffset at = instanceOffset(c, op.slice);
  return at.unitPrefix.empty() && at.offset.isConstant() && at.offset.constant() >= 0 && !writtenInGroup(c, grp, b);
}

namespace {

// The buffers that some member of the group reads through phases, each once, in the order first read.
std::vector<BufferId> phaseSplitBuffers(const EmitContext& c, const LoopGroup& grp, const std::vector<bool>& unitArrays) {
  std::vector<BufferId> out;
  for (size_t k = 0; k < grp.nodes.size(); ++k)
    for (size_t i = 0; i < grp.nests[k].inputs.size(); ++i) {
      BufferId b = c.g.slice(grp.nests[k].inputs[i].slice).buffer;
      if (readsPhases(c, grp, k, i, unitArrays) && std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    }
  return out;
}

}  // namespace

void emitPhaseSplits(CodeWriter& w, const EmitContext& c, const LoopGroup& grp, const std::vector<bool>& unitArrays) {
  for (BufferId b : phaseSplitBuffers(c, grp, unitArrays)) {
    int64_t n = c.schedule.buffers[b.value].instanceSize;
    std::string phases = phasesName(c, b);
    w.line("alignas(64) float " + phases + "[2][" + std::to_string((n + 1) / 2) + "];  // %" + c.g.buffer(b).name +
           "'s even and odd elements: read at stride 2 (docs/cpu.md, \"Stride-2 reads\")");
    w.line("girDeinterleave(" + c.names[b.value] + ", " + phases + "[0], " + phases + "[1], " + std::to_string(n) + ");");
  }
}

std::string phaseBase(const EmitContext& c, SliceId slice) {
  int64_t at = instanceOffset(c, slice).offset.constant();
  std::string phase = phasesName(c, c.g.slice(slice).buffer) + "[" + std::to_string(at % 2) + "]";
  return at / 2 == 0 ? phase : phase + " + " + std::to_string(at / 2);
}

std::vector<int64_t> phaseStrides(const std::vector<int64_t>& strides) {
  std::vector<int64_t> out;
  for (int64_t s : strides) out.push_back(s / 2);
  return out;
}

}  // namespace gir::codegen::cpu
