// The CUDA/HIP kernel emitter (docs/gpu.md, "The mapping"; paper section 7's NVIDIA adaptation). Each node
// runs on the lanes of its unit: lane l takes elements l, l + W, l + 2W, ... (W = lanes per unit),
// so a unit reads its contiguous slice coalesced, "each lane reads n elements with stride W".
// Register arrays follow the same layout (unit-relative element q in lane q % W, slot q / W), so an
// aligned access is a plain register read; anything else is pulled from its owner lane by shuffles.
#include <algorithm>
#include <cctype>
#include <optional>
#include <map>
#include <set>
#include <sstream>

#include "codegen/gpu/GpuEmitter.h"
#include "codegen/gpu/GpuExpr.h"
#include "codegen/schedule/GuardDispatch.h"
#include "codegen/schedule/LaneChains.h"
#include "core/gir/Printer.h"

namespace gir::gpu {

namespace {

std::string str(int64_t v) { return std::to_string(v); }
// "a3", "e0": built by appending (GCC 12 warns falsely on `"a" + std::string&&`, its bug 105651).
std::string named(const char* prefix, int64_t v) {
  std::string s = prefix;
  s += std::to_string(v);
  return s;
}

// Lane loops are unrolled (register arrays need constant indices to stay in registers), up to a budget
// per kernel on the unrolled code: each unrolled iteration counts 1, and each pull in it counts its
// shuffles (one per slot it may read). A kernel over the budget is emitted with its loops rolled, so its
// arrays live in local memory (L1). NVVM's full unrolling at -O3 goes superlinear in that code: 9,632
// iterations that each pull a 32-slot transpose did not build in 100 s, while channel shuffle b32's
// 9,625 move iterations build in 6 s and run 4.7x faster unrolled (docs/gpu.md, "Unrolling").
constexpr int64_t kUnrollBudget = 12288;
constexpr const char* kUnroll = "#pragma unroll\n";

// The kernel's text with every `#pragma unroll` made `#pragma unroll 1`, and a comment saying why.
std::string rolled(const std::string& text, int64_t iterations) {
  std::string out = "\n// " + std::to_string(iterations) + " units of unrolled code (iterations and their pulls' shuffles), over the budget of " +
                    std::to_string(kUnrollBudget) + ": loops stay rolled and register arrays live in local memory.";
  const size_t len = std::string(kUnroll).size();
  size_t at = 0;
  for (size_t next; (next = text.find(kUnroll, at)) != std::string::npos; at = next + len) out += text.substr(at, next - at) + "#pragma unroll 1\n";
  return out + text.substr(at);
}

// How a loop hands elements to lanes: element e = W * t + lane - shift (+ extra for a reduce's row).
struct LaneLoop {
  int64_t shift = 0;
  std::string extra;          // e.g. "m * 1024", empty when none
  bool extraMultipleOfW = true;
};

class KernelWriter {
 public:
  explicit KernelWriter(const GpuPlan& p) : p_(p), g_(p.graph), W_(p.target.lanes), cuda_(p.target.api == GpuApi::Cuda) {}

  std::string run() {
    prelude();
    for (size_t k = 0; k < p_.kernels.size(); ++k) {
      if (p_.kernels[k].empty()) continue;
      std::ostringstream text;
      std::swap(os_, text);
      unrolled_ = 0;
      loopTrips_ = 1;
      kernel(static_cast<int>(k));
      std::swap(os_, text);
      os_ << (unrolled_ > kUnrollBudget ? rolled(text.str(), unrolled_) : text.str());
    }
    launcher();
    return os_.str();
  }

  static std::string kernelName(const GpuPlan& p, int k) { return ident(p.graph.name) + "_k" + str(k); }
  static std::string ident(const std::string& s) {
    std::string out;
    for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) ? "g" + out : out;
  }

 private:
  // `#pragma unroll` for a loop of `trips` iterations, counted against the kernel's budget.
  std::string unroll(int64_t trips) {
    unrolled_ += trips;
    loopTrips_ = trips;
    return kUnroll;
  }
  // A pull over slots [lo, hi] of the loop being written: its shuffles, on every unrolled iteration.
  std::string pull(const std::string& array, const std::string& lo, const std::string& hi, int64_t slots, const std::string& pos) {
    unrolled_ += slots * loopTrips_;
    return "gir_pull(" + array + ", " + lo + ", " + hi + ", " + pos + ")";
  }
  const BufferPlan& bufOf(SliceId s) const { return p_.buffers[g_.slice(s).buffer.value]; }
  bool isMemory(SliceId s) const { return bufOf(s).placement != Placement::Registers; }

