// Layout off the UI thread with QtConcurrent; the newest request wins, older ones are cancelled.
#include "app/GraphCanvas.h"

#include <QFile>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QSvgGenerator>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

#include "app/Minimap.h"
#include "app/SceneItems.h"
#include "viz/Find.h"

namespace gir::app {

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(Qt::white);
  connect(scene(), &QGraphicsScene::selectionChanged, this, &GraphCanvas::onSelectionChanged);
  minimap_ = new Minimap(this);
}

void GraphCanvas::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  minimap_->sync();
}

GraphCanvas::~GraphCanvas() {
  if (pending_) pending_->store(true);
  if (watcher_) watcher_->waitForFinished();
  // The scene is a child, deleted after this destructor: clearing a selection then emits
  // selectionChanged into a canvas that no longer exists (ASan, with a node selected at close).
  scene()->disconnect(this);
}

void GraphCanvas::showGraph(viz::VizGraph g, bool keepExpanded) {
  if (!keepExpanded) expanded_.clear(), userCollapsed_.clear();
  fitOnReady_ = !keepExpanded;
  full_ = std::move(g);
  startLayout([full = full_] { return full; }, true);
}

void GraphCanvas::showGraphFrom(std::function<viz::VizGraph()> build, bool keepExpanded) {
  if (!keepExpanded) expanded_.clear(), userCollapsed_.clear();
  fitOnReady_ = !keepExpanded;
  startLayout(std::move(build), true);
}

void GraphCanvas::clearGraph() {
  if (pending_) pending_->store(true);
  full_ = visible_ = {};
  sceneModel_ = {};
  scene()->clear();
  minimap_->hide();
}

void GraphCanvas::setExpanded(int cluster, bool expanded) {
  if (expanded) {
    expanded_.insert(cluster);
    userCollapsed_.erase(cluster);
  } else {
    expanded_.erase(cluster);
    if (full_.nodes.size() <= threshold_) userCollapsed_.insert(cluster);
  }
  relayout();
}

std::set<int> GraphCanvas::collapsedNow() const {
  std::set<int> c = viz::defaultCollapsed(full_, threshold_, expanded_);
  c.insert(userCollapsed_.begin(), userCollapsed_.end());
  return c;
}

void GraphCanvas::relayout() {
  startLayout([full = full_] { return full; }, false);
}

// build -> collapse -> layout -> scene on a worker; the items are made on the UI thread (populate).
// A new graph (not a relayout of the shown one) ends the find: its hits are of the old graph.
void GraphCanvas::startLayout(std::function<viz::VizGraph()> build, bool newGraph) {
  if (pending_) pending_->store(true);  // the older layout's result will be dropped
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  pending_ = cancel;
  auto* watcher = new QFutureWatcher<std::shared_ptr<LayoutJob>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<LayoutJob>>::finished, this, [this, watcher, cancel, newGraph] {
    watcher->deleteLater();
    if (watcher_ == watcher) watcher_ = nullptr;
    if (cancel->load() || pending_ != cancel) return;
    pending_.reset();
    auto job = watcher->result();
    full_ = std::move(job->full);
    if (newGraph) {
      findQuery_.clear();
      findHits_.clear();
      findCursor_ = -1;
      pendingFindKey_.clear();
    }
    if (!job->layout) {
      Q_EMIT layoutFailed(QString::fromStdString(job->layout.error().message));
      return;
    }
    populate(*job);
  });
  watcher_ = watcher;
  watcher->setFuture(QtConcurrent::run([build = std::move(build), expanded = expanded_, closed = userCollapsed_, threshold = threshold_, cancel]() {
    auto job = std::make_shared<LayoutJob>();
    job->full = build();
    std::set<int> collapsed = viz::defaultCollapsed(job->full, threshold, expanded);
    for (int c : closed)
      if (c < static_cast<int>(job->full.clusters.size())) collapsed.insert(c);
    job->visible = viz::collapseClusters(job->full, collapsed);
    job->layout = viz::layoutGraph(job->visible, cancel.get());
    if (job->layout) job->scene = viz::buildScene(job->visible, *job->layout);
    return job;
  }));
}

void GraphCanvas::populate(const LayoutJob& job) {
  visible_ = job.visible;
  sceneModel_ = job.scene;
  QGraphicsScene* s = scene();
  s->blockSignals(true);
  s->clear();
  s->blockSignals(false);
  for (const auto& c : sceneModel_.clusters) s->addItem(new ClusterItem(c));
  for (const auto& e : sceneModel_.edges) s->addItem(new EdgeItem(e));
  for (const auto& n : sceneModel_.nodes) s->addItem(new NodeItem(n, visible_.nodes[n.index]));
  auto* legend = new LegendItem(sceneModel_);
  legend->setPos(sceneModel_.bounds.right() + 30, sceneModel_.bounds.top());
  s->addItem(legend);
  s->setSceneRect(s->itemsBoundingRect().adjusted(-20, -20, 20, 20));
  if (fitOnReady_) {
    resetTransform();
    QRectF r = s->sceneRect();
    if (r.width() > viewport()->width() || r.height() > viewport()->height()) fitAll();
    if (transform().m11() < 0.35) {  // too small to read: readable scale, start at the top
      resetTransform();
      scale(0.35, 0.35);
      centerOn(r.center().x(), r.top() + viewport()->height() / 0.7);
    }
    fitOnReady_ = false;
  }
  if (!pendingFindKey_.empty()) {
    selectKey(pendingFindKey_);
    pendingFindKey_.clear();
  }
  minimap_->sync();
  Q_EMIT sceneReady();
}

