// The edit log. Ids are stable: an undone add stays as an erased tombstone and a redo revives it.
#include "rewrite/GraphEditor.h"

namespace gir {

NodeId GraphEditor::addNode(Node n) {
  Node placeholder = n;
  placeholder.erased = true;
  NodeId id = g_.addNode(placeholder);
  replaceNode(id, std::move(n));
  return id;
}

void GraphEditor::replaceNode(NodeId id, Node n) {
  edits_.push_back(Edit{Edit::Entity::Node, id.value, g_.node(id), n});
  g_.node(id) = std::move(n);
  ++g_.editVersion;
}

void GraphEditor::eraseNode(NodeId id) {
  Node n = g_.node(id);
  n.erased = true;
  replaceNode(id, std::move(n));
}

SliceId GraphEditor::addSlice(MemorySlice s) {
  MemorySlice placeholder = s;
  placeholder.erased = true;
  SliceId id = g_.addSlice(placeholder);
  edits_.push_back(Edit{Edit::Entity::Slice, id.value, placeholder, s});
  g_.slice(id) = std::move(s);
  ++g_.editVersion;
  return id;
}

void GraphEditor::eraseSlice(SliceId id) {
  MemorySlice s = g_.slice(id);
  s.erased = true;
  edits_.push_back(Edit{Edit::Entity::Slice, id.value, g_.slice(id), s});
  g_.slice(id) = std::move(s);
  ++g_.editVersion;
}

BufferId GraphEditor::addBuffer(Buffer b) {
  Buffer placeholder = b;
  placeholder.erased = true;
  BufferId id = g_.addBuffer(placeholder);
  replaceBuffer(id, std::move(b));
  return id;
}

void GraphEditor::replaceBuffer(BufferId id, Buffer b) {
  edits_.push_back(Edit{Edit::Entity::Buffer, id.value, g_.buffer(id), b});
  g_.buffer(id) = std::move(b);
  ++g_.editVersion;
}

void GraphEditor::replaceReads(SliceId from, SliceId to) {
  for (uint32_t i = 0; i < g_.nodes().size(); ++i) {
    const Node& n = g_.nodes()[i];
    if (n.erased) continue;
    bool reads = false;
    for (SliceId s : n.inputs) reads |= s == from;
    if (!reads) continue;
    Node copy = n;
    for (SliceId& s : copy.inputs)
      if (s == from) s = to;
    replaceNode(NodeId(i), std::move(copy));
  }
}

namespace {
void restore(Graph& g, const Edit& e, const std::variant<Node, MemorySlice, Buffer>& v) {
  switch (e.entity) {
    case Edit::Entity::Node: g.node(NodeId(e.id)) = std::get<Node>(v); break;
    case Edit::Entity::Slice: g.slice(SliceId(e.id)) = std::get<MemorySlice>(v); break;
    case Edit::Entity::Buffer: g.buffer(BufferId(e.id)) = std::get<Buffer>(v); break;
  }
  ++g.editVersion;
}
}  // namespace

void redoEdits(Graph& g, const std::vector<Edit>& edits) {
  for (const Edit& e : edits) restore(g, e, e.after);
}

void undoEdits(Graph& g, const std::vector<Edit>& edits) {
  for (size_t i = edits.size(); i-- > 0;) restore(g, edits[i], edits[i].before);
}

}  // namespace gir
