// `gir run --json` (cli/RunCommand.cpp, candidateJson) to the Measure tab's figures, with the per-kernel
// error figures computed here as they are for the candidates in the command's own summary.
#include "codegen/cpu/Measure.h"

#include "core/JsonText.h"

namespace gir::codegen::cpu {

namespace {

Expected<KernelMeasure> kernelFrom(const nlohmann::json& k, int index, double streamCopyGBs) {
  KernelMeasure m;
  m.kernel = index;
  m.modelledUs = k.at("modelled_us").get<double>();
  m.dramBytes = k.at("dram_bytes").get<int64_t>();
  if (k.at("measured_us").is_null()) return makeError("kernel " + std::to_string(index) + " was not timed");
  m.measured.medianUs = k.at("measured_us").get<double>();
  const auto& spread = k.at("spread_us");
  m.measured.p10Us = spread.at(0).get<double>();
  m.measured.p90Us = spread.at(1).get<double>();
  m.measured.repeats = k.at("repeats").get<int>();
  double t = m.measured.medianUs;
  m.errorPercent = t > 0 ? 100 * (m.modelledUs - t) / t : 0;
  m.measuredGBs = t > 0 ? static_cast<double>(m.dramBytes) / (t * 1e3) : 0;
  m.fractionOfStream = streamCopyGBs > 0 ? m.measuredGBs / streamCopyGBs : 0;
  return m;
}

}  // namespace

Expected<MeasureResult> measureResultFromRunJson(const std::string& text) {
  auto doc = parseJsonText(text, "gir run --json");
  if (!doc) return doc.takeError();
  try {
    const auto& cands = doc->at("candidates");
    if (cands.size() != 1) return makeError("gir run reported " + std::to_string(cands.size()) + " candidates, expected 1");
    const auto& c = cands.at(0);
    if (c.contains("skipped")) return makeError("gir run skipped the graph: " + c.at("skipped").get<std::string>());
    MeasureResult r;
    r.hardware = doc->at("target").get<std::string>();
    r.streamCopyGBs = doc->at("stream_copy_gbs").get<double>();
    r.outputsMatch = c.at("matches").get<bool>();
    r.maxRelativeOutputError = c.at("max_rel_error").get<double>();
    if (!r.outputsMatch) return r;  // a kernel that does not match is not timed
    std::vector<double> modelled, measured;
    const auto& ks = c.at("per_kernel");
    for (size_t i = 0; i < ks.size(); ++i) {
      auto k = kernelFrom(ks[i], static_cast<int>(i), r.streamCopyGBs);
      if (!k) return k.takeError();
      modelled.push_back(k->modelledUs);
      measured.push_back(k->measured.medianUs);
      r.kernels.push_back(*k);
    }
    r.error = modelError(modelled, measured);
    return r;
  } catch (const nlohmann::json::exception& e) {
    return makeError(std::string("unexpected output from gir run --json: ") + e.what());
  }
}

}  // namespace gir::codegen::cpu
