// One spin box per number; the rows are rebuilt only when another set of levels comes in.
#include "app/HardwareForm.h"

#include <QDoubleSpinBox>
#include <QFormLayout>

namespace gir::app {

namespace {

const char* const kScopeNames[4] = {"lane", "unit", "block", "device"};

}  // namespace

HardwareForm::HardwareForm(QWidget* parent) : QWidget(parent) {
  form_ = new QFormLayout(this);
  form_->setContentsMargins(0, 0, 0, 0);
}

QDoubleSpinBox* HardwareForm::addRow(const QString& label, double max, int decimals) {
  auto* box = new QDoubleSpinBox(this);
  box->setRange(0, max);
  box->setDecimals(decimals);
  box->setKeyboardTracking(false);  // one `edited` per finished entry, not per key
  connect(box, &QDoubleSpinBox::valueChanged, this, [this] {
    if (!showing_) Q_EMIT edited();
  });
  form_->addRow(label, box);
  fields_.emplace_back(label, box);
  return box;
}

QDoubleSpinBox* HardwareForm::field(const QString& label) const {
  for (const auto& [name, box] : fields_)
    if (name == label) return box;
  return nullptr;
}

void HardwareForm::show(const HardwareDesc& hw) {
  showing_ = true;
  std::vector<std::string> levels;
  for (const auto& l : hw.levels) levels.push_back(l.name);
  if (levels != levels_) {
    while (form_->rowCount() > 0) form_->removeRow(0);
    fields_.clear();
    levels_ = levels;
    for (const auto& l : levels) {
      addRow(QString::fromStdString(l) + " bandwidth GB/s", 1e7, 1);
      addRow(QString::fromStdString(l) + " capacity bytes", 1e15, 0);
    }
    addRow("max units", 1e9, 0);
    addRow("max units per block", 1e6, 0);
    addRow("launch cost us", 1e6, 2);
    for (int s = 1; s < 4; ++s) addRow(QString("%1 sync cost us").arg(kScopeNames[s]), 1e6, 2);
    addRow("peak GFLOP/s", 1e9, 1);
  }
  for (const auto& l : hw.levels) {
    field(QString::fromStdString(l.name) + " bandwidth GB/s")->setValue(l.bandwidthGBs);
    field(QString::fromStdString(l.name) + " capacity bytes")->setValue(static_cast<double>(l.capacityBytes));
  }
  field("max units")->setValue(static_cast<double>(hw.maxUnits));
  field("max units per block")->setValue(hw.maxUnitsPerBlock);
  field("launch cost us")->setValue(hw.launchCostUs);
  for (int s = 1; s < 4; ++s) field(QString("%1 sync cost us").arg(kScopeNames[s]))->setValue(hw.syncCostUs[s]);
  field("peak GFLOP/s")->setValue(hw.peakGflops);
  showing_ = false;
}

HardwareDesc HardwareForm::apply(HardwareDesc hw) const {
  for (auto& l : hw.levels) {
    if (auto* b = field(QString::fromStdString(l.name) + " bandwidth GB/s")) l.bandwidthGBs = b->value();
    if (auto* c = field(QString::fromStdString(l.name) + " capacity bytes")) l.capacityBytes = static_cast<int64_t>(c->value());
  }
  if (auto* u = field("max units")) hw.maxUnits = static_cast<int64_t>(u->value());
  if (auto* u = field("max units per block")) hw.maxUnitsPerBlock = static_cast<int>(u->value());
  if (auto* c = field("launch cost us")) hw.launchCostUs = c->value();
  for (int s = 1; s < 4; ++s)
    if (auto* c = field(QString("%1 sync cost us").arg(kScopeNames[s]))) hw.syncCostUs[s] = c->value();
  if (auto* p = field("peak GFLOP/s")) hw.peakGflops = p->value();
  return hw;
}

}  // namespace gir::app
