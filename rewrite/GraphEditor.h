// Every IR edit goes through a GraphEditor, which logs before/after copies so a step can be undone,
// redone and replayed (docs/style.md: MLIR's rewriter, egg's explanations). Given a UseDef, it keeps it
// up to date edit by edit, so a driver never recomputes it over the whole graph.
#pragma once

#include <set>
#include <variant>
#include <vector>

#include "core/gir/Graph.h"

namespace gir {

// One edit: the entity as it was and as it became. Adds are logged as erased -> live.
struct Edit {
  enum class Entity { Node, Slice, Buffer } entity;
  uint32_t id;
  std::variant<Node, MemorySlice, Buffer> before, after;
};

class GraphEditor {
 public:
  explicit GraphEditor(Graph& g, UseDef* useDef = nullptr) : g_(g), ud_(useDef) {}

  NodeId addNode(Node n);
  void replaceNode(NodeId id, Node n);
  void eraseNode(NodeId id);
  SliceId addSlice(MemorySlice s);
  void eraseSlice(SliceId id);
  BufferId addBuffer(Buffer b);
  void replaceBuffer(BufferId id, Buffer b);
  // Rewires the given readers of `from` to read `to` instead.
  void replaceReads(SliceId from, SliceId to, const std::vector<NodeId>& readers);

  Graph& graph() { return g_; }
  // The edit log; also brings the UseDef's memory-read facts up to date for the touched buffers.
  std::vector<Edit> takeEdits();
  const std::set<BufferId>& touchedBuffers() const { return touched_; }

 private:
  void unlink(NodeId id, const Node& n);
  void link(NodeId id, const Node& n);

  Graph& g_;
  UseDef* ud_;
  std::vector<Edit> edits_;
  std::set<BufferId> touched_;
};

// Applies the edits' "after" (redo; an entity the edits added gets its slot where the graph has none, as
// when replaying a step on the graph before it) or, in reverse order, their "before" (undo).
void redoEdits(Graph& g, const std::vector<Edit>& edits);
void undoEdits(Graph& g, const std::vector<Edit>& edits);

}  // namespace gir
