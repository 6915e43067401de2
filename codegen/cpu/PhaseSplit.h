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

// How a fused group of one member can write a unit array that is kept only as its phases.
enum class PhaseWrite {
  None,          // it cannot: the array has to exist whole
  Strided,       // all its strides are even: into one phase at half the strides, its loops as they are
  Deinterleave,  // a move of unit-stride rows: girDeinterleave splits each row into the phases
  Fill,          // a constant over unit-stride rows: each row's even and odd elements filled
};
PhaseWrite phaseWriteOf(const EmitContext& c, const LoopGroup& grp);

// Per buffer id: the stage's unit arrays that are kept only as their phases, never whole. Every read
// of such an array goes through its phases (readsPhases), and every writer writes the phases itself
// (phaseWriteOf), so no array is copied into phases once it is complete: a stride-2 convolution's
// window is built from the input straight into them.
// A buffer that lives in the array (`homes`, BufferHomes.h) names its elements in place, so keeps it whole.
std::vector<bool> phaseOnlyArrays(const EmitContext& c, const std::vector<LoopGroup>& groups, const std::vector<BufferHome>& homes,
                                  const std::vector<bool>& unitArrays);

// The group's Deinterleave or Fill writing of a phase-only array (spelled row by row, not through the
// group's loops), or None.
PhaseWrite phaseRowsOf(const EmitContext& c, const LoopGroup& grp, const StageBuffers& buffers);

// The declaration of a phase-only array: `alignas(64) float name_phases[2][(n + 1) / 2];`.
std::string phasesDeclaration(const EmitContext& c, BufferId b, const std::string& comment);

// The declaration of the phases of each buffer the group reads through them and that is not phase-only,
// `name_phases[2][(n + 1) / 2]`, and the prelude's girDeinterleave that fills them; emitted before the
// group's loops.
void emitPhaseSplits(CodeWriter& w, const EmitContext& c, const LoopGroup& grp, const StageBuffers& buffers);

// A pointer to element `at` of buffer b's instance in its phases: phase at % 2, at at / 2.
std::string phaseElement(const EmitContext& c, BufferId b, int64_t at);

// The base pointer of a read or write through phases: the phase of the slice's first element, at half
// its offset.
std::string phaseBase(const EmitContext& c, SliceId slice);

// The operand's strides in its phase: every stride halved.
std::vector<int64_t> phaseStrides(const std::vector<int64_t>& strides);

}  // namespace gir::codegen::cpu
