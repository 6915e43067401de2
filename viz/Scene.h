// The drawable scene of a laid-out VizGraph, in Qt Gui types (no widgets): node shapes by kind, edge
// colour by memory level and width by bytes, diff colours, cluster boxes, the legend and the view's
// per-level byte totals. The app turns each entry into one QGraphicsItem.
#pragma once

#include <QColor>
#include <QPainterPath>
#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <map>
#include <vector>

#include "viz/Layout.h"
#include "viz/VizGraph.h"

namespace gir::viz {

struct SceneNode {
  int index = 0;        // VizGraph node index
  QPainterPath shape;   // outline in scene coordinates
  QRectF rect;
  QColor fill, border;
  qreal borderWidth = 1;
  Qt::PenStyle borderStyle = Qt::SolidLine;
  QString label, tooltip;
};

struct SceneEdge {
  int index = 0;  // VizGraph edge index
  QPainterPath path;
  QPolygonF arrow;
  QColor color;
  qreal width = 1;
  Qt::PenStyle style = Qt::SolidLine;
  QString tooltip;
};

struct SceneCluster {
  int index = 0;
  QRectF rect;
  QString label;
  QColor fill, border;
};

struct LegendEntry {
  enum class Kind { Level, Shape, Diff } kind = Kind::Level;
  QString text;
  QColor color;
  ItemKind shape = ItemKind::Compute;  // for Kind::Shape
};

struct SceneModel {
  std::vector<SceneCluster> clusters;
  std::vector<SceneEdge> edges;
  std::vector<SceneNode> nodes;
  std::vector<LegendEntry> legend;
  std::map<QString, qint64> levelBytes;
  QRectF bounds;
};

// Fixed colour per memory-level family: dram/global/gm/hbm, smem/shared/l1/ub, reg/local/l0*;
// any other name gets a stable colour from its hash.
QColor levelColor(const std::string& level);
// 1 px for a few bytes up to 8 px for hundreds of megabytes (logarithmic).
qreal edgeWidthForBytes(int64_t bytes);
QPainterPath nodeShape(ItemKind k, const QRectF& r);
QString formatBytes(int64_t bytes);

SceneModel buildScene(const VizGraph& g, const Layout& layout);

}  // namespace gir::viz