  std::string shfl(const std::string& v, const std::string& src) const {
    return cuda_ ? "__shfl_sync(0xffffffffu, " + v + ", " + src + ")" : "__shfl(" + v + ", " + src + ")";
  }
  std::string shflXor(const std::string& v, const std::string& m) const {
    return cuda_ ? "__shfl_xor_sync(0xffffffffu, " + v + ", " + m + ")" : "__shfl_xor(" + v + ", " + m + ")";
  }
  std::string unitSync() const {
    return cuda_ ? "__syncwarp();" : "__builtin_amdgcn_fence(__ATOMIC_SEQ_CST, \"wavefront\"); __builtin_amdgcn_wave_barrier();";
  }

  void prelude() {
    os_ << "// Generated by GIR Workbench from @" << g_.name << " for " << p_.target.name << " ("
        << (cuda_ ? "CUDA" : "HIP") << ", " << W_ << " lanes per " << (cuda_ ? "warp" : "wavefront") << ").\n"
        << "// Mapping: unit u = " << (cuda_ ? "warp" : "wavefront") << " u, block = " << g_.unitsPerBlock << " units x " << W_
        << " lanes; lane l takes elements l, l+" << W_ << ", ... of a slice.\n"
        << (cuda_ ? "#include <cuda_runtime.h>\n" : "#include <hip/hip_runtime.h>\n") << "#include <math.h>\n\n";
    os_ << "#ifndef GIR_PULL_DEFINED\n#define GIR_PULL_DEFINED\n"
        << "// The value at unit-relative register position `pos` of array r, read from its owner lane.\n"
        << "// Only slots [lo, hi] can hold it; every lane takes part in every shuffle.\n"
        << "template <int N>\n__device__ __forceinline__ float gir_pull(const float (&r)[N], int lo, int hi, int pos) {\n"
        << "  float v = 0.0f;\n#pragma unroll\n  for (int s = 0; s < N; ++s) {\n    if (s < lo || s > hi) continue;\n"
        << "    float x = " << shfl("r[s]", "pos & " + str(W_ - 1)) << ";\n"
        << "    if (pos >= 0 && pos / " << W_ << " == s) v = x;\n  }\n  return v;\n}\n#endif\n";
    for (size_t b = 0; b < p_.buffers.size(); ++b)
      if (p_.buffers[b].spilled)
        os_ << "// %" << g_.buffers()[b].name << " lives in global memory: " << p_.buffers[b].spillReason << ".\n";
  }

  // Global buffers a kernel touches, and whether it writes them.
  std::vector<std::pair<uint32_t, bool>> params(int k) const {
    std::map<uint32_t, bool> m;
    for (NodeId id : p_.kernels[k]) {
      const Node& n = g_.node(id);
      for (SliceId s : n.inputs)
        if (bufOf(s).placement == Placement::Global) m.insert({g_.slice(s).buffer.value, false});
      for (SliceId s : n.outputs)
        if (bufOf(s).placement == Placement::Global) m[g_.slice(s).buffer.value] = true;
    }
    return {m.begin(), m.end()};
  }

  void kernel(int k) {
    kernel_ = k;
    auto ps = params(k);
    os_ << "\n__global__ void __launch_bounds__(" << g_.unitsPerBlock * W_ << ") " << kernelName(p_, k) << "(";
    for (size_t i = 0; i < ps.size(); ++i)
      os_ << (i ? ", " : "") << (ps[i].second ? "float* __restrict__ " : "const float* __restrict__ ") << p_.buffers[ps[i].first].ident;
    os_ << ") {\n  const int lane = threadIdx.x % " << W_ << ";\n  const int u = blockIdx.x * " << g_.unitsPerBlock << " + threadIdx.x / " << W_
        << ";\n  const int b = blockIdx.x;\n  (void)lane; (void)u; (void)b;\n";
    codegen::KernelChains chains = codegen::findLaneChains(g_, p_.schedule, k, W_);
    values_ = chains.valueBuffers;
    for (size_t bi = 0; bi < p_.buffers.size(); ++bi) {
      const BufferPlan& bp = p_.buffers[bi];
      if (bp.kernel != k || values_.count(static_cast<uint32_t>(bi))) continue;
      if (bp.placement == Placement::Shared)
        os_ << "  __shared__ float " << bp.ident << "[" << bp.blockExtent << "];  // %" << g_.buffers()[bi].name << ": block b's elements from "
            << bp.blockScale << " * b + " << bp.blockBase << "\n";
      if (bp.placement == Placement::Registers)
        os_ << "  float " << bp.ident << "[" << bp.slots << "];  // %" << g_.buffers()[bi].name << ": " << bp.unitExtent << " elements per unit\n";
    }
    readSince_.clear();
    writtenSince_.clear();
    // Runs of guarded nodes on disjoint unit domains are dispatched by binary search on u
    // (GuardDispatch.h; docs/gpu.md, "Guard dispatch").
    const auto& ids = p_.kernels[k];
    std::vector<std::optional<UnitDomain>> domains;
    for (NodeId id : ids) domains.push_back(guardOf(g_.node(id)));
    size_t nextChain = 0;
    for (size_t i = 0; i < ids.size();) {
      if (nextChain < chains.chains.size() && chains.chains[nextChain].begin == i) {
        chain(chains.chains[nextChain]);
        i = chains.chains[nextChain++].end;
        continue;
      }
      size_t end = codegen::disjointRunEnd(domains, i);
      if (end - i < codegen::kDispatchAtLeast) {
        node(ids[i++]);
        continue;
      }
      std::vector<NodeId> run;
      for (size_t j : codegen::byDomainStart(domains, i, end)) run.push_back(ids[j]);
      dispatchRun(run);
      i = end;
    }
    os_ << "}\n";
  }

