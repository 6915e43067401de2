// The find box of the toolbar (Ctrl+F; docs/app.md, "Find"), in the manner of Netron and Model
// Explorer: a query over the current canvas's nodes (ONNX node names, op types and tensors on the
// Model tab; GIR node kinds, buffers and levels on the GIR-Graph tab), Enter / Next and Shift+Enter /
// Previous step through the hits, and "k of n" says where.
#pragma once

#include <QWidget>
#include <functional>

class QLabel;
class QLineEdit;
class QPushButton;

namespace gir::app {

class GraphCanvas;

class FindBar : public QWidget {
  Q_OBJECT

 public:
  // `canvas` gives the canvas of the current tab (null where the tab has none).
  FindBar(std::function<GraphCanvas*()> canvas, QWidget* parent = nullptr);
  void focusQuery();            // Ctrl+F
  int step(int direction);      // the next (1) or previous (-1) hit; returns the hit count
  QLineEdit* query() const { return query_; }
  QString status() const;       // "3 of 12", "no match", ""

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override;

 private:
  std::function<GraphCanvas*()> canvas_;
  QLineEdit* query_;
  QPushButton *previous_, *next_;
  QLabel* count_;
};

}  // namespace gir::app
