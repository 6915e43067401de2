// Drawing the timeline: x = cycles, one lane per pipe, then one row per (pipe pair, flag ID).
#include "app/AscendTab.h"

#include <QFileDialog>
#include <QFutureWatcher>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "app/Session.h"
#include "codegen/ascend/sync/FlagOptimal.h"
#include "core/AtomicFile.h"

namespace gir::app {

using namespace gir::ascend;

AscendTab::AscendTab(Session& session, QWidget* parent) : QWidget(parent), session_(session) {
  stages_ = new QListWidget(this);
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setFont(QFont("monospace", 9));
  stats_ = new QLabel(this);
  stats_->setWordWrap(true);
  view_ = new QGraphicsView(new QGraphicsScene(this), this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setDragMode(QGraphicsView::ScrollHandDrag);
  view_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  gap_ = new QLabel(this);
  gap_->setWordWrap(true);
  gap_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  search_ = new QPushButton("Exact search: gap to the optimum", this);
  search_->setToolTip("Branch and bound over merges and barriers with 4 and with 8 flag IDs (seconds on kernels with branches)");
  connect(search_, &QPushButton::clicked, this, &AscendTab::runExactSearch);
  export_ = new QPushButton("Export Chrome trace (Perfetto)...", this);
  lower_ = new QPushButton("Lower the open GIR-Graph to Ascend", this);
  connect(lower_, &QPushButton::clicked, this, &AscendTab::lowerOpenGraph);
  connect(stages_, &QListWidget::currentRowChanged, this, [this](int row) {
    const auto* k = session_.ascend();
    if (k && row >= 0 && row < static_cast<int>(k->stages.size())) text_->setPlainText(QString::fromStdString(k->stages[row].text));
  });
  connect(export_, &QPushButton::clicked, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, "Export Chrome trace", QString(), "Chrome trace (*.json)");
    if (path.isEmpty()) return;
    if (auto st = exportChromeTrace(path); !st) Q_EMIT error("Export", QString::fromStdString(st.error().str()));
  });
  auto* top = new QSplitter(this);
  top->addWidget(stages_);
  top->addWidget(text_);
  top->setStretchFactor(1, 3);
  top->setSizes({220, 1200});
  auto* timeline = new QWidget(this);
  auto* timelineLayout = new QVBoxLayout(timeline);
  timelineLayout->setContentsMargins(0, 0, 0, 0);
  timelineLayout->addWidget(gap_);
  timelineLayout->addWidget(view_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(top);
  split->addWidget(timeline);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(stats_);
  layout->addWidget(split, 1);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(lower_);
  buttons->addWidget(search_);
  buttons->addWidget(export_);
  layout->addLayout(buttons);
  refresh();
}

void AscendTab::lowerOpenGraph() {
  if (lowering_) return;
  if (!session_.hasGir()) {
    Q_EMIT error("Lower to Ascend", "Open a GIR-Graph first (a .gir file or a model's subgraph).");
    return;
  }
  std::string target = session_.hardware().ascend ? session_.hardware().name : "ascend910";
  lowering_ = true;
  lower_->setEnabled(false);
  stats_->setText(QString("lowering the open GIR-Graph to an %1 .asck program, checking it against the GIR interpreter, inserting "
                          "set/wait flags...").arg(QString::fromStdString(target)));
  using Result = std::shared_ptr<Expected<viz::AscendKernel>>;
  auto* watcher = new QFutureWatcher<Result>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    watcher->deleteLater();
    lowering_ = false;
    lower_->setEnabled(true);
    Result r = watcher->result();
    if (!*r) {
      refresh();
      Q_EMIT error("Lower to Ascend", QString::fromStdString(r->error().str()));
      Q_EMIT loweredToAscend(false);
      return;
    }
    session_.setAscend(std::move(**r), "lowered from " + session_.graph().name);
    Q_EMIT loweredToAscend(true);
  });
  watcher->setFuture(QtConcurrent::run([g = session_.graph(), target] {
    return std::make_shared<Expected<viz::AscendKernel>>(viz::lowerGirToAscendKernel(g, target));
  }));
}