  // The node's unit domain where the kernel's units do not all run it (a guard), else none.
  std::optional<UnitDomain> guardOf(const Node& n) const {
    if (n.isSync()) return std::nullopt;
    UnitDomain d = g_.domainOf(n);
    if (d.begin > 0 || d.end < blocks() * g_.unitsPerBlock) return d;
    return std::nullopt;
  }

  // The memory ordering of every node is decided first and emitted before the tree, where every lane
  // of every unit passes it: two nodes of the run never run in the same unit, so only the order
  // against what came before the run matters.
  void dispatchRun(const std::vector<NodeId>& run) {
    os_ << "  // " << run.size() << " nodes on disjoint unit domains: dispatched by binary search on u\n";
    for (NodeId id : run) orderMemory(g_.node(id));
    dispatchRange(run, 0, run.size());
  }

  void dispatchRange(const std::vector<NodeId>& run, size_t lo, size_t hi) {
    if (hi - lo == 1) return guardedBody(run[lo]);
    size_t mid = (lo + hi) / 2;
    os_ << "  if (u < " << g_.domainOf(g_.node(run[mid])).begin << ") {\n";
    dispatchRange(run, lo, mid);
    os_ << "  } else {\n";
    dispatchRange(run, mid, hi);
    os_ << "  }\n";
  }

  // Lanes of a unit see each other's memory writes only after a unit sync (__syncwarp on CUDA).
  void orderMemory(const Node& n) {
    std::set<uint32_t> r, w;
    for (SliceId s : n.inputs)
      if (isMemory(s)) r.insert(g_.slice(s).buffer.value);
    for (SliceId s : n.outputs)
      if (isMemory(s)) w.insert(g_.slice(s).buffer.value);
    bool need = false;
    for (uint32_t b : r) need = need || writtenSince_.count(b);
    for (uint32_t b : w) need = need || writtenSince_.count(b) || readSince_.count(b);
    if (need) {
      os_ << "  " << unitSync() << "  // the unit's lanes exchange elements through memory\n";
      readSince_.clear();
      writtenSince_.clear();
    }
    readSince_.insert(r.begin(), r.end());
    writtenSince_.insert(w.begin(), w.end());
  }

  void node(NodeId id) {
    const Node& n = g_.node(id);
    if (n.isSync()) {
      comment(id);
      return sync(n);
    }
    orderMemory(n);
    guardedBody(id);
  }

  void comment(NodeId id) {
    const Node& n = g_.node(id);
    os_ << "  // " << describeNode(g_, id) << (n.domain ? "  domain[" + str(n.domain->begin) + "," + str(n.domain->end) + ")" : "") << "\n";
  }

  // The node's comment, its domain guard and its code.
  void guardedBody(NodeId id) {
    const Node& n = g_.node(id);
    comment(id);
    UnitDomain d = g_.domainOf(n);
    bool guard = guardOf(n).has_value();
    std::string cond = d.begin > 0 ? "u >= " + str(d.begin) + " && u < " + str(d.end) : "u < " + str(d.end);
    os_ << (guard ? "  if (" + cond + ") {\n" : "  {\n");
    switch (n.kind()) {  // exhaustive: a new kind must get a lane mapping
      case NodeKind::Reduce: reduce(n); break;
      case NodeKind::Move:
      case NodeKind::Elementwise:
      case NodeKind::Broadcast: elementwiseLike(n); break;
      case NodeKind::Sync: break;  // node() emits syncs; a guarded body is never one
    }
    os_ << "  }\n";
  }

  int64_t blocks() const { return (g_.units + g_.unitsPerBlock - 1) / g_.unitsPerBlock; }

