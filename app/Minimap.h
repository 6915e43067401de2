// The minimap of a large graph (issue #18, point 4): the canvas's whole scene drawn small in its
// bottom-right corner with the part on screen outlined; a click or a drag there moves the canvas.
// Shown only while the graph does not fit the canvas at its current zoom.
#pragma once

#include <QGraphicsView>

namespace gir::app {

class GraphCanvas;

class Minimap : public QGraphicsView {
  Q_OBJECT

 public:
  explicit Minimap(GraphCanvas* canvas);
  void sync();  // after a new scene, a zoom, a scroll or a resize: fit, place, show or hide
  QRectF shownArea() const;  // the canvas's visible part, in scene coordinates

 protected:
  void drawForeground(QPainter* p, const QRectF& rect) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;

 private:
  GraphCanvas* canvas_;
};

}  // namespace gir::app