void AscendTab::runExactSearch() {
  const auto* k = session_.ascend();
  if (searching_ || !k || !k->inserted) return;
  searching_ = true;
  search_->setEnabled(false);
  gap_->setText("exact search with " + QString::number(k->target.flags) + " and with " +
                QString::number(k->target.flags == 4 ? 8 : 4) + " flag IDs...");
  using Result = std::shared_ptr<Expected<GapReport>>;
  auto* watcher = new QFutureWatcher<Result>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, version = kernelVersion_] {
    watcher->deleteLater();
    searching_ = false;
    search_->setEnabled(session_.ascend() != nullptr && session_.ascend()->inserted);
    Result r = watcher->result();
    if (version != kernelVersion_) return;  // another kernel was opened meanwhile
    if (!*r) {
      gap_->setText("exact search failed: " + QString::fromStdString(r->error().str()).toHtmlEscaped());
      Q_EMIT searchFinished(false);
      return;
    }
    gap_->setText("<pre>" + QString::fromStdString(gapText(**r)).toHtmlEscaped() + "</pre>");
    Q_EMIT searchFinished(true);
  });
  watcher->setFuture(QtConcurrent::run([input = k->input, output = k->output, target = k->target] {
    return std::make_shared<Expected<GapReport>>(measureGap(input, output, target));
  }));
}

void AscendTab::refresh() {
  stages_->clear();
  text_->clear();
  gap_->clear();
  ++kernelVersion_;
  const auto* k = session_.ascend();
  export_->setEnabled(k != nullptr);
  search_->setEnabled(k != nullptr && k->inserted && !searching_);  // an output kernel has no input to search
  if (!k) {
    stats_->setText("Open an .asck kernel (File > Open).");
    view_->scene()->clear();
    lanes_ = arrows_ = 0;
    rowsPerPair_.clear();
    return;
  }
  for (const auto& s : k->stages) stages_->addItem(QString::fromStdString(s.name));
  stages_->setCurrentRow(static_cast<int>(k->stages.size()) - 1);
  QString how = k->inserted ? QString("insertion: %1 dependencies, %2 virtual IDs, at most %3 physical IDs per pipe pair, %4 merges")
                                  .arg(k->stats.deps)
                                  .arg(k->stats.virtualIds)
                                  .arg(k->stats.physicalMaxPerPair)
                                  .arg(k->stats.merges) +
                                  "<br>" + QString::fromStdString(portfolioText(k->stats)).trimmed().toHtmlEscaped().replace("\n", "<br>")
                            : QString("an output kernel: shown as written");
  stats_->setText(QString("<b>%1</b> on %2 (%3 flag IDs per pipe pair): %4. Simulated makespan %5 cycles%6.")
                      .arg(QString::fromStdString(k->output.name).toHtmlEscaped(), QString::fromStdString(k->target.name))
                      .arg(k->target.flags)
                      .arg(how)
                      .arg(k->timeline.makespan)
                      .arg(k->timeline.deadlock ? " (DEADLOCK: the queues did not drain)" : ""));
  drawTimeline();
}

static QColor opColor(DynKind k) {
  switch (k) {
    case DynKind::Instr: return QColor(0x5d, 0xad, 0xe2);
    case DynKind::Set: return QColor(0x27, 0xae, 0x60);
    case DynKind::Wait: return QColor(0xe6, 0x7e, 0x22);
    case DynKind::Barrier:
    case DynKind::BarrierAll: return QColor(0x7f, 0x8c, 0x8d);
  }
  return Qt::gray;
}

