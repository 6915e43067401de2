// The GIR-Graph: buffers at memory levels, memory slices (the edges), gOperators (the nodes),
// all units running the same graph; device syncs split it into kernels (docs/gir.md, "The model", "Kernels").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/Scope.h"
#include "core/gir/Affine.h"
#include "core/gir/ScalarOps.h"

namespace gir {

template <typename Tag>
struct Id {
  uint32_t value = UINT32_MAX;
  constexpr Id() = default;
  constexpr explicit Id(uint32_t v) : value(v) {}
  bool valid() const { return value != UINT32_MAX; }
  auto operator<=>(const Id&) const = default;
};
using BufferId = Id<struct BufferTag>;
using SliceId = Id<struct SliceTag>;
using NodeId = Id<struct NodeTag>;

// A memory level as this graph's target declares it; capacity is per scope instance, 0 = unbounded.
struct LevelDecl {
  std::string name;
  Scope scope = Scope::Device;
  int64_t capacityBytes = 0;
  bool operator==(const LevelDecl&) const = default;
};

enum class BufferRole { Temp, Input, Output };

// A buffer is one logical array at one level. For levels shared by a unit or a block the
// array is the union of all instances: each element belongs to the instance of the units
// that touch it, and the checker enforces that no other instance touches it.
struct Buffer {
  std::string name;
  std::string level;
  std::vector<int64_t> shape;
  BufferRole role = BufferRole::Temp;
  bool erased = false;
  int64_t numel() const;
};

// A view of a buffer: element i (row-major multi-index over shape) of unit u lives at
// offset(u) + sum(index[d] * strides[d]).
struct MemorySlice {
  BufferId buffer;
  AffineIndex offset;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  bool erased = false;
  int64_t numel() const;
  // The contiguous run in elements (the paper's width): innermost dims with dense strides.
  int64_t contiguousWidth() const;
  // The first dim of that run: dims [contiguousFrom(), rank) form it, the others index the runs.
  size_t contiguousFrom() const;
  bool samePattern(const MemorySlice& o) const {
    return buffer == o.buffer && offset == o.offset && shape == o.shape && strides == o.strides;
  }
};

// The contiguous range of unit indices a gOperator runs on; [0, units) when absent.
struct UnitDomain {
  int64_t begin = 0;
  int64_t end = 0;
  bool contains(int64_t u) const { return u >= begin && u < end; }
  bool operator==(const UnitDomain&) const = default;
};

enum class NodeKind { Move, Elementwise, Reduce, Broadcast, Sync };

// An elementwise operand: node input number `input`, or an immediate constant.
struct ScalarOperand {
  int input = -1;  // index into Node::inputs, or -1 for an immediate
  double value = 0;
  bool isImmediate() const { return input < 0; }
  bool operator==(const ScalarOperand&) const = default;
};

struct MovePayload {
  bool operator==(const MovePayload&) const = default;
};
struct ElementwisePayload {
  ElementwiseOp op = ElementwiseOp::Copy;
  std::vector<ScalarOperand> operands;
  bool operator==(const ElementwisePayload&) const = default;
};
// Axes as written in text or JSON, narrowed to int; the first value that does not fit an int when
// one does not (both parsers took 4294967297 for axis 1). The verifier checks the rest against the rank.
struct NarrowedAxes {
  std::vector<int> axes;
  std::optional<int64_t> outOfRange;
};
NarrowedAxes narrowAxes(const std::vector<int64_t>& written);

struct ReducePayload {
  ReduceOp op = ReduceOp::Sum;
  std::vector<int> axes;  // axes of the input slice's shape
  bool operator==(const ReducePayload&) const = default;
};
struct BroadcastPayload {
  std::vector<int> axes;  // axes of the output slice's shape that are new
  bool operator==(const BroadcastPayload&) const = default;
};
struct SyncPayload {
  Scope scope = Scope::Device;
  bool operator==(const SyncPayload&) const = default;
};

using NodePayload = std::variant<MovePayload, ElementwisePayload, ReducePayload, BroadcastPayload, SyncPayload>;
// Node::kind() is the payload's index: each NodeKind names the alternative at its own position, and a
// kind added to one list and not the other fails here, not at run time.
template <NodeKind K, class Payload>
constexpr bool kindIsAlternative = std::is_same_v<std::variant_alternative_t<static_cast<size_t>(K), NodePayload>, Payload>;
static_assert(std::variant_size_v<NodePayload> == static_cast<size_t>(NodeKind::Sync) + 1 && kindIsAlternative<NodeKind::Move, MovePayload> &&
              kindIsAlternative<NodeKind::Elementwise, ElementwisePayload> && kindIsAlternative<NodeKind::Reduce, ReducePayload> &&
              kindIsAlternative<NodeKind::Broadcast, BroadcastPayload> && kindIsAlternative<NodeKind::Sync, SyncPayload>,
              "NodeKind must list NodePayload's alternatives in order");

struct Node {
  NodePayload payload;
  std::vector<SliceId> inputs;
  std::vector<SliceId> outputs;
  std::optional<UnitDomain> domain;
  bool erased = false;

