// Each entry's data is the description's file; choosing re-reads it, so an edited file takes effect.
#include "app/TargetPicker.h"

#include <QFileInfo>

#include "app/Session.h"

namespace gir::app {

TargetPicker::TargetPicker(Session& session, QWidget* parent) : QComboBox(parent), session_(session) {
  setSizeAdjustPolicy(QComboBox::AdjustToContents);
  setToolTip("The hardware description that plans, lowering and costs use (Measure always runs on this CPU)");
  for (const std::string& name : bundledHardwareNames())
    addItem(QString::fromStdString(name), QString::fromStdString(hardwareDirectory() + "/" + name + ".json"));
  int current = findText(QString::fromStdString(session_.hardware().name));
  if (current >= 0) setCurrentIndex(current);
  connect(this, &QComboBox::activated, this, &TargetPicker::choose);
  connect(&session_, &Session::hardwareChanged, this, &TargetPicker::follow);
}

// The session's hardware changed elsewhere (a workspace): show its entry, or one for it.
void TargetPicker::follow() {
  QString name = QString::fromStdString(session_.hardware().name);
  if (itemText(currentIndex()).section(' ', 0, 0) == name) return;
  int at = findText(name);
  if (at < 0) {
    addItem(name + " (from a workspace)", QString());
    at = count() - 1;
  }
  setCurrentIndex(at);
}

void TargetPicker::choose(int index) {
  QString path = itemData(index).toString();
  auto hw = loadHardwareDesc(path.toStdString());
  auto st = hw ? session_.setHardware(*hw) : Status(hw.takeError());
  if (!st) Q_EMIT error("Target", QString::fromStdString(st.error().str()));
}

Status TargetPicker::addFromFile(const HardwareDesc& hw, const QString& path) {
  QString canonical = QFileInfo(path).canonicalFilePath();
  int at = findData(canonical);
  if (at < 0) {
    addItem(QString::fromStdString(hw.name) + " (" + QFileInfo(path).fileName() + ")", canonical);
    at = count() - 1;
  }
  setCurrentIndex(at);
  return session_.setHardware(hw);
}

QString TargetPicker::source() const {
  QString file = itemData(currentIndex()).toString();
  return QString::fromStdString(session_.hardware().name) + (file.isEmpty() ? QString(" (from a workspace)") : " (" + file + ")");
}

}  // namespace gir::app
