// The what-if's form fields (issue #18, point 8): a hardware description's numbers a user asks "what
// if" about — each level's bandwidth and capacity, the unit counts, the launch and sync costs, the
// peak FLOP/s — as spin boxes beside the raw JSON. The form edits a copy: apply() writes its values
// into a description, show() reads them from one; `edited` fires on every user change.
#pragma once

#include <QWidget>
#include <vector>

#include "core/hw/HardwareDesc.h"

class QDoubleSpinBox;
class QFormLayout;

namespace gir::app {

class HardwareForm : public QWidget {
  Q_OBJECT

 public:
  explicit HardwareForm(QWidget* parent = nullptr);
  void show(const HardwareDesc& hw);  // rebuilds the rows when the levels differ; no `edited`
  HardwareDesc apply(HardwareDesc hw) const;  // `hw` with the form's values (levels matched by name)
  // The spin box of a field, by its label ("dram bandwidth GB/s", "max units", ...); null if absent.
  QDoubleSpinBox* field(const QString& label) const;

 Q_SIGNALS:
  void edited();

 private:
  QDoubleSpinBox* addRow(const QString& label, double max, int decimals);

  QFormLayout* form_;
  std::vector<std::string> levels_;  // the levels the rows were built for
  std::vector<std::pair<QString, QDoubleSpinBox*>> fields_;
  bool showing_ = false;
};

}  // namespace gir::app