  NodeKind kind() const { return static_cast<NodeKind>(payload.index()); }
  bool isMove() const { return kind() == NodeKind::Move; }
  bool isSync() const { return kind() == NodeKind::Sync; }
  Scope syncScope() const { return std::get<SyncPayload>(payload).scope; }
};

class Graph {
 public:
  std::string name = "graph";
  std::string target;  // hardware description name; may be empty
  int64_t units = 1;
  int64_t unitsPerBlock = 1;
  std::vector<LevelDecl> levels;
  uint64_t editVersion = 0;  // bumped by every edit through rewrite/GraphEditor; rejects stale sites

  const std::vector<Buffer>& buffers() const { return buffers_; }
  const std::vector<MemorySlice>& slices() const { return slices_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const Buffer& buffer(BufferId id) const { return buffers_[id.value]; }
  Buffer& buffer(BufferId id) { return buffers_[id.value]; }
  const MemorySlice& slice(SliceId id) const { return slices_[id.value]; }
  MemorySlice& slice(SliceId id) { return slices_[id.value]; }
  const Node& node(NodeId id) const { return nodes_[id.value]; }
  Node& node(NodeId id) { return nodes_[id.value]; }

  BufferId addBuffer(Buffer b);
  SliceId addSlice(MemorySlice s);
  NodeId addNode(Node n);
  void eraseNode(NodeId id) { nodes_[id.value].erased = true; }
  void eraseSlice(SliceId id) { slices_[id.value].erased = true; }
  void eraseBuffer(BufferId id) { buffers_[id.value].erased = true; }

  const LevelDecl* level(const std::string& n) const;
  const LevelDecl* levelOf(BufferId b) const { return level(buffer(b).level); }
  std::optional<BufferId> findBuffer(const std::string& n) const;
  UnitDomain domainOf(const Node& n) const { return n.domain.value_or(UnitDomain{0, units}); }
  int64_t blockOf(int64_t u) const { return u / unitsPerBlock; }
  size_t liveNodeCount() const;

  // Drops erased entries, slices no live node uses and temporaries no live node touches, and
  // renumbers ids densely: buffers in order, nodes in topological order (kernel first, then id),
  // slices in order of first use. Requires an acyclic graph.
  Graph compacted() const;

 private:
  std::vector<Buffer> buffers_;
  std::vector<MemorySlice> slices_;
  std::vector<Node> nodes_;
};

// Who writes and who reads each slice (derived; recompute after edits).
// A slice that no node writes, on a buffer that is not a graph input, is read *through memory*:
// its reads come after, in each unit's program order, every node writing another slice of that
// buffer (memoryWriters). Program order orders a unit with itself only; other units need a sync.
struct UseDef {
  std::vector<std::vector<NodeId>> writers;        // per slice
  std::vector<std::vector<NodeId>> readers;        // per slice
  std::vector<std::vector<NodeId>> memoryWriters;  // per unwritten, read slice: writers of its buffer
  std::vector<std::vector<SliceId>> slicesOfBuffer; // per buffer: its slices (erased ones included)
};
// Recomputes memoryWriters for the slices of one buffer (after its writers or readers changed).
void refreshMemoryWriters(const Graph& g, UseDef& ud, BufferId b);
UseDef computeUseDef(const Graph& g);

// Dependency edges between live nodes: every writer of a slice precedes every reader.
std::vector<std::vector<NodeId>> successors(const Graph& g, const UseDef& ud);
// Where a node that grows a unit's footprint from data every unit shares or already holds (a load
// of a parameter row, a broadcast of the unit's own scalar into a row) goes: just before its first
// consumer, so what it writes is live only while needed (the order that liveness, capacity and the
// CPU/GPU code use), or as early as the graph allows (for a back end whose load queue runs ahead of
// its compute, Ascend's MTE2). Loads of a unit's own data keep their place either way
// (docs/scale.md, "Loads of shared data wait for their first consumer").
enum class LoadPlacement { AtFirstConsumer, Early };
// Topological order of live nodes (stable: kernel index, then id, then loads placed as asked);
// nullopt when cyclic.
std::optional<std::vector<NodeId>> topologicalOrder(const Graph& g, LoadPlacement loads = LoadPlacement::AtFirstConsumer);
// Kernel index per node (number of device syncs on the longest path before it); -1 for device
// syncs themselves and erased nodes. Requires an acyclic graph.
std::vector<int> kernelIndices(const Graph& g);
// The same with the device syncs `lowered` marks (per node id) counted as lower-scope syncs: the
// kernels that rewrites lowering them would leave. `ud` must describe `g`.
std::vector<int> kernelIndices(const Graph& g, const UseDef& ud, const std::vector<bool>& lowered);
int kernelCount(const Graph& g);
// Per buffer: true for a buffer below device scope that nodes of two kernels touch. No unit- or
// block-level storage survives a kernel boundary (registers and shared memory on a GPU; a thread runs
// many units in turn on the CPU), so every back end keeps such a buffer in device memory, and the
// cost model prices it there (docs/gir.md, "Kernels").
std::vector<bool> buffersAcrossKernels(const Graph& g, const std::vector<int>& kernelOf);

std::string_view nodeKindName(NodeKind k);
std::string_view roleName(BufferRole r);

}  // namespace gir
