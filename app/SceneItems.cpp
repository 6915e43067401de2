// Painting the canvas items; selection draws a halo, removed items are faded.
#include "app/SceneItems.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

namespace gir::app {

NodeItem::NodeItem(const viz::SceneNode& n, const viz::VizNode& v)
    : QGraphicsPathItem(n.shape), index_(n.index), kind_(v.kind), source_(v.source), label_(n.label), rect_(n.rect) {
  setBrush(n.fill);
  QPen pen(n.border, n.borderWidth, n.borderStyle);
  setPen(pen);
  setToolTip(n.tooltip);
  setFlag(QGraphicsItem::ItemIsSelectable);
  setZValue(2);
}

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) {
  QStyleOptionGraphicsItem plain(*o);
  plain.state &= ~QStyle::State_Selected;
  if (isSelected()) {
    p->setPen(QPen(QColor(0x34, 0x98, 0xdb), 5));
    p->setBrush(Qt::NoBrush);
    p->drawPath(path());
  }
  QGraphicsPathItem::paint(p, &plain, w);
  QFont f = p->font();
  f.setPointSizeF(kind_ == viz::ItemKind::Cluster || kind_ == viz::ItemKind::LibraryOp ? 7.5 : 8);
  p->setFont(f);
  p->setPen(kind_ == viz::ItemKind::Sync ? Qt::white : Qt::black);
  // Each line elided in the middle to the node's width (a move names its buffer, which may be long);
  // a parallelogram's slanted sides take a little more.
  int inset = kind_ == viz::ItemKind::Movement ? 12 : 4;
  QRectF box = rect_.adjusted(inset, 1, -inset, -1);
  QFontMetricsF metrics(f);
  QStringList lines = label_.split('\n');
  for (QString& line : lines) line = metrics.elidedText(line, Qt::ElideMiddle, box.width());
  p->drawText(box, Qt::AlignCenter, lines.join('\n'));
}

EdgeItem::EdgeItem(const viz::SceneEdge& e) : QGraphicsPathItem(e.path), index_(e.index), arrow_(e.arrow) {
  QPen pen(e.color, e.width, e.style, Qt::RoundCap, Qt::RoundJoin);
  setPen(pen);
  setBrush(Qt::NoBrush);
  setToolTip(e.tooltip);
  setFlag(QGraphicsItem::ItemIsSelectable);
  setZValue(1);
}

QPainterPath EdgeItem::shape() const {
  QPainterPathStroker s;
  s.setWidth(std::max<qreal>(pen().widthF(), 6));
  return s.createStroke(path());
}

void EdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) {
  QPen pen = this->pen();
  if (isSelected()) pen.setWidthF(pen.widthF() + 3);
  p->setPen(pen);
  p->setBrush(Qt::NoBrush);
  p->drawPath(path());
  if (!arrow_.isEmpty()) {
    p->setPen(QPen(pen.color(), 1));
    p->setBrush(pen.color());
    p->drawPolygon(arrow_);
  }
}

ClusterItem::ClusterItem(const viz::SceneCluster& c) : QGraphicsRectItem(c.rect), index_(c.index), label_(c.label) {
  setBrush(c.fill);
  setPen(QPen(c.border, 1.2, Qt::DashLine));
  setZValue(0);
  setToolTip(c.label + " (double-click to collapse)");
}

void ClusterItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) {
  p->setPen(pen());
  p->setBrush(brush());
  p->drawRoundedRect(rect(), 8, 8);
  QFont f = p->font();
  f.setPointSizeF(8);
  f.setBold(true);
  p->setFont(f);
  p->setPen(pen().color().darker(150));
  p->drawText(rect().adjusted(6, 2, -6, 0), Qt::AlignTop | Qt::AlignLeft, label_);
}

LegendItem::LegendItem(const viz::SceneModel& m) : entries_(m.legend), levelBytes_(m.levelBytes) {
  int rows = static_cast<int>(entries_.size()) + 2;
  rect_ = QRectF(0, 0, 210, 16.0 * rows + 8);
  setZValue(5);
}

QRectF LegendItem::boundingRect() const { return rect_; }

void LegendItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) {
  p->setPen(QPen(QColor(0x99, 0x99, 0x99)));
  p->setBrush(QColor(255, 255, 255, 235));
  p->drawRoundedRect(rect_, 6, 6);
  QFont f = p->font();
  f.setPointSizeF(8);
  p->setFont(f);
  qreal y = 6;
  p->setPen(Qt::black);
  p->drawText(QPointF(8, y + 10), "Legend (bytes: all units)");
  y += 18;
  using K = viz::LegendEntry::Kind;
  for (const viz::LegendEntry& e : entries_) {
    QRectF swatch(8, y + 2, 22, 10);
    switch (e.kind) {
      case K::Level:
        p->setPen(QPen(e.color, 4));
        p->drawLine(swatch.left(), swatch.center().y(), swatch.right(), swatch.center().y());
        break;
      case K::Shape:
        p->setPen(QPen(Qt::black, 1));
        p->setBrush(e.color);
        p->drawPath(viz::nodeShape(e.shape, swatch));
        break;
      case K::Diff:
        p->setPen(QPen(e.color, 3));
        p->setBrush(Qt::NoBrush);
        p->drawRect(swatch);
        break;
    }
    p->setPen(Qt::black);
    QString text = e.text;
    if (e.kind == K::Level) {
      auto it = levelBytes_.find(e.text);
      text += it != levelBytes_.end() ? "  " + viz::formatBytes(it->second) : QString();
    }
    if (e.kind == K::Diff) text = "step: " + text;
    p->drawText(QPointF(36, y + 11), text);
    y += 16;
  }
}

}  // namespace gir::app