  void sync(const Node& n) {
    switch (n.syncScope()) {
      case Scope::Block:
        os_ << "  __syncthreads();\n";
        readSince_.clear();
        writtenSince_.clear();
        return;
      case Scope::Unit: {
        bool memory = false;
        for (const auto* list : {&n.inputs, &n.outputs})
          for (SliceId s : *list) memory = memory || isMemory(s);
        if (memory) {
          os_ << "  " << unitSync() << "\n";
          readSince_.clear();
          writtenSince_.clear();
        } else {
          os_ << "  // registers: the exchange is done by shuffles, no barrier\n";
        }
        return;
      }
      case Scope::Lane: os_ << "  // lane scope: nothing to order\n"; return;
      case Scope::Device: return;  // a kernel boundary, never inside a kernel
    }
  }

  // The address expression of element `e` of a memory slice.
  std::string address(SliceId s, const std::string& e) const {
    const MemorySlice& sl = g_.slice(s);
    const BufferPlan& bp = bufOf(s);
    std::string off = affineExpr(sl.offset);
    if (bp.placement == Placement::Shared) {
      std::string blockStart = bp.blockScale ? str(bp.blockScale) + " * b" : "";
      if (bp.blockBase) blockStart += (blockStart.empty() ? "" : " + ") + str(bp.blockBase);
      if (!blockStart.empty()) off = "(" + off + " - (" + blockStart + "))";
    }
    std::string disp = displacementExpr(sl, e);
    return bp.ident + "[" + (disp == "0" ? off : off + " + " + disp) + "]";
  }

  // The value of element `e` (already declared as int `eVar`) of an input slice.
  std::string read(SliceId s, const std::string& eVar, const LaneLoop& loop, bool elementIsLoopLinear, bool guarded) {
    const MemorySlice& sl = g_.slice(s);
    const BufferPlan& bp = bufOf(s);
    if (bp.placement != Placement::Registers) {
      std::string a = address(s, eVar);
      return guarded ? "(on ? " + a + " : 0.0f)" : a;
    }
    int64_t rel = p_.sliceRel[s.value];
    if (codegen::isDenseSlice(sl) && elementIsLoopLinear) {
      int64_t c = rel - loop.shift;
      if (c % W_ == 0 && loop.extraMultipleOfW) {
        std::string slot = loop.extra.empty() ? "t + " + str(c / W_) : "t + (" + str(c) + " + " + loop.extra + ") / " + str(W_);
        return bp.ident + "[" + slot + "]";
      }
      if (loop.extra.empty()) {
        std::string lo = "t + " + str(floorDiv(c, W_));
        return pull(bp.ident, lo, lo + " + 1", 2, str(rel) + " + " + eVar);
      }
    }
    int64_t lo = rel, hi = rel;
    for (int64_t d = 0, n = sl.numel(); d < n; ++d) {  // exact slot range of this slice
      int64_t q = rel + sliceDisplacement(sl, d);
      lo = std::min(lo, q);
      hi = std::max(hi, q);
    }
    std::string disp = displacementExpr(sl, eVar);
    std::string pos = disp == "0" ? str(rel) : rel ? str(rel) + " + " + disp : disp;
    return pull(bp.ident, str(lo / W_), str(hi / W_), hi / W_ - lo / W_ + 1, pos);
  }

  // Writes value `v` to element `e` of the output; distributed loops own the element through `shift`.
  void write(SliceId s, const std::string& eVar, const std::string& v, bool guarded, const std::string& ind) {
    const BufferPlan& bp = bufOf(s);
    if (bp.placement != Placement::Registers) {
      os_ << ind << (guarded ? "if (on) " : "") << address(s, eVar) << " = " << v << ";\n";
      return;
    }
    int64_t rel = p_.sliceRel[s.value];
    os_ << ind << (guarded ? "if (on) " : "") << bp.ident << "[t + " << rel / W_ << "] = " << v << ";\n";
  }

  int64_t outputShift(SliceId out) const {
    if (bufOf(out).placement == Placement::Registers) return p_.sliceRel[out.value] % W_;
    return 0;
  }

  bool hazard(const Node& n) const { return codegen::overwritesWhatItReads(g_, n); }

