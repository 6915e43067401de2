// From layout to drawable items: the fixed palette, the shapes and the legend.
#include "viz/Scene.h"

#include <QLineF>
#include <cmath>
#include <functional>
#include <set>

namespace gir::viz {

static std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

QColor levelColor(const std::string& level) {
  std::string l = lower(level);
  if (l == "dram" || l == "global" || l == "gm" || l == "hbm") return QColor(0xc0, 0x39, 0x2b);    // red: slow, off chip
  if (l == "smem" || l == "shared" || l == "l1" || l == "ub") return QColor(0x29, 0x80, 0xb9);     // blue: on-chip, shared
  if (l == "reg" || l == "local" || l.rfind("l0", 0) == 0) return QColor(0x27, 0xae, 0x60);      // green: private
  size_t h = std::hash<std::string>{}(l);
  return QColor::fromHsv(static_cast<int>(h % 360), 160, 170);
}

qreal edgeWidthForBytes(int64_t bytes) {
  if (bytes <= 0) return 1;
  return std::clamp(1.0 + 0.9 * std::log10(1.0 + static_cast<double>(bytes) / 1024.0), 1.0, 8.0);
}

QString formatBytes(int64_t bytes) {
  double b = static_cast<double>(bytes);
  if (b >= 1e9) return QString::number(b / 1e9, 'f', 2) + " GB";
  if (b >= 1e6) return QString::number(b / 1e6, 'f', 2) + " MB";
  if (b >= 1e3) return QString::number(b / 1e3, 'f', 1) + " kB";
  return QString::number(bytes) + " B";
}

QPainterPath nodeShape(ItemKind k, const QRectF& r) {
  QPainterPath p;
  qreal s = r.height() * 0.3;
  switch (k) {
    case ItemKind::Compute:
    case ItemKind::Op: p.addRoundedRect(r, 6, 6); return p;
    case ItemKind::Movement:  // parallelogram: data in motion
      p.addPolygon(QPolygonF({r.topLeft() + QPointF(s, 0), r.topRight(), r.bottomRight() - QPointF(s, 0), r.bottomLeft(),
                              r.topLeft() + QPointF(s, 0)}));
      return p;
    case ItemKind::Sync: {  // hexagon bar: a barrier
      QPointF c = r.center();
      p.addPolygon(QPolygonF({QPointF(r.left(), c.y()), r.topLeft() + QPointF(s, 0), r.topRight() - QPointF(s, 0),
                              QPointF(r.right(), c.y()), r.bottomRight() - QPointF(s, 0), r.bottomLeft() + QPointF(s, 0),
                              QPointF(r.left(), c.y())}));
      return p;
    }
    case ItemKind::Terminal: p.addEllipse(r); return p;
    case ItemKind::Cluster:
      p.addRect(r);
      p.addRect(r.adjusted(3, 3, -3, -3));
      return p;
    case ItemKind::LibraryOp: {  // octagon: an opaque library call
      qreal c = r.height() * 0.25;
      p.addPolygon(QPolygonF({r.topLeft() + QPointF(c, 0), r.topRight() - QPointF(c, 0), r.topRight() + QPointF(0, c),
                              r.bottomRight() - QPointF(0, c), r.bottomRight() - QPointF(c, 0), r.bottomLeft() + QPointF(c, 0),
                              r.bottomLeft() - QPointF(0, c), r.topLeft() + QPointF(0, c), r.topLeft() + QPointF(c, 0)}));
      return p;
    }
  }
  p.addRect(r);
  return p;
}

static QColor kindFill(ItemKind k, bool highlighted) {
  switch (k) {
    case ItemKind::Compute: return QColor(0xfd, 0xf2, 0xd0);
    case ItemKind::Movement: return QColor(0xe8, 0xf1, 0xfa);
    case ItemKind::Sync: return QColor(0x55, 0x55, 0x55);
    case ItemKind::Terminal: return QColor(0xee, 0xee, 0xee);
    case ItemKind::Cluster: return highlighted ? QColor(0xff, 0xe0, 0xb3) : QColor(0xf4, 0xf4, 0xf4);
    case ItemKind::Op: return highlighted ? QColor(0xff, 0xe0, 0xb3) : QColor(0xfa, 0xfa, 0xfa);
    case ItemKind::LibraryOp: return QColor(0xd7, 0xcc, 0xe8);
  }
  return Qt::white;
}

static QColor diffColor(DiffState s) {
  switch (s) {
    case DiffState::Unchanged: return QColor(0x33, 0x33, 0x33);
    case DiffState::New: return QColor(0x1e, 0xa0, 0x3c);
    case DiffState::Changed: return QColor(0xe6, 0x7e, 0x22);
    case DiffState::Removed: return QColor(0x99, 0x99, 0x99);
  }
  return Qt::black;
}

static SceneNode sceneNode(const VizGraph& g, const Layout& layout, int i) {
  const VizNode& n = g.nodes[i];
  const NodeBox& b = layout.nodes[i];
  SceneNode s;
  s.index = i;
  s.rect = QRectF(b.centre.x - b.width / 2, b.centre.y - b.height / 2, b.width, b.height);
  s.shape = nodeShape(n.kind, s.rect);
  s.fill = kindFill(n.kind, n.highlighted);
  s.border = diffColor(n.state);
  s.borderWidth = n.state == DiffState::Unchanged ? 1.0 : 3.0;
  s.borderStyle = n.state == DiffState::Removed ? Qt::DashLine : Qt::SolidLine;
  if (n.state == DiffState::Removed) s.fill = s.fill.lighter(115);
  s.label = QString::fromStdString(n.label);
  s.tooltip = QString::fromStdString(n.detail) + (n.state == DiffState::Unchanged ? QString() : QString(" [%1]").arg(QString::fromUtf8(diffStateName(n.state).data())));
  return s;
}

static QPolygonF arrowHead(QPointF from, QPointF tip, qreal size) {
  QLineF line(tip, from);
  if (line.length() < 1e-6) return {};
  line.setLength(size);
  QLineF left = line, right = line;
  left.setAngle(line.angle() + 25);
  right.setAngle(line.angle() - 25);
  return QPolygonF({tip, left.p2(), right.p2(), tip});
}

static SceneEdge sceneEdge(const VizGraph& g, const Layout& layout, int i) {
  const VizEdge& e = g.edges[i];
  const EdgeRoute& r = layout.edges[i];
  SceneEdge s;
  s.index = i;
  s.color = e.state == DiffState::Removed ? QColor(0xaa, 0xaa, 0xaa) : levelColor(e.level);
  s.width = edgeWidthForBytes(e.bytes);
  s.style = e.state == DiffState::Removed ? Qt::DashLine : e.state == DiffState::New ? Qt::DashDotLine : Qt::SolidLine;
  s.tooltip = QString("%1 -> %2: %3 at %4").arg(QString::fromStdString(g.nodes[e.from].label), QString::fromStdString(g.nodes[e.to].label),
                                                formatBytes(e.bytes), QString::fromStdString(e.level));
  if (r.bezier.empty()) return s;
  s.path.moveTo(r.bezier[0].x, r.bezier[0].y);
  for (size_t p = 1; p + 2 < r.bezier.size(); p += 3)
    s.path.cubicTo(r.bezier[p].x, r.bezier[p].y, r.bezier[p + 1].x, r.bezier[p + 1].y, r.bezier[p + 2].x, r.bezier[p + 2].y);
  if (r.hasArrow) {
    QPointF last(r.bezier.back().x, r.bezier.back().y), tip(r.arrowTip.x, r.arrowTip.y);
    s.path.lineTo(tip);
    s.arrow = arrowHead(last, tip, 6 + s.width);
  }
  return s;
}

static void addLegend(const VizGraph& g, SceneModel& m) {
  using K = LegendEntry::Kind;
  std::set<std::string> levels;
  for (const VizEdge& e : g.edges) levels.insert(e.level);
  for (const auto& [level, bytes] : g.levelBytes) levels.insert(level);
  for (const std::string& l : levels) m.legend.push_back({K::Level, QString::fromStdString(l), levelColor(l), ItemKind::Compute});
  std::set<ItemKind> kinds;
  for (const VizNode& n : g.nodes) kinds.insert(n.kind);
  for (ItemKind k : kinds) m.legend.push_back({K::Shape, QString::fromUtf8(itemKindName(k).data()), kindFill(k, false), k});
  std::set<DiffState> states;
  for (const VizNode& n : g.nodes) states.insert(n.state);
  if (states.size() > 1 || !states.count(DiffState::Unchanged))
    for (DiffState s : states) m.legend.push_back({K::Diff, QString::fromUtf8(diffStateName(s).data()), diffColor(s), ItemKind::Compute});
}

SceneModel buildScene(const VizGraph& g, const Layout& layout) {
  SceneModel m;
  m.bounds = QRectF(0, 0, layout.width, layout.height);
  for (size_t c = 0; c < g.clusters.size() && c < layout.clusters.size(); ++c) {
    const ClusterBox& b = layout.clusters[c];
    if (!b.drawn) continue;
    m.clusters.push_back({static_cast<int>(c), QRectF(QPointF(b.x0, b.y0), QPointF(b.x1, b.y1)), QString::fromStdString(g.clusters[c].label),
                          g.clusters[c].highlighted ? QColor(0xff, 0xf3, 0xe0) : QColor(0xf7, 0xf9, 0xfc),
                          g.clusters[c].highlighted ? QColor(0xe6, 0x7e, 0x22) : QColor(0xb0, 0xbe, 0xc5)});
  }
  for (int i = 0; i < static_cast<int>(g.edges.size()); ++i) m.edges.push_back(sceneEdge(g, layout, i));
  for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) m.nodes.push_back(sceneNode(g, layout, i));
  for (const auto& [level, bytes] : g.levelBytes) m.levelBytes[QString::fromStdString(level)] = bytes;
  addLegend(g, m);
  return m;
}

}  // namespace gir::viz
