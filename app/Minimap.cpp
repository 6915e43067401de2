// Draws the canvas's scene (the same QGraphicsScene, a second view) and outlines the canvas's viewport.
#include "app/Minimap.h"

#include <QMouseEvent>
#include <QScrollBar>

#include "app/GraphCanvas.h"

namespace gir::app {

Minimap::Minimap(GraphCanvas* canvas) : QGraphicsView(canvas), canvas_(canvas) {
  setScene(canvas->scene());
  setInteractive(false);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setFrameShape(QFrame::Box);
  setBackgroundBrush(QColor(250, 250, 250, 235));
  setFixedSize(220, 160);
  setCursor(Qt::PointingHandCursor);
  for (QScrollBar* bar : {canvas->horizontalScrollBar(), canvas->verticalScrollBar()})
    connect(bar, &QScrollBar::valueChanged, this, [this] { viewport()->update(); });
  hide();
}

QRectF Minimap::shownArea() const { return canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect(); }

void Minimap::sync() {
  QRectF all = scene()->sceneRect();
  bool fits = !all.isValid() || shownArea().contains(all);
  setVisible(!fits);
  if (fits) return;
  fitInView(all, Qt::KeepAspectRatio);
  QWidget* vp = canvas_->viewport();
  move(vp->x() + vp->width() - width() - 8, vp->y() + vp->height() - height() - 8);
  raise();
  viewport()->update();
}

void Minimap::drawForeground(QPainter* p, const QRectF&) {
  p->setPen(QPen(QColor(0xc0, 0x39, 0x2b), 0));  // cosmetic: one pixel at any scale
  p->setBrush(QColor(0xc0, 0x39, 0x2b, 30));
  p->drawRect(shownArea());
}

void Minimap::mousePressEvent(QMouseEvent* e) { canvas_->centerOn(mapToScene(e->pos())); }

void Minimap::mouseMoveEvent(QMouseEvent* e) {
  if (e->buttons() & Qt::LeftButton) canvas_->centerOn(mapToScene(e->pos()));
}

}  // namespace gir::app