  // A lane chain (codegen/schedule/LaneChains.h): one lane loop in which each element goes through every node; a value
  // buffer's element is a local of the iteration, named as its array would be.
  void chain(const codegen::LaneChain& c) {
    const auto& ids = p_.kernels[static_cast<size_t>(kernel_)];
    for (size_t j = c.begin; j < c.end; ++j) comment(ids[j]);
    for (size_t j = c.begin; j < c.end; ++j) orderMemory(g_.node(ids[j]));
    int64_t N = c.elements, T = (N + c.shift + W_ - 1) / W_;
    bool guarded = c.shift != 0 || N % W_ != 0;
    LaneLoop loop{c.shift, "", true};
    std::ostringstream body;
    std::swap(os_, body);
    for (size_t j = c.begin; j < c.end; ++j) {
      const Node& n = g_.node(ids[j]);
      std::vector<std::string> in;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        uint32_t b = g_.slice(n.inputs[i]).buffer.value;
        if (values_.count(b)) {
          in.push_back(p_.buffers[b].ident);
          continue;
        }
        in.push_back(named("c", static_cast<int64_t>(j - c.begin)) + "_" + str(static_cast<int64_t>(i)));
        os_ << "      const float " << in.back() << " = " << read(n.inputs[i], "e", loop, true, guarded) << ";\n";
      }
      SliceId out = n.outputs[0];
      uint32_t ob = g_.slice(out).buffer.value;
      if (values_.count(ob)) os_ << "      const float " << p_.buffers[ob].ident << " = " << valueOf(n, in) << ";\n";
      else write(out, "e", valueOf(n, in), guarded, "      ");
    }
    std::swap(os_, body);
    os_ << "  {\n";
    loopHeader("t", "e", T, c.shift, guarded ? N : -1, body.str());
    os_ << "    }\n  }\n";
  }

