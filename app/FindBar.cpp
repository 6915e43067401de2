// Steps through GraphCanvas::findStep; the canvas keeps the hits and the position.
#include "app/FindBar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "app/GraphCanvas.h"

namespace gir::app {

FindBar::FindBar(std::function<GraphCanvas*()> canvas, QWidget* parent) : QWidget(parent), canvas_(std::move(canvas)) {
  query_ = new QLineEdit(this);
  query_->setPlaceholderText("Find (Ctrl+F): node, op type, tensor, buffer, level");
  query_->setClearButtonEnabled(true);
  query_->setMinimumWidth(300);
  query_->installEventFilter(this);
  previous_ = new QPushButton("Previous", this);
  next_ = new QPushButton("Next", this);
  count_ = new QLabel(this);
  count_->setMinimumWidth(90);
  auto* l = new QHBoxLayout(this);
  l->setContentsMargins(4, 0, 4, 0);
  l->addWidget(query_);
  l->addWidget(previous_);
  l->addWidget(next_);
  l->addWidget(count_);
  connect(next_, &QPushButton::clicked, this, [this] { step(1); });
  connect(previous_, &QPushButton::clicked, this, [this] { step(-1); });
  connect(query_, &QLineEdit::textChanged, this, [this] { count_->clear(); });
}

void FindBar::focusQuery() {
  query_->setFocus(Qt::ShortcutFocusReason);
  query_->selectAll();
}

int FindBar::step(int direction) {
  GraphCanvas* c = canvas_();
  if (!c || query_->text().isEmpty()) {
    count_->setText(c ? "" : "no graph here");
    return 0;
  }
  int hits = c->findStep(query_->text(), direction);
  count_->setText(hits == 0 ? "no match" : QString("%1 of %2").arg(c->findPosition() + 1).arg(hits));
  return hits;
}

QString FindBar::status() const { return count_->text(); }

// Enter: next; Shift+Enter: previous; Escape hands the keyboard back to the canvas.
bool FindBar::eventFilter(QObject* watched, QEvent* e) {
  if (watched == query_ && e->type() == QEvent::KeyPress) {
    auto* k = static_cast<QKeyEvent*>(e);
    if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
      step(k->modifiers() & Qt::ShiftModifier ? -1 : 1);
      return true;
    }
    if (k->key() == Qt::Key_Escape) {
      if (GraphCanvas* c = canvas_()) c->setFocus();
      return true;
    }
  }
  return QWidget::eventFilter(watched, e);
}

}  // namespace gir::app
