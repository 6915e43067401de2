// The Ascend inspector (docs/app.md, "Tabs"): the .asck kernel stage by stage through the sync
// insertion (input, deps, normalize, virtual, redundant, parity, merge, physical, output), a per-pipe
// timeline of the output's simulated run with set -> wait arrows, one row per flag ID per pipe pair
// with its live intervals, the portfolio's choice, the exact search's gap (docs/ascend.md, "The exact
// search") and the Chrome trace export (Perfetto).
#pragma once

#include <QWidget>
#include <map>
#include <utility>

#include "core/Expected.h"

class QGraphicsView;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace gir::app {

class Session;

class AscendTab : public QWidget {
  Q_OBJECT

 public:
  AscendTab(Session& session, QWidget* parent = nullptr);
  void refresh();
  Status exportChromeTrace(const QString& path) const;

  int laneCount() const { return lanes_; }
  // Flag rows drawn per ordered pipe pair (src, dst).
  const std::map<std::pair<int, int>, int>& flagRowsPerPair() const { return rowsPerPair_; }
  int arrowCount() const { return arrows_; }
  QListWidget* stageList() const { return stages_; }
  QPlainTextEdit* stageText() const { return text_; }
  QGraphicsView* timeline() const { return view_; }
  // Lowers the open GIR-Graph to an .asck program on a worker (the session's target when it is an Ascend
  // one, else ascend910) and shows it like an opened input kernel; loweredToAscend reports the end.
  void lowerOpenGraph();
  bool lowering() const { return lowering_; }
  // Runs the exact search (4 and 8 IDs) for the open kernel on a worker; the gap label shows the
  // heuristic against it, and searchFinished reports the end.
  void runExactSearch();
  bool searching() const { return searching_; }
  QLabel* gapLabel() const { return gap_; }
  QLabel* statsLabel() const { return stats_; }

 Q_SIGNALS:
  void error(const QString& title, const QString& message);
  void loweredToAscend(bool ok);
  void searchFinished(bool ok);

 private:
  void drawTimeline();

  Session& session_;
  QListWidget* stages_;
  QPlainTextEdit* text_;
  QLabel *stats_, *gap_;
  QGraphicsView* view_;
  QPushButton *export_, *lower_, *search_;
  bool lowering_ = false, searching_ = false;
  int kernelVersion_ = 0;  // bumped by refresh(): a search result for an older kernel is dropped
  int lanes_ = 0, arrows_ = 0;
  std::map<std::pair<int, int>, int> rowsPerPair_;
};

}  // namespace gir::app