  // Move, elementwise and broadcast: lane l computes output elements e = W t + l - shift.
  void elementwiseLike(const Node& n) {
    SliceId out = n.outputs[0];
    int64_t N = g_.slice(out).numel(), shift = outputShift(out);
    int64_t T = (N + shift + W_ - 1) / W_;
    bool guarded = shift != 0 || N % W_ != 0;
    bool twoPhase = hazard(n);
    LaneLoop loop{shift, "", true};
    if (twoPhase) os_ << "    float h[" << T << "];  // the node reads all of its input before it writes\n";
    std::ostringstream body;
    std::vector<std::string> in;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      std::string eVar = "e";
      bool linear = true;
      if (n.kind() == NodeKind::Broadcast && g_.slice(n.inputs[i]).numel() == 1) {
        // One value for the whole unit: read (or pull) it once, before the loop.
        os_ << "    const float a" << i << " = " << read(n.inputs[i], "0", loop, false, false) << ";\n";
        in.push_back(named("a", static_cast<int64_t>(i)));
        continue;
      }
      if (n.kind() == NodeKind::Broadcast) {
        eVar = named("e", static_cast<int64_t>(i));
        body << "      const int " << eVar << " = " << broadcastSource(n, "e") << ";\n";
        linear = false;
      }
      body << "      const float a" << i << " = " << read(n.inputs[i], eVar, loop, linear, guarded) << ";\n";
      in.push_back(named("a", static_cast<int64_t>(i)));
    }
    std::string v = valueOf(n, in);
    if (twoPhase) {
      body << "      h[t] = " << v << ";\n";
      loopHeader("t", "e", T, shift, guarded ? N : -1, body.str());
      os_ << "    }\n";
      if (isMemory(out)) os_ << "    " << unitSync() << "\n";
      v = "h[t]";
    }
    std::ostringstream tail;
    std::swap(os_, tail);
    write(out, "e", v, guarded, "      ");
    std::swap(os_, tail);
    loopHeader("t", "e", T, shift, guarded ? N : -1, (twoPhase ? "" : body.str()) + tail.str());
    os_ << "    }\n";
  }

  // Opens `for (int t ...)` over a lane loop, declaring the element variable and `on` only when the body uses them.
  void loopHeader(const std::string& t, const std::string& e, int64_t T, int64_t shift, int64_t guardN, const std::string& body) {
    os_ << unroll(T) << "    for (int " << t << " = 0; " << t << " < " << T << "; ++" << t << ") {\n";
    if (uses(body, e) || guardN >= 0) os_ << "      const int " << e << " = " << W_ << " * " << t << " + lane" << (shift ? " - " + str(shift) : "") << ";\n";
    if (guardN >= 0) os_ << "      const bool on = " << (shift ? e + " >= 0 && " : "") << e << " < " << guardN << ";\n";
    os_ << body;
  }

  static bool uses(const std::string& text, const std::string& name) {
    for (size_t pos = text.find(name); pos != std::string::npos; pos = text.find(name, pos + 1)) {
      auto isId = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      bool before = pos == 0 || !isId(text[pos - 1]);
      bool after = pos + name.size() >= text.size() || !isId(text[pos + name.size()]);
      if (before && after) return true;
    }
    return false;
  }

  std::string valueOf(const Node& n, const std::vector<std::string>& in) const {
    if (n.kind() != NodeKind::Elementwise) return in[0];
    const auto& p = std::get<ElementwisePayload>(n.payload);
    std::string args[3];
    for (size_t k = 0; k < p.operands.size() && k < 3; ++k)
      args[k] = p.operands[k].isImmediate() ? floatLiteral(p.operands[k].value) : in[p.operands[k].input];
    // Division by a constant is a multiplication by its reciprocal, as the CPU's -freciprocal-math
    // allows: IEEE division has a slow-path branch per element that ends the basic block (docs/gpu.md,
    // "Lane chains").
    if (p.op == ElementwiseOp::Div && p.operands.size() == 2 && p.operands[1].isImmediate() && p.operands[1].value != 0) {
      args[1] = floatLiteral(1.0 / p.operands[1].value);
      return elementwiseExpr(ElementwiseOp::Mul, args);
    }
    return elementwiseExpr(p.op, args);
  }

  // The input element a broadcast output element `e` reads: its multi-index without the new axes.
  std::string broadcastSource(const Node& n, const std::string& e) const {
    const auto& p = std::get<BroadcastPayload>(n.payload);
    const auto& shape = g_.slice(n.outputs[0]).shape;
    std::vector<bool> isNew(shape.size(), false);
    for (int ax : p.axes) isNew[ax] = true;
    std::string out;
    int64_t inner = 1, inInner = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      if (!isNew[d] && shape[d] > 1) {
        std::string idx = "((" + e + " / " + str(inner) + ") % " + str(shape[d]) + ")";
        out = (out.empty() ? "" : out + " + ") + idx + (inInner > 1 ? " * " + str(inInner) : "");
      }
      if (!isNew[d]) inInner *= shape[d];
      inner *= shape[d];
    }
    return out.empty() ? "0" : out;
  }

  // The input element of a reduce for kept index `m` and reduced index `k` (row-major over each).
  std::string reduceElement(const Node& n, const std::string& m, const std::string& k, bool& trailing) const {
    const auto& p = std::get<ReducePayload>(n.payload);
    const auto& shape = g_.slice(n.inputs[0]).shape;
    std::vector<bool> red(shape.size(), false);
    for (int ax : p.axes) red[ax] = true;
    trailing = true;
    bool seenReduced = false;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      if (red[d]) seenReduced = true;
      else if (seenReduced) trailing = false;
    }
    std::string out;
    int64_t mInner = 1, kInner = 1, stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      if (shape[d] > 1) {
        const std::string& var = red[d] ? k : m;
        int64_t& inner = red[d] ? kInner : mInner;
        std::string idx = "((" + var + " / " + str(inner) + ") % " + str(shape[d]) + ")";
        out = (out.empty() ? "" : out + " + ") + idx + (stride > 1 ? " * " + str(stride) : "");
      }
      (red[d] ? kInner : mInner) *= shape[d];
      stride *= shape[d];
    }
    return out.empty() ? "0" : out;
  }

  void reduce(const Node& n) {
    const auto& p = std::get<ReducePayload>(n.payload);
    const MemorySlice& in = g_.slice(n.inputs[0]);
    int64_t K = 1;
    for (int ax : p.axes) K *= in.shape[ax];
    int64_t M = in.numel() / std::max<int64_t>(K, 1);
    if (columnsByLane(n, M)) return reduceColumnsByLane(n, M, K);
    if (K < W_ && M >= W_) return reduceAcrossOutputs(n, M, K);
    reduceWithinUnit(n, M, K);
  }

  // Whether a reduce can take the column path: its kept dims innermost (every reduced dim of the
  // input outside every kept one), the input a dense register slice starting at a lane-0 slot, M a
  // multiple of W, and the output neither overlapping the input nor shifted. Then element k*M + m
  // lives in lane m % W, and each lane reduces its own columns.
  bool columnsByLane(const Node& n, int64_t M) const {
    SliceId inS = n.inputs[0], out = n.outputs[0];
    const MemorySlice& in = g_.slice(inS);
    if (M % W_ != 0 || bufOf(inS).placement != Placement::Registers || !codegen::isDenseSlice(in) || p_.sliceRel[inS.value] % W_ != 0) return false;
    if (hazard(n) || outputShift(out) != 0) return false;
    const auto& axes = std::get<ReducePayload>(n.payload).axes;
    bool keptSeen = false;
    for (size_t d = 0; d < in.shape.size(); ++d) {
      if (in.shape[d] == 1) continue;
      bool reduced = std::find(axes.begin(), axes.end(), static_cast<int>(d)) != axes.end();
      if (reduced && keptSeen) return false;
      keptSeen = keptSeen || !reduced;
    }
    return true;
  }

  // A column strip in registers (columnsByLane): lane l sums columns l, l + W, ... down the rows
  // from its own slots, with no shuffle; the strip template (docs/scale.md) makes such boxes.
  void reduceColumnsByLane(const Node& n, int64_t M, int64_t K) {
    const auto& p = std::get<ReducePayload>(n.payload);
    SliceId inS = n.inputs[0], out = n.outputs[0];
    const int64_t T = M / W_, base = p_.sliceRel[inS.value] / W_;
    os_ << unroll(T) << "    for (int t = 0; t < " << T << "; ++t) {\n";
    if (bufOf(out).placement != Placement::Registers) os_ << "      const int m = " << W_ << " * t + lane;\n";  // the store's index
    os_ << "      " << reduceAccType(p.op) << " acc = " << reduceIdentityLiteral(p.op) << ";\n";
    os_ << unroll(K) << "      for (int k = 0; k < " << K << "; ++k) {\n";
    os_ << "        const float x = " << bufOf(inS).ident << "[" << base << " + k * " << T << " + t];\n";
    os_ << "        acc = " << reduceCombineExpr(p.op, "acc", "x") << ";\n      }\n";
    write(out, "m", "acc", false, "      ");
    os_ << "    }\n";
  }

  // Lanes split each row of K elements; a butterfly of shuffles combines the lanes (no barrier).
  void reduceWithinUnit(const Node& n, int64_t M, int64_t K) {
    const auto& p = std::get<ReducePayload>(n.payload);
    SliceId inS = n.inputs[0], out = n.outputs[0];
    bool trailing = true;
    std::string elem = reduceElement(n, "m", "k", trailing);
    int64_t shift = bufOf(inS).placement == Placement::Registers ? p_.sliceRel[inS.value] % W_ : 0;
    int64_t T = (K + shift + W_ - 1) / W_;
    bool guarded = shift != 0 || K % W_ != 0;
    bool linear = trailing && codegen::isDenseSlice(g_.slice(inS));
    LaneLoop loop{shift, M > 1 ? "m * " + str(K) : "", M == 1 || K % W_ == 0};
    if (!linear) loop = LaneLoop{shift, "", true};
    bool twoPhase = hazard(n);
    const std::string acc = reduceAccType(p.op);
    if (twoPhase) os_ << "    " << acc << " h[" << M << "];  // every row is reduced before any result is written\n";
    os_ << unroll(M) << "    for (int m = 0; m < " << M << "; ++m) {\n      " << acc << " acc = " << reduceIdentityLiteral(p.op) << ";\n";
    os_ << unroll(T) << "      for (int t = 0; t < " << T << "; ++t) {\n";
    std::string a = read(inS, "e", loop, linear, guarded);
    if (uses(a, "e") || guarded)
      os_ << "        const int k = " << W_ << " * t + lane" << (shift ? " - " + str(shift) : "") << ";\n";
    if (guarded) os_ << "        const bool on = " << (shift ? "k >= 0 && " : "") << "k < " << K << ";\n";
    if (uses(a, "e")) os_ << "        const int e = " << (linear ? (M > 1 ? "m * " + str(K) + " + k" : "k") : elem) << ";\n";
    std::string comb = reduceCombineExpr(p.op, "acc", "x");
    os_ << "        const float x = " << a << ";\n        " << (guarded ? "if (on) " : "") << "acc = " << comb << ";\n      }\n";
    os_ << "      for (int o = " << W_ / 2 << "; o > 0; o >>= 1) { const " << acc << " x = " << shflXor("acc", "o") << "; acc = " << comb << "; }\n";
    if (twoPhase) {
      os_ << "      h[m] = acc;\n    }\n";
      if (isMemory(out)) os_ << "    " << unitSync() << "\n";
      os_ << unroll(M) << "    for (int m = 0; m < " << M << "; ++m) {\n      const " << acc << " acc = h[m];\n";
    }
    writeReduced(out, "m", "acc");
    os_ << "    }\n";
  }

  // Every lane holds the row's result; its owner lane (or lane 0 for memory) stores it.
  void writeReduced(SliceId out, const std::string& m, const std::string& v) {
    const BufferPlan& bp = bufOf(out);
    if (bp.placement != Placement::Registers) {
      os_ << "      if (lane == 0) " << address(out, m) << " = " << v << ";\n";
      return;
    }
    int64_t rel = p_.sliceRel[out.value];
    std::string q = rel ? "(" + str(rel) + " + " + m + ")" : m;
    os_ << "      if (lane == " << q << " % " << W_ << ") " << bp.ident << "[" << q << " / " << W_ << "] = " << v << ";\n";
  }

  // Many short rows: lane l reduces rows l, l + W, ... on its own, serially.
  void reduceAcrossOutputs(const Node& n, int64_t M, int64_t K) {
    const auto& p = std::get<ReducePayload>(n.payload);
    SliceId inS = n.inputs[0], out = n.outputs[0];
    bool trailing = true;
    std::string elem = reduceElement(n, "m", "k", trailing);
    int64_t shift = outputShift(out);
    int64_t T = (M + shift + W_ - 1) / W_;
    bool guarded = shift != 0 || M % W_ != 0;
    bool twoPhase = hazard(n);
    const std::string acc = reduceAccType(p.op);
    if (twoPhase) os_ << "    " << acc << " h[" << T << "];  // every row is reduced before any result is written\n";
    os_ << unroll(T) << "    for (int t = 0; t < " << T << "; ++t) {\n";
    os_ << "      const int m = " << W_ << " * t + lane" << (shift ? " - " + str(shift) : "") << ";\n";
    if (guarded) os_ << "      const bool on = m >= 0 && m < " << M << ";\n";
    os_ << "      " << acc << " acc = " << reduceIdentityLiteral(p.op) << ";\n" << unroll(K) << "      for (int k = 0; k < " << K << "; ++k) {\n";
    os_ << "        const int e = " << elem << ";\n";
    os_ << "        const float x = " << read(inS, "e", LaneLoop{shift, "", true}, false, guarded) << ";\n";
    os_ << "        acc = " << reduceCombineExpr(p.op, "acc", "x") << ";\n      }\n";
    std::string v = "acc";
    if (twoPhase) {
      os_ << "      h[t] = acc;\n    }\n";
      if (isMemory(out)) os_ << "    " << unitSync() << "\n";
      os_ << unroll(T) << "    for (int t = 0; t < " << T << "; ++t) {\n      const int m = " << W_ << " * t + lane" << (shift ? " - " + str(shift) : "") << ";\n";
      if (guarded) os_ << "      const bool on = " << (shift ? "m >= 0 && " : "") << "m < " << M << ";\n";
      v = "h[t]";
    }
    write(out, "m", v, guarded, "      ");
    os_ << "    }\n";
  }

  void launcher() {
    std::string stream = cuda_ ? "cudaStream_t" : "hipStream_t";
    os_ << "\n// Runs the kernels in order (a device sync is the boundary between two launches).\n"
        << "// buffers[i] is the device array of entry i of the buffer table in the harness.\n"
        << "extern \"C\" int gir_launch_" << ident(g_.name) << "(float* const* buffers, " << stream << " stream) {\n";
    std::map<uint32_t, int> slot;
    int next = 0;
    for (uint32_t b = 0; b < p_.buffers.size(); ++b)
      if (p_.buffers[b].placement == Placement::Global) slot[b] = next++;
    for (size_t k = 0; k < p_.kernels.size(); ++k) {
      if (p_.kernels[k].empty()) continue;
      os_ << "  " << kernelName(p_, static_cast<int>(k)) << "<<<" << blocks() << ", " << g_.unitsPerBlock * W_ << ", 0, stream>>>(";
      auto ps = params(static_cast<int>(k));
      for (size_t i = 0; i < ps.size(); ++i) os_ << (i ? ", " : "") << "buffers[" << slot[ps[i].first] << "]";
      os_ << ");\n";
    }
    os_ << "  return static_cast<int>(" << (cuda_ ? "cudaGetLastError" : "hipGetLastError") << "());\n}\n";
  }

  const GpuPlan& p_;
  const Graph& g_;
  int64_t W_;
  bool cuda_;
  std::ostringstream os_;
  int64_t unrolled_ = 0;   // units of the current kernel's unrolled code (see kUnrollBudget)
  int64_t loopTrips_ = 1;  // trips of the lane loop being written
  std::set<uint32_t> readSince_, writtenSince_;
  int kernel_ = 0;                 // the kernel being written
  std::set<uint32_t> values_;      // its lane chains' value buffers (no array)
};

}  // namespace

