// The target picker in the toolbar (docs/app.md, "Target"): every bundled hardware description and any
// description opened from a file; choosing one sets the session's hardware. The default is this machine's
// kind (codegen::gpu::defaultTargetForThisMachine).
#pragma once

#include <QComboBox>

#include "core/Expected.h"
#include "core/hw/HardwareDesc.h"

namespace gir::app {

class Session;

class TargetPicker : public QComboBox {
  Q_OBJECT

 public:
  TargetPicker(Session& session, QWidget* parent = nullptr);
  // A description opened from `path`: listed (once per path) and chosen.
  Status addFromFile(const HardwareDesc& hw, const QString& path);
  // What the numbers come from: "cpu-host (hardware/cpu-host.json)".
  QString source() const;

 Q_SIGNALS:
  void error(const QString& title, const QString& message);

 private:
  void choose(int index);
  void follow();
  Session& session_;
};

}  // namespace gir::app
