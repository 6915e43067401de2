// Every IR edit goes through a GraphEditor, which logs before/after copies so a step can be undone,
// redone and replayed (style.md: MLIR's rewriter, egg's explanations).
#pragma once

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
  explicit GraphEditor(Graph& g) : g_(g) {}

  NodeId addNode(Node n);
  void replaceNode(NodeId id, Node n);
  void eraseNode(NodeId id);
  SliceId addSlice(MemorySlice s);
  void eraseSlice(SliceId id);
  BufferId addBuffer(Buffer b);
  void replaceBuffer(BufferId id, Buffer b);
  // Rewires every live node that reads `from` to read `to` instead.
  void replaceReads(SliceId from, SliceId to);

  Graph& graph() { return g_; }
  std::vector<Edit> takeEdits() { return std::move(edits_); }

 private:
  Graph& g_;
  std::vector<Edit> edits_;
};

// Applies the edits' "after" (redo) or, in reverse order, their "before" (undo).
void redoEdits(Graph& g, const std::vector<Edit>& edits);
void undoEdits(Graph& g, const std::vector<Edit>& edits);

}  // namespace gir
