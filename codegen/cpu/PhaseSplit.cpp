// Stride-2 reads through even and odd phases (PhaseSplit.h).
#include "codegen/cpu/PhaseSplit.h"

#include <algorithm>

namespace gir::codegen::cpu {

namespace {

std::string phasesName(const EmitContext& c, BufferId b) { return c.names[b.value] + "_phases"; }

bool even(int64_t s) { return s % 2 == 0; }

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
  if (op.strides.back() != 2 || !std::all_of(op.strides.begin(), op.strides.end(), even)) return false;
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

// An ew.copy of an immediate: a constant, whatever the loop indices.
bool constantFill(const Node& n) {
  if (n.kind() != NodeKind::Elementwise || !n.inputs.empty()) return false;
  const auto& p = std::get<ElementwisePayload>(n.payload);
  return p.op == ElementwiseOp::Copy && p.operands.size() == 1 && p.operands[0].isImmediate();
}

}  // namespace

PhaseWrite phaseWriteOf(const EmitContext& c, const LoopGroup& grp) {
  if (!grp.fused || grp.nodes.size() != 1) return PhaseWrite::None;
  const Node& n = c.g.node(grp.nodes[0]);
  const NestOperand& out = grp.nests[0].output;
  InstanceOffset at = instanceOffset(c, out.slice);
  if (n.kind() == NodeKind::Reduce || out.staged || !at.unitPrefix.empty() || !at.offset.isConstant() || at.offset.constant() < 0)
    return PhaseWrite::None;
  if (std::any_of(out.strides.begin(), out.strides.end(), [](int64_t s) { return s < 0; })) return PhaseWrite::None;
  if (out.strides.empty()) return PhaseWrite::Strided;  // one element
  if (!std::all_of(out.strides.begin(), out.strides.end() - 1, even)) return PhaseWrite::None;
  if (even(out.strides.back())) return PhaseWrite::Strided;
  if (out.strides.back() != 1) return PhaseWrite::None;
  const std::vector<NestOperand>& in = grp.nests[0].inputs;
  if (n.kind() == NodeKind::Move && in.size() == 1 && !in[0].staged && in[0].strides.back() == 1) return PhaseWrite::Deinterleave;
  return constantFill(n) ? PhaseWrite::Fill : PhaseWrite::None;
}

std::vector<bool> phaseOnlyArrays(const EmitContext& c, const std::vector<LoopGroup>& groups, const std::vector<BufferHome>& homes,
                                  const std::vector<bool>& unitArrays) {
  std::vector<bool> read(unitArrays.size(), false), fits = unitArrays;
  for (const LoopGroup& grp : groups)
    for (size_t k = 0; k < grp.nodes.size(); ++k) {
      for (size_t i = 0; i < grp.nests[k].inputs.size(); ++i) {
        size_t b = c.g.slice(grp.nests[k].inputs[i].slice).buffer.value;
        read[b] = true;
        if (!readsPhases(c, grp, k, i, unitArrays)) fits[b] = false;
      }
      for (SliceId s : c.g.node(grp.nodes[k]).outputs)
        if (phaseWriteOf(c, grp) == PhaseWrite::None) fits[c.g.slice(s).buffer.value] = false;
    }
  for (const BufferHome& home : homes)  // a buffer that lives in the array names its elements in place
    if (home.kind != HomeKind::Own) fits[c.g.slice(home.slice).buffer.value] = false;
  for (size_t b = 0; b < fits.size(); ++b) fits[b] = fits[b] && read[b];
  return fits;
}

PhaseWrite phaseRowsOf(const EmitContext& c, const LoopGroup& grp, const StageBuffers& buffers) {
  PhaseWrite how = phaseWriteOf(c, grp);
  bool rows = how == PhaseWrite::Deinterleave || how == PhaseWrite::Fill;
  return rows && buffers.phaseOnly[c.g.slice(grp.nests[0].output.slice).buffer.value] ? how : PhaseWrite::None;
}

std::string phasesDeclaration(const EmitContext& c, BufferId b, const std::string& comment) {
  int64_t n = c.schedule.buffers[b.value].instanceSize;
  return "alignas(64) float " + phasesName(c, b) + "[2][" + std::to_string((n + 1) / 2) + "];  // " + comment;
}

void emitPhaseSplits(CodeWriter& w, const EmitContext& c, const LoopGroup& grp, const StageBuffers& buffers) {
  for (BufferId b : phaseSplitBuffers(c, grp, buffers.unitArrays)) {
    if (buffers.phaseOnly[b.value]) continue;  // its writers filled the phases
    int64_t n = c.schedule.buffers[b.value].instanceSize;
    std::string phases = phasesName(c, b);
    w.line(phasesDeclaration(c, b, "%" + c.g.buffer(b).name + "'s even and odd elements: read at stride 2 (docs/cpu.md, \"Stride-2 reads\")"));
    w.line("girDeinterleave(" + c.names[b.value] + ", " + phases + "[0], " + phases + "[1], " + std::to_string(n) + ");");
  }
}

std::string phaseElement(const EmitContext& c, BufferId b, int64_t at) {
  std::string phase = phasesName(c, b) + "[" + std::to_string(at % 2) + "]";
  return at / 2 == 0 ? phase : phase + " + " + std::to_string(at / 2);
}

std::string phaseBase(const EmitContext& c, SliceId slice) {
  return phaseElement(c, c.g.slice(slice).buffer, instanceOffset(c, slice).offset.constant());
}

std::vector<int64_t> phaseStrides(const std::vector<int64_t>& strides) {
  std::vector<int64_t> out;
  for (int64_t s : strides) out.push_back(s / 2);
  return out;
}

}  // namespace gir::codegen::cpu
