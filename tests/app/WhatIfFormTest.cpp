// The what-if as form fields (issue #18, point 8): the fields and the JSON are one copy; halving DRAM
// bandwidth in the form rewrites the JSON, the re-plan keeps the GIR row and models it slower; a JSON
// edit refills the form; the session's hardware stays untouched.
#include <catch2/catch.hpp>

#include <QDoubleSpinBox>
#include <QListWidget>
#include <QTableWidget>
#include <nlohmann/json.hpp>

#include "app/HardwareForm.h"
#include "app/PlanTab.h"
#include "app/Session.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("what-if fields: a form edit rewrites the JSON, the re-plan keeps the GIR row", "[app][whatif]") {
  auto w = test::makeWindow();
  test::chooseTarget(w.get(), "cpu-host");
  PlanTab* p = w->planTab();
  QSignalSpy lowered(p, &PlanTab::loweredPlansReady);
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/layernorm.onnx"))));
  REQUIRE((lowered.count() > 0 || lowered.wait(120000)));
  HardwareForm* form = p->whatIfForm();
  QDoubleSpinBox* dram = form->field("dram bandwidth GB/s");
  REQUIRE(dram);
  CHECK(dram->value() == Approx(w->session().hardware().dramBandwidthGBs()));
  REQUIRE(form->field("local capacity bytes"));
  CHECK(form->field("local capacity bytes")->value() == 49152);
  CHECK(form->field("launch cost us")->value() == Approx(w->session().hardware().launchCostUs));
  // Half the DRAM bandwidth in the form: the JSON says so.
  double half = dram->value() / 2;
  dram->setValue(half);
  auto json = nlohmann::json::parse(p->whatIfText().toStdString());
  for (const auto& l : json["levels"])
    if (l["name"] == "dram") CHECK(l["bandwidth_gbs"].get<double>() == Approx(half));
  // A JSON edit refills the form.
  json["launch_cost_us"] = 7.5;
  p->setWhatIfText(QString::fromStdString(json.dump(1)));
  CHECK(form->field("launch cost us")->value() == Approx(7.5));
  CHECK(dram->value() == Approx(half));
  // Re-plan: the session's GIR row stays, the what-if's lowered rows arrive with their own GIR row.
  QSignalSpy whatIfLowered(p, &PlanTab::whatIfLoweredReady);
  REQUIRE(p->replanWhatIf());
  CHECK(p->table()->item(0, 0)->text() == "gir (lowered)");
  REQUIRE((whatIfLowered.count() > 0 || whatIfLowered.wait(120000)));
  REQUIRE(whatIfLowered.front().front().toBool());
  const auto& base = p->loweredPlans()->planners.front();
  const auto& edited = p->whatIfLoweredPlans()->planners.front();
  CHECK(edited.planner == "gir");
  CHECK(edited.modelledUs > base.modelledUs);
  // "What changed" now names the GIR row's change too, once the lowered what-if lands.
  bool girLine = false;
  for (int i = 0; i < p->differences()->count(); ++i) girLine |= p->differences()->item(i)->text().startsWith("gir (lowered): modelled ");
  CHECK(girLine);
  CHECK(w->session().hardware().dramBandwidthGBs() == Approx(2 * half));  // untouched
  w->tabs()->setCurrentWidget(p);
  test::saveScreenshot(w.get(), "plans_whatif_form");
}