void AscendTab::drawTimeline() {
  const auto* k = session_.ascend();
  QGraphicsScene* s = view_->scene();
  s->clear();
  rowsPerPair_.clear();
  const auto& tl = k->timeline;
  const qreal laneH = 26, left = 110;
  const qreal scale = tl.makespan > 0 ? std::clamp(1600.0 / static_cast<double>(tl.makespan), 0.05, 8.0) : 1.0;
  auto x = [&](int64_t t) { return left + static_cast<qreal>(t) * scale; };
  QFont f("sans", 8);
  lanes_ = kNumPipes;
  for (int p = 0; p < kNumPipes; ++p) {
    s->addRect(left, p * laneH, x(tl.makespan) - left, laneH - 2, QPen(QColor(0xdd, 0xdd, 0xdd)), QBrush(p % 2 ? QColor(0xfa, 0xfa, 0xfa) : Qt::white));
    s->addSimpleText(QString("pipe %1").arg(pipeName(static_cast<Pipe>(p))), f)->setPos(4, p * laneH + 6);
  }
  std::vector<std::pair<qreal, qreal>> setPos(k->trace.ops.size()), waitPos(k->trace.ops.size());
  for (const auto& op : tl.ops) {
    const DynOp& o = k->trace.ops[op.op];
    qreal w = std::max<qreal>(1.5, static_cast<qreal>(op.end - op.start) * scale);
    auto* r = op.pipe < 0 ? s->addRect(x(op.start), 0, w, kNumPipes * laneH - 2, QPen(Qt::NoPen), QBrush(opColor(o.kind)))
                          : s->addRect(x(op.start), op.pipe * laneH + 3, w, laneH - 8, QPen(opColor(o.kind).darker(130)), QBrush(opColor(o.kind)));
    r->setToolTip(QString("%1 [%2, %3)").arg(QString::fromStdString(k->trace.describe(op.op))).arg(op.start).arg(op.end));
    if (op.pipe >= 0) {
      setPos[op.op] = {x(op.end), op.pipe * laneH + laneH / 2};
      waitPos[op.op] = {x(op.start), op.pipe * laneH + laneH / 2};
    }
  }
  arrows_ = 0;
  QPen arrowPen(QColor(0x8e, 0x44, 0xad), 1.2);
  for (const auto& a : tl.arrows) {
    auto [x0, y0] = setPos[a.setOp];
    auto [x1, y1] = waitPos[a.waitOp];
    s->addLine(x0, y0, x1, y1, arrowPen)->setZValue(3);
    QPolygonF head({QPointF(x1, y1), QPointF(x1 - 5, y1 + (y1 > y0 ? -6 : 6) - 2), QPointF(x1 + 3, y1 + (y1 > y0 ? -6 : 6))});
    s->addPolygon(head, arrowPen, QBrush(arrowPen.color()))->setZValue(3);
    ++arrows_;
  }
  qreal y = kNumPipes * laneH + 16;
  s->addSimpleText("flag IDs per pipe pair (live from set to the consuming wait)", f)->setPos(4, y - 14);
  for (const auto& row : tl.flagRows) {
    ++rowsPerPair_[{row.src, row.dst}];
    s->addSimpleText(QString("%1->%2 #%3").arg(pipeName(static_cast<Pipe>(row.src)), pipeName(static_cast<Pipe>(row.dst))).arg(row.id), f)->setPos(4, y + 3);
    s->addRect(left, y, x(tl.makespan) - left, laneH - 10, QPen(QColor(0xee, 0xee, 0xee)), QBrush(Qt::NoBrush));
    for (const auto& iv : row.intervals) {
      qreal w = std::max<qreal>(1.5, static_cast<qreal>(iv.end - iv.begin) * scale);
      auto* r = s->addRect(x(iv.begin), y + 2, w, laneH - 14, QPen(Qt::NoPen), QBrush(iv.waitOp < 0 ? QColor(0xc0, 0x39, 0x2b) : QColor(0x8e, 0x44, 0xad, 160)));
      r->setToolTip(QString("live [%1, %2)%3").arg(iv.begin).arg(iv.end).arg(iv.waitOp < 0 ? " never consumed" : ""));
    }
    y += laneH - 6;
  }
  s->setSceneRect(s->itemsBoundingRect().adjusted(-10, -10, 10, 10));
}

Status AscendTab::exportChromeTrace(const QString& path) const {
  const auto* k = session_.ascend();
  if (!k) return makeError("no Ascend kernel is open");
  return writeFileAtomically(path.toStdString(), viz::chromeTraceJson(k->timeline, k->trace, k->output.name));
}

}  // namespace gir::app
