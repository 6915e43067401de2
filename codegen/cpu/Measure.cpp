// Build, check, time, model: four stages with a cancel check between each.
#include "codegen/cpu/Measure.h"

#include "codegen/cpu/CpuCheck.h"
#include "core/gir/Interpreter.h"

namespace gir::codegen::cpu {


Expected<MeasureResult> measureOnCpu(const Graph& g, const HardwareDesc& hw, const MeasureOptions& options,
                                     const std::atomic<bool>* cancel, const MeasureProgress& progress) {
  auto stop = [&] { return cancel && cancel->load(); };
  auto say = [&](int stage, const std::string& what) {
    if (progress) progress(stage, 4, what);
  };
  say(0, "compiling the generated C++/OpenMP");
  auto k = CompiledKernel::build(g, options.launch);
  if (!k) return k.takeError();
  if (stop()) return makeError("measurement cancelled");
  say(1, "checking the outputs against the interpreter");
  auto check = checkAgainstInterpreter(g, *k, 1);
  if (!check) return check.takeError();
  if (stop()) return makeError("measurement cancelled");
  say(2, "timing each kernel");
  TensorMap inputs = randomInputs(g, 1);
  auto times = k->timeKernels(inputs, options.timing);
  if (!times) return times.takeError();
  if (stop()) return makeError("measurement cancelled");
  say(3, "modelling");
  GraphModel model = modelCpu(g, hw);
  if (model.kernels.size() != times->size())
    return makeError("the cost model counts " + std::to_string(model.kernels.size()) + " kernels but the compiled code has " +
                     std::to_string(times->size()));
  MeasureResult r;
  r.hardware = hw.name;
  r.maxRelativeOutputError = check->maxRelativeError;
  r.outputsMatch = check->close;
  r.streamCopyGBs = hw.dramBandwidthGBs();
  std::vector<double> modelled, measured;
  for (size_t i = 0; i < times->size(); ++i) {
    KernelMeasure m;
    m.kernel = static_cast<int>(i);
    m.modelledUs = model.kernels[i].modelledUs;
    m.measured = (*times)[i];
    m.errorPercent = m.measured.medianUs > 0 ? 100 * (m.modelledUs - m.measured.medianUs) / m.measured.medianUs : 0;
    m.dramBytes = model.kernels[i].dramBytes;
    m.measuredGBs = m.measured.medianUs > 0 ? static_cast<double>(m.dramBytes) / (m.measured.medianUs * 1e3) : 0;
    m.fractionOfStream = r.streamCopyGBs > 0 ? m.measuredGBs / r.streamCopyGBs : 0;
    modelled.push_back(m.modelledUs);
    measured.push_back(m.measured.medianUs);
    r.kernels.push_back(m);
  }
  r.error = modelError(modelled, measured);
  return r;
}

}  // namespace gir::codegen::cpu
