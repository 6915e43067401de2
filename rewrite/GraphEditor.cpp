// The edit log. Ids are stable: an undone add stays as an erased tombstone and a redo revives it.
#include "rewrite/GraphEditor.h"

#include <algorithm>

namespace gir {

namespace {
void insertSorted(std::vector<NodeId>& v, NodeId id) {
  auto it = std::lower_bound(v.begin(), v.end(), id);
  if (it == v.end() || *it != id) v.insert(it, id);
}
void removeAll(std::vector<NodeId>& v, NodeId id) { v.erase(std::remove(v.begin(), v.end(), id), v.end()); }
}  // namespace

void GraphEditor::unlink(NodeId id, const Node& n) {
  if (!ud_ || n.erased) return;
  for (SliceId s : n.inputs) { removeAll(ud_->readers[s.value], id); touched_.insert(g_.slice(s).buffer); }
  for (SliceId s : n.outputs) { removeAll(ud_->writers[s.value], id); touched_.insert(g_.slice(s).buffer); }
}

void GraphEditor::link(NodeId id, const Node& n) {
  if (!ud_ || n.erased) return;
  for (SliceId s : n.inputs) { insertSorted(ud_->readers[s.value], id); touched_.insert(g_.slice(s).buffer); }
  for (SliceId s : n.outputs) { insertSorted(ud_->writers[s.value], id); touched_.insert(g_.slice(s).buffer); }
}

NodeId GraphEditor::addNode(Node n) {
  Node placeholder = n;
  placeholder.erased = true;
  NodeId id = g_.addNode(placeholder);
  replaceNode(id, std::move(n));
  return id;
}

void GraphEditor::replaceNode(NodeId id, Node n) {
  unlink(id, g_.node(id));
  link(id, n);
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
  if (ud_) {
    ud_->writers.resize(g_.slices().size());
    ud_->readers.resize(g_.slices().size());
    ud_->memoryWriters.resize(g_.slices().size());
    if (ud_->slicesOfBuffer.size() <= s.buffer.value) ud_->slicesOfBuffer.resize(s.buffer.value + 1);
    ud_->slicesOfBuffer[s.buffer.value].push_back(id);
  }
  edits_.push_back(Edit{Edit::Entity::Slice, id.value, placeholder, s});
  g_.slice(id) = std::move(s);
  ++g_.editVersion;
  return id;
}

void GraphEditor::eraseSlice(SliceId id) {
  MemorySlice s = g_.slice(id);
  s.erased = true;
  edits_.push_back(Edit{Edit::Entity::Slice, id.value, g_.slice(id), s});
  touched_.insert(s.buffer);
  g_.slice(id) = std::move(s);
  ++g_.editVersion;
}

BufferId GraphEditor::addBuffer(Buffer b) {
  Buffer placeholder = b;
  placeholder.erased = true;
  BufferId id = g_.addBuffer(placeholder);
  if (ud_) ud_->slicesOfBuffer.resize(g_.buffers().size());
  replaceBuffer(id, std::move(b));
  return id;
}

void GraphEditor::replaceBuffer(BufferId id, Buffer b) {
  edits_.push_back(Edit{Edit::Entity::Buffer, id.value, g_.buffer(id), b});
  touched_.insert(id);
  g_.buffer(id) = std::move(b);
  ++g_.editVersion;
}

void GraphEditor::replaceReads(SliceId from, SliceId to, const std::vector<NodeId>& readers) {
  for (NodeId r : readers) {
    const Node& n = g_.node(r);
    if (n.erased) continue;
    Node copy = n;
    for (SliceId& s : copy.inputs)
      if (s == from) s = to;
    replaceNode(r, std::move(copy));
  }
}

std::vector<Edit> GraphEditor::takeEdits() {
  if (ud_)
    for (BufferId b : touched_) refreshMemoryWriters(g_, *ud_, b);
  return std::move(edits_);
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

// An entity an edit added beyond the graph's ids (a replay on the graph as it was before the edits)
// gets its slot first, as GraphEditor made it: the erased copy of the entity its edit records as `before`.
void makeSlot(Graph& g, const Edit& e) {
  switch (e.entity) {
    case Edit::Entity::Node:
      while (g.nodes().size() <= e.id) g.addNode(std::get<Node>(e.before));
      break;
    case Edit::Entity::Slice:
      while (g.slices().size() <= e.id) g.addSlice(std::get<MemorySlice>(e.before));
      break;
    case Edit::Entity::Buffer:
      while (g.buffers().size() <= e.id) g.addBuffer(std::get<Buffer>(e.before));
      break;
  }
}
}  // namespace

void redoEdits(Graph& g, const std::vector<Edit>& edits) {
  for (const Edit& e : edits) {
    makeSlot(g, e);
    restore(g, e, e.after);
  }
}

void undoEdits(Graph& g, const std::vector<Edit>& edits) {
  for (size_t i = edits.size(); i-- > 0;) restore(g, edits[i], edits[i].before);
}

}  // namespace gir
