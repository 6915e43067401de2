// Stride-2 reads of a unit's own array through its even and odd phases (docs/cpu.md, "Stride-2
// reads"). A stride-2 convolution's taps read its padded window at every other element: GCC spells
// each tap's vector as two loads, two cross-lane permutes and a blend, and depthwise + SiLU b32 spent a
// quarter of its time there. Split once into even and odd elements (four shuffles per 16 floats), the
// window serves every tap with plain loads. Shared by the CPU emitter and its tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/cpu/CpuNodeEmitter.h"
#include "codegen/schedule/FusedLoops.h"

namespace gir::codegen::cpu {

// The shortest innermost run worth a split: below one 8-float vector the strided loads cost little.
constexpr int64_t kPhaseSplitMinRun = 8;

// Whether input `input` of member k of a fused group reads its buffer through the buffer's phases: the
// buffer is a unit's own array (`unitArrays`, per buffer id) that no member of the group writes, the
// slice sits at a fixed place in it, and the operand walks it at stride 2 in the innermost loop, of at
// least kPhaseSplitMinRun iterations, and at even strides in the others.
bool readsPhases(const EmitContext& c, const LoopGroup& grp, size_t k, size_t input, const std::vector<bool>& unitArrays);

// The declaration of each such buffer's phases, `name_phases[2][(n + 1) / 2]`, and the prelude's
// girDeinterleave that fills them; emitted before the group's loops.
void emitPhaseSplits(CodeWriter& w, const EmitContext& c, const LoopGroup& grp, const std::vector<bool>& unitArrays);

// The base pointer of a phase-split read: the phase of the slice's first element, at half its offset.
std::string phaseBase(const EmitContext& c, SliceId slice);

// The operand's strides in its phase: every stride halved.
std::vector<int64_t> phaseStrides(const std::vector<int64_t>& strides);

}  // namespace gir::codegen::cpu
