// The canvas items (docs/style.md: items own nothing but their drawing; the scene owns the items): one per
// node, edge and cluster of a viz::SceneModel, and the legend with the per-level byte totals.
#pragma once

#include <QGraphicsItem>
#include <QGraphicsPathItem>

#include "viz/Scene.h"

namespace gir::app {

enum ItemType { NodeItemType = QGraphicsItem::UserType + 1, EdgeItemType, ClusterItemType, LegendItemType };

class NodeItem : public QGraphicsPathItem {
 public:
  NodeItem(const viz::SceneNode& n, const viz::VizNode& v);
  int type() const override { return NodeItemType; }
  int index() const { return index_; }
  viz::ItemKind kind() const { return kind_; }
  int64_t source() const { return source_; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) override;

 private:
  int index_;
  viz::ItemKind kind_;
  int64_t source_;
  QString label_;
  QRectF rect_;
};

class EdgeItem : public QGraphicsPathItem {
 public:
  explicit EdgeItem(const viz::SceneEdge& e);
  int type() const override { return EdgeItemType; }
  int index() const { return index_; }
  QPainterPath shape() const override;  // wider than the line, so thin edges stay clickable
  void paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) override;

 private:
  int index_;
  QPolygonF arrow_;
};

class ClusterItem : public QGraphicsRectItem {
 public:
  explicit ClusterItem(const viz::SceneCluster& c);
  int type() const override { return ClusterItemType; }
  int index() const { return index_; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) override;

 private:
  int index_;
  QString label_;
};

class LegendItem : public QGraphicsItem {
 public:
  explicit LegendItem(const viz::SceneModel& m);
  int type() const override { return LegendItemType; }
  QRectF boundingRect() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) override;

 private:
  std::vector<viz::LegendEntry> entries_;
  std::map<QString, qint64> levelBytes_;
  QRectF rect_;
};

}  // namespace gir::app