Expected<std::string> emitGpuKernels(const GpuPlan& plan) { return KernelWriter(plan).run(); }

Expected<GpuProgram> emitGpuProgram(const Graph& g, const GpuTarget& target) {
  auto plan = planGpu(g, target);
  if (!plan) return plan.takeError();
  auto src = emitGpuKernels(*plan);
  if (!src) return src.takeError();
  GpuProgram p;
  p.name = KernelWriter::ident(plan->graph.name);
  p.target = target;
  p.kernelSource = std::move(*src);
  for (uint32_t b = 0; b < plan->buffers.size(); ++b) {
    if (plan->buffers[b].placement != Placement::Global) continue;
    const Buffer& buf = plan->graph.buffers()[b];
    p.buffers.push_back({buf.name, buf.numel(), buf.role});
  }
  int64_t blocks = (plan->graph.units + plan->graph.unitsPerBlock - 1) / plan->graph.unitsPerBlock;
  for (const auto& k : plan->kernels) {
    if (k.empty()) continue;
    ++p.kernels;
    p.blocks.push_back(static_cast<int>(blocks));
    p.threadsPerBlock.push_back(static_cast<int>(plan->graph.unitsPerBlock * target.lanes));
  }
  p.harnessSource = emitHarness(p);
  p.buildScript = emitBuildScript(p);
  return p;
}

}  // namespace gir::gpu
