// Inspector texts: each fact read from the graph, the step history or the preprocessing result.
#include "app/Inspector.h"

#include <algorithm>

#include "core/gir/Printer.h"
#include "viz/GirView.h"
#include "viz/Scene.h"

namespace gir::app {

static QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

static std::string dims(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

static QString sliceRow(const Graph& g, SliceId s, int64_t units, const char* role) {
  const MemorySlice& sl = g.slice(s);
  const Buffer& b = g.buffer(sl.buffer);
  int64_t bytes = sl.numel() * 4 * units;
  return QString("<tr><td>%1</td><td>%2</td><td><b style='color:%3'>%4</b></td><td>%5 offset %6 strides %7</td><td>%8</td></tr>")
      .arg(role, esc(b.name + " f32" + dims(b.shape)), viz::levelColor(b.level).name(), esc(b.level), esc(dims(sl.shape)), esc(sl.offset.str()),
           esc(dims(sl.strides)), viz::formatBytes(bytes));
}

// Why a sync is there: the step that inserted it, else what it orders.
static QString syncWhy(const Graph& g, NodeId id, const std::vector<StepRecord>& history, size_t position) {
  for (size_t i = 0; i < position && i < history.size(); ++i)
    for (NodeId a : history[i].addedNodes)
      if (a == id) return QString("inserted by step %1 (%2): %3").arg(i + 1).arg(esc(history[i].rule), esc(history[i].explanation));
  const Node& n = g.node(id);
  std::string in, out;
  for (SliceId s : n.inputs) in += (in.empty() ? "" : ", ") + g.buffer(g.slice(s).buffer).name;
  for (SliceId s : n.outputs) out += (out.empty() ? "" : ", ") + g.buffer(g.slice(s).buffer).name;
  std::string scope(scopeName(n.syncScope()));
  std::string what = "present in the input graph: every unit's writes of " + (in.empty() ? std::string("its inputs") : in) +
                     " complete before any unit of the same " + scope + " reads " + (out.empty() ? std::string("its outputs") : out);
  if (n.syncScope() == Scope::Device) what += "; a device sync ends one kernel and starts the next";
  return esc(what);
}

QString describeGirNode(const Graph& g, NodeId id, const std::vector<StepRecord>& history, size_t position) {
  const Node& n = g.node(id);
  UnitDomain d = g.domainOf(n);
  int64_t units = d.end - d.begin;
  QString html = QString("<h3>%1</h3><p><b>kind</b>: %2<br><b>pattern</b>: <code>%3</code><br><b>units</b>: [%4, %5) = %6 of %7")
                     .arg(esc(viz::nodeLabel(g, n)), esc(std::string(nodeKindName(n.kind()))), esc(describeNode(g, id)))
                     .arg(d.begin)
                     .arg(d.end)
                     .arg(units)
                     .arg(g.units);
  int kernel = kernelIndices(g)[id.value];
  if (kernel >= 0) html += QString("<br><b>kernel</b>: %1").arg(kernel);
  html += "</p>";
  if (n.isSync()) {
    html += QString("<p><b>scope</b>: %1<br><b>why</b>: %2</p>").arg(esc(std::string(scopeName(n.syncScope()))), syncWhy(g, id, history, position));
  }
  html += "<table border=1 cellspacing=0 cellpadding=3><tr><th></th><th>buffer</th><th>level</th><th>slice</th><th>bytes</th></tr>";
  for (SliceId s : n.inputs) html += sliceRow(g, s, units, "in");
  for (SliceId s : n.outputs) html += sliceRow(g, s, units, "out");
  return html + "</table>";
}

Inspector::Inspector(const Session& session, QWidget* parent) : QTextBrowser(parent), session_(session) { showNothing(); }

void Inspector::showNothing() { setHtml("<p style='color:gray'>Select a node or an edge of the canvas.</p>"); }

void Inspector::showGirNode(const viz::VizGraph& view, int index) {
  const viz::VizNode& v = view.nodes[index];
  if (!session_.hasGir()) return showNothing();
  const Graph& g = session_.graph();
  if (v.kind == viz::ItemKind::Cluster || v.kind == viz::ItemKind::Terminal || v.state == viz::DiffState::Removed) {
    setHtml(QString("<h3>%1</h3><p>%2</p><p>%3</p>")
                .arg(esc(v.label), esc(v.detail),
                     v.kind == viz::ItemKind::Cluster ? "Double-click to expand this kernel." : v.state == viz::DiffState::Removed ? "Removed by the last step." : ""));
    return;
  }
  setHtml(describeGirNode(g, NodeId(static_cast<uint32_t>(v.source)), session_.stepper().history(), session_.stepper().position()));
}

void Inspector::showGirEdge(const viz::VizGraph& view, int index) {
  const viz::VizEdge& e = view.edges[index];
  setHtml(QString("<h3>slice %1 &rarr; %2</h3><p><b>level</b>: <b style='color:%3'>%4</b><br><b>bytes</b>: %5 (%6, all units)"
                  "<br><b>from</b>: %7<br><b>to</b>: %8<br><b>step</b>: %9</p>")
              .arg(esc(view.nodes[e.from].label), esc(view.nodes[e.to].label), viz::levelColor(e.level).name(), esc(e.level))
              .arg(e.bytes)
              .arg(viz::formatBytes(e.bytes), esc(view.nodes[e.from].detail), esc(view.nodes[e.to].detail),
                   QString::fromUtf8(viz::diffStateName(e.state).data())));
}

QString describeModelOp(const compute::Graph& g, const compute::PreprocessResult& pre, int opIndex) {
  const compute::Op& op = g.ops[static_cast<size_t>(opIndex)];
  std::string attrs = compute::attrsText(op);
  QString html = QString("<h3>%1</h3><p><b>ONNX op</b>: %2 <code>%3</code><br><b>kind</b>: %4<br><b>attributes</b>: <code>%5</code>")
                     .arg(esc(op.name), esc(op.source), esc(op.sourceAttributes), esc(std::string(compute::opKindName(op.kind()))),
                          attrs.empty() ? "none" : esc(attrs));
  auto producers = g.producers();
  html += "<table border=1 cellspacing=0 cellpadding=2><tr><th></th><th>tensor</th><th>dtype</th><th>shape</th><th>bytes</th><th>from / to</th></tr>";
  auto readers = [&](compute::TensorId id) {
    std::string to;
    for (const compute::Op& other : g.ops)
      if (std::find(other.inputs.begin(), other.inputs.end(), id) != other.inputs.end()) to += (to.empty() ? "op '" : ", '") + other.name + "'";
    if (std::find(g.outputs.begin(), g.outputs.end(), id) != g.outputs.end()) to += (to.empty() ? "" : ", ") + std::string("graph output");
    return to.empty() ? std::string("unused") : to;
  };
  auto row = [&](compute::TensorId id, const char* role) {
    const compute::Tensor& t = g.tensor(id);
    auto p = producers[compute::index(id)];
    bool in = std::string(role) == "in";
    std::string from = !in ? readers(id) : t.isConstant() ? "constant" : p ? "op '" + g.op(*p).name + "'" : "graph input";
    html += QString("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td></tr>")
                .arg(role, esc(t.name), esc(std::string(compute::dtypeName(t.dtype))), esc(compute::dimsToString(t.dims)),
                     viz::formatBytes(compute::tensorBytes(t)), esc(from));
  };
  for (compute::TensorId t : op.inputs) row(t, "in");
  for (compute::TensorId t : op.outputs) row(t, "out");
  html += "</table>";
  for (const auto& d : pre.library)
    if (d.op == op.id)
      html += QString("<p><b>intensity</b>: %1 FLOP/byte (%2 FLOPs over %3 bytes) against the ridge point %4: %5</p>")
                  .arg(d.intensity, 0, 'f', 2)
                  .arg(d.flops)
                  .arg(d.minBytes)
                  .arg(pre.ridgeFlopsPerByte, 0, 'f', 2)
                  .arg(esc(d.verdict()));
  int sub = opIndex < static_cast<int>(pre.subgraphOf.size()) ? pre.subgraphOf[opIndex] : -1;
  html += sub >= 0 ? QString("<p>In memory-bound subgraph %1 (double-click or pick it in the list to open its GIR-Graph).</p>").arg(sub)
                   : QString("<p>Outside every memory-bound subgraph.</p>");
  return html;
}

void Inspector::showModelNode(const viz::VizGraph& view, int index) {
  const viz::VizNode& v = view.nodes[index];
  if ((v.kind == viz::ItemKind::Op || v.kind == viz::ItemKind::LibraryOp) && session_.hasModel() && v.source >= 0 &&
      v.source < static_cast<int64_t>(session_.model().ops.size()))
    return setHtml(describeModelOp(session_.model(), session_.preprocessed(), static_cast<int>(v.source)));
  QString where = v.cluster >= 0 ? QString("in memory-bound subgraph %1 (double-click or pick it in the list to open its GIR-Graph)").arg(v.cluster)
                                 : v.kind == viz::ItemKind::Cluster ? QString("collapsed subgraph") : QString("outside every memory-bound subgraph");
  setHtml(QString("<h3>%1</h3><p>%2</p><p>%3</p>").arg(esc(v.label), esc(v.detail), where));
}

}  // namespace gir::app
