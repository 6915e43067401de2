// The GPU rendering of the schedule: kernel names' node lists, identifiers, and the register and
// shared-array layouts the schedule's placements imply.
#include "codegen/gpu/GpuPlan.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/gir/Verifier.h"

namespace gir::gpu {

namespace {

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.empty() ? "buf" : out;
}

// The schedule's placement in CUDA/HIP terms: nothing is decided here.
BufferPlan renderPlacement(const Graph& g, const codegen::BufferPlan& sp, int64_t lanes) {
  BufferPlan bp;
  bp.kernel = sp.kernel;
  switch (sp.placement) {
    case codegen::Placement::Global:
      bp.spilled = sp.used && !sp.deviceLevel && g.buffer(sp.buffer).role == BufferRole::Temp;
      if (bp.spilled) bp.spillReason = sp.why;
      break;
    case codegen::Placement::PerUnit:
    case codegen::Placement::PerBlockUnits:  // a warp's registers outlive its __syncthreads
      bp.placement = Placement::Registers;
      bp.unitExtent = sp.instanceSize;
      bp.slots = std::max<int64_t>((sp.instanceSize + lanes - 1) / lanes, 1);
      break;
    case codegen::Placement::PerBlock:
      bp.placement = Placement::Shared;
      bp.blockScale = sp.loStride;
      bp.blockBase = sp.loBase;
      bp.blockExtent = sp.instanceSize;
      break;
  }
  return bp;
}

void renderBuffers(GpuPlan& p) {
  const Graph& g = p.graph;
  p.buffers.clear();
  std::set<std::string> idents;
  for (const codegen::BufferPlan& sp : p.schedule.buffers) {
    BufferPlan bp = renderPlacement(g, sp, p.target.lanes);
    std::string prefix = bp.placement == Placement::Registers ? "r_" : bp.placement == Placement::Shared ? "s_" : "g_";
    std::string id = prefix + sanitize(g.buffer(sp.buffer).name);
    while (idents.count(id)) id += "_";
    idents.insert(id);
    bp.ident = id;
    p.buffers.push_back(std::move(bp));
  }
}

}  // namespace

int64_t sliceDisplacement(const MemorySlice& s, int64_t e) {
  int64_t disp = 0;
  for (size_t d = s.shape.size(); d-- > 0;) {
    disp += (e % s.shape[d]) * s.strides[d];
    e /= s.shape[d];
  }
  return disp;
}


Expected<GpuPlan> planGpu(const Graph& input, const GpuTarget& target) {
  // Verified before compacting: compaction orders the nodes and asserts the graph has no cycle.
  if (auto st = verifyGraph(input); !st) return st.takeError();
  GpuPlan p;
  p.graph = input.compacted();
  p.target = target;
  const Graph& g = p.graph;
  if (g.unitsPerBlock * target.lanes > target.maxThreadsPerBlock)
    return makeError("block=" + std::to_string(g.unitsPerBlock) + " units of " + std::to_string(target.lanes) + " lanes make " +
                     std::to_string(g.unitsPerBlock * target.lanes) + " threads per block; " + target.name + " allows " +
                     std::to_string(target.maxThreadsPerBlock), SourceLocation{"", 0, 0, "graph @" + g.name});
  for (const auto& b : g.buffers())
    if (b.numel() >= (int64_t{1} << 31))
      return makeError("buffer %" + b.name + " has " + std::to_string(b.numel()) + " elements; the GPU emitter indexes with 32-bit integers");
  auto schedule = codegen::buildSchedule(g, codegen::ScheduleTarget::gpu(target.name, target.lanes));
  if (!schedule) return schedule.takeError();
  p.schedule = std::move(*schedule);
  for (const auto& k : p.schedule.kernels) p.kernels.push_back(k.program);
  p.sliceRel = p.schedule.sliceRel;
  renderBuffers(p);
  return p;
}

}  // namespace gir::gpu