int GraphCanvas::nodeItemCount(const std::set<viz::ItemKind>& kinds) const {
  int n = 0;
  for (QGraphicsItem* it : scene()->items())
    if (it->type() == NodeItemType && kinds.count(static_cast<NodeItem*>(it)->kind())) ++n;
  return n;
}

void GraphCanvas::zoomBy(double factor) {
  double current = transform().m11();
  if (current * factor < 0.02 || current * factor > 20) return;
  scale(factor, factor);
  minimap_->sync();
}

void GraphCanvas::fitAll() {
  fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
  minimap_->sync();
}

void GraphCanvas::zoomToReadable() {
  const auto selected = scene()->selectedItems();
  QPointF centre = selected.isEmpty() ? mapToScene(viewport()->rect().center()) : selected.front()->sceneBoundingRect().center();
  resetTransform();
  centerOn(centre);
  minimap_->sync();
}

bool GraphCanvas::selectKey(const std::string& key) {
  for (QGraphicsItem* it : scene()->items()) {
    if (it->type() != NodeItemType) continue;
    auto* n = static_cast<NodeItem*>(it);
    if (visible_.nodes[n->index()].key != key) continue;
    scene()->clearSelection();
    n->setSelected(true);
    if (transform().m11() < 0.6) resetTransform();  // a found node is shown where it can be read
    centerOn(n);
    minimap_->sync();
    return true;
  }
  return false;
}

int GraphCanvas::findStep(const QString& query, int step) {
  std::string q = query.toStdString();
  if (q != findQuery_) {
    findQuery_ = q;
    findHits_ = viz::findNodes(full_, q);
    findCursor_ = -1;
  }
  int count = static_cast<int>(findHits_.size());
  if (count == 0) {
    findCursor_ = -1;
    return 0;
  }
  findCursor_ = findCursor_ < 0 ? (step >= 0 ? 0 : count - 1) : ((findCursor_ + step) % count + count) % count;
  const viz::VizNode& hit = full_.nodes[findHits_[findCursor_]];
  if (!selectKey(hit.key) && hit.cluster >= 0 && !expanded_.count(hit.cluster)) {
    pendingFindKey_ = hit.key;  // inside a collapsed kernel: expand it, select once drawn
    setExpanded(hit.cluster, true);
  }
  return count;
}

void GraphCanvas::wheelEvent(QWheelEvent* e) { zoomBy(e->angleDelta().y() > 0 ? 1.15 : 1 / 1.15); }

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* e) {
  for (QGraphicsItem* it : items(e->pos())) {
    if (it->type() == NodeItemType && static_cast<NodeItem*>(it)->kind() == viz::ItemKind::Cluster) {
      setExpanded(static_cast<int>(static_cast<NodeItem*>(it)->source()), true);
      return;
    }
    if (it->type() == ClusterItemType) {  // a cluster's frame: collapse it (any size of graph)
      setExpanded(static_cast<ClusterItem*>(it)->index(), false);
      return;
    }
  }
  QGraphicsView::mouseDoubleClickEvent(e);
}

void GraphCanvas::onSelectionChanged() {
  const auto selected = scene()->selectedItems();
  if (selected.isEmpty()) {
    Q_EMIT selectionCleared();
    return;
  }
  QGraphicsItem* it = selected.front();
  if (it->type() == NodeItemType) Q_EMIT nodeSelected(static_cast<NodeItem*>(it)->index());
  if (it->type() == EdgeItemType) Q_EMIT edgeSelected(static_cast<EdgeItem*>(it)->index());
}

void GraphCanvas::selectGraphNode(int64_t source) {
  scene()->clearSelection();
  for (QGraphicsItem* it : scene()->items()) {
    if (it->type() != NodeItemType) continue;
    auto* n = static_cast<NodeItem*>(it);
    if (n->source() != source || n->kind() == viz::ItemKind::Terminal || n->kind() == viz::ItemKind::Cluster) continue;
    n->setSelected(true);
    centerOn(n);
    return;
  }
}

Status GraphCanvas::exportDot(const QString& path) const {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return makeError("cannot write " + path.toStdString() + ": " + f.errorString().toStdString());
  f.write(QByteArray::fromStdString(viz::toDot(visible_)));
  return success();
}

Status GraphCanvas::exportSvg(const QString& path) {
  QRectF r = scene()->sceneRect();
  QSvgGenerator gen;
  gen.setFileName(path);
  gen.setSize(r.size().toSize());
  gen.setViewBox(QRectF(QPointF(0, 0), r.size()));
  gen.setTitle("GIR Workbench graph");
  QPainter p;
  if (!p.begin(&gen)) return makeError("cannot write " + path.toStdString());
  scene()->render(&p, QRectF(QPointF(0, 0), r.size()), r);
  p.end();
  return success();
}

Status GraphCanvas::exportPng(const QString& path) {
  QRectF r = scene()->sceneRect();
  double scale = std::min(2.0, 8000.0 / std::max(1.0, std::max(r.width(), r.height())));
  QImage img((r.size() * scale).toSize(), QImage::Format_ARGB32);
  img.fill(Qt::white);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing);
  scene()->render(&p, QRectF(QPointF(0, 0), r.size() * scale), r);
  p.end();
  if (!img.save(path, "PNG")) return makeError("cannot write " + path.toStdString());
  return success();
}

}  // namespace gir::app
