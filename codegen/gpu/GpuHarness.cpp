// The host harness and build script of an emitted GPU program: allocate, copy, launch, copy back,
// compare with reference outputs given as files, time with events (warm-up, median of repeats).
#include <sstream>

#include "codegen/gpu/GpuEmitter.h"

namespace gir::gpu {

namespace {

// The harness body is the same for CUDA and HIP up to the API prefix ("cuda" / "hip").
constexpr const char* kHarnessMain = R"(
static bool girReadFile(const std::string& path, std::vector<float>& v, size_t n) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  v.assign(n, 0.0f);
  size_t got = std::fread(v.data(), sizeof(float), n, f);
  std::fclose(f);
  return got == n;
}

static bool girWriteFile(const std::string& path, const std::vector<float>& v) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  size_t put = std::fwrite(v.data(), sizeof(float), v.size(), f);
  return std::fclose(f) == 0 && put == v.size();
}

#define GIR_CHECK(call)                                                                   \
  do {                                                                                    \
    API(Error_t) err_ = (call);                                                           \
    if (err_ != API(Success)) {                                                           \
      std::fprintf(stderr, "gir-harness: %s failed: %s\n", #call, API(GetErrorString)(err_)); \
      return 4;                                                                           \
    }                                                                                     \
  } while (0)

int main(int argc, char** argv) {
  std::string dir = ".";
  int warmup = 10, repeat = 100;
  double rtol = 1e-4, atol = 1e-5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--warmup" && i + 1 < argc) warmup = std::atoi(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--rtol" && i + 1 < argc) rtol = std::atof(argv[++i]);
    else if (a == "--atol" && i + 1 < argc) atol = std::atof(argv[++i]);
    else if (a.rfind("--", 0) == 0) { std::fprintf(stderr, "usage: %s [DATA_DIR] [--warmup N] [--repeat N] [--rtol X] [--atol X]\n", argv[0]); return 2; }
    else dir = a;
  }
  int devices = 0;
  API(Error_t) derr = API(GetDeviceCount)(&devices);
  if (derr != API(Success) || devices == 0) {
    std::fprintf(stderr, "gir-harness: no GPU device: %s\n", derr != API(Success) ? API(GetErrorString)(derr) : "device count is 0");
    return 3;
  }
  const size_t nb = sizeof(kGirBuffers) / sizeof(kGirBuffers[0]);
  std::vector<float*> dev(nb, nullptr);
  for (size_t i = 0; i < nb; ++i) {
    const GirBuffer& b = kGirBuffers[i];
    GIR_CHECK(API(Malloc)(reinterpret_cast<void**>(&dev[i]), b.elements * sizeof(float)));
    GIR_CHECK(API(Memset)(dev[i], 0, b.elements * sizeof(float)));
    if (b.role != 1) continue;
    std::vector<float> host;
    if (!girReadFile(dir + "/" + b.name + ".in.bin", host, b.elements)) {
      std::fprintf(stderr, "gir-harness: cannot read %zu floats from %s/%s.in.bin\n", b.elements, dir.c_str(), b.name);
      return 2;
    }
    GIR_CHECK(API(Memcpy)(dev[i], host.data(), b.elements * sizeof(float), API(MemcpyHostToDevice)));
  }
  API(Stream_t) stream;
  GIR_CHECK(API(StreamCreate)(&stream));
  GIR_CHECK(static_cast<API(Error_t)>(GIR_LAUNCH(dev.data(), stream)));
  GIR_CHECK(API(StreamSynchronize)(stream));
  bool ok = true;
  size_t checked = 0;
  double maxAbs = 0, maxRel = 0;
  for (size_t i = 0; i < nb; ++i) {
    const GirBuffer& b = kGirBuffers[i];
    if (b.role != 2) continue;
    std::vector<float> got(b.elements), want;
    GIR_CHECK(API(Memcpy)(got.data(), dev[i], b.elements * sizeof(float), API(MemcpyDeviceToHost)));
    girWriteFile(dir + "/" + b.name + ".out.bin", got);
    if (!girReadFile(dir + "/" + b.name + ".ref.bin", want, b.elements)) continue;
    ++checked;
    for (size_t e = 0; e < b.elements; ++e) {
      double x = got[e], y = want[e];
      bool good = std::isnan(x) || std::isnan(y) ? std::isnan(x) && std::isnan(y) : std::fabs(x - y) <= atol + rtol * std::fabs(y);
      if (!good && ok) std::fprintf(stderr, "gir-harness: %s[%zu] = %.9g, expected %.9g\n", b.name, e, x, y);
      ok = ok && good;
      if (!std::isnan(x) && !std::isnan(y)) {
        maxAbs = std::fmax(maxAbs, std::fabs(x - y));
        maxRel = std::fmax(maxRel, std::fabs(x - y) / std::fmax(std::fabs(y), 1e-6));
      }
    }
  }
  API(Event_t) start, stop;
  GIR_CHECK(API(EventCreate)(&start));
  GIR_CHECK(API(EventCreate)(&stop));
  for (int i = 0; i < warmup; ++i) GIR_LAUNCH(dev.data(), stream);
  std::vector<float> ms;
  for (int i = 0; i < repeat; ++i) {
    GIR_CHECK(API(EventRecord)(start, stream));
    GIR_LAUNCH(dev.data(), stream);
    GIR_CHECK(API(EventRecord)(stop, stream));
    GIR_CHECK(API(EventSynchronize)(stop));
    float t = 0;
    GIR_CHECK(API(EventElapsedTime)(&t, start, stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  double median = ms.empty() ? 0 : (ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]));
  std::printf("GIR_RESULT {\"graph\": \"%s\", \"ok\": %s, \"checked_outputs\": %zu, \"max_abs_error\": %.6g, "
              "\"max_rel_error\": %.6g, \"median_us\": %.4f, \"min_us\": %.4f, \"repeats\": %d, \"kernels\": %d}\n",
              kGirGraphName, ok ? "true" : "false", checked, maxAbs, maxRel, median * 1000.0, ms.empty() ? 0.0 : ms[0] * 1000.0,
              repeat, kGirKernels);
  for (float* p : dev) API(Free)(p);
  return ok ? 0 : 1;
}
)";

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
  return s;
}

}  // namespace

std::string emitHarness(const GpuProgram& p) {
  std::ostringstream os;
  bool cuda = p.target.api == GpuApi::Cuda;
  os << "// Host harness for @" << p.name << " on " << p.target.name << ": reads DATA_DIR/NAME.in.bin for every input,\n"
     << "// runs the kernels, writes DATA_DIR/NAME.out.bin, compares with DATA_DIR/NAME.ref.bin where present\n"
     << "// (|got - ref| <= atol + rtol |ref|), then times the launch sequence with events: warm-up, median.\n"
     << "// Exit: 0 ok, 1 mismatch, 2 bad data, 3 no GPU, 4 a runtime call failed. Build with ./build.sh.\n"
     << "#include \"" << p.kernelFile() << "\"\n\n#include <algorithm>\n#include <cmath>\n#include <cstdio>\n#include <cstdlib>\n"
     << "#include <string>\n#include <vector>\n\n";
  os << "struct GirBuffer {\n  const char* name;\n  size_t elements;\n  int role;  // 0 temp, 1 input, 2 output\n};\n\n";
  os << "static const GirBuffer kGirBuffers[] = {\n";
  for (const auto& b : p.buffers)
    os << "    {\"" << b.name << "\", " << b.elements << ", " << (b.role == BufferRole::Input ? 1 : b.role == BufferRole::Output ? 2 : 0) << "},\n";
  if (p.buffers.empty()) os << "    {\"none\", 1, 0},\n";
  os << "};\nstatic const char* kGirGraphName = \"" << p.name << "\";\nstatic const int kGirKernels = " << p.kernels << ";\n";
  os << "#define GIR_LAUNCH(bufs, stream) gir_launch_" << p.name << "(bufs, stream)\n";
  std::string body = replaceAll(kHarnessMain, "API(", cuda ? "GIR_CUDA(" : "GIR_HIP(");
  os << (cuda ? "#define GIR_CUDA(x) cuda##x\n" : "#define GIR_HIP(x) hip##x\n") << body;
  return os.str();
}

std::string emitBuildScript(const GpuProgram& p) {
  std::ostringstream os;
  bool cuda = p.target.api == GpuApi::Cuda;
  os << "#!/bin/sh\n# Builds the harness of @" << p.name << " for " << p.target.name << ". Usage: ./build.sh [extra compiler flags]\n"
     << "# Then: ./" << p.name << " DATA_DIR [--warmup N] [--repeat N]  (see " << p.harnessFile() << ")\nset -e\ncd \"$(dirname \"$0\")\"\n";
  if (cuda) {
    os << "NVCC=${NVCC:-$(command -v nvcc || true)}\n"
       << "[ -n \"$NVCC\" ] || { [ -n \"${CUDA_HOME:-}\" ] && NVCC=\"$CUDA_HOME/bin/nvcc\"; } || true\n"
       << "[ -n \"$NVCC\" ] || NVCC=/usr/local/cuda/bin/nvcc\n"
       << "[ -x \"$NVCC\" ] || { echo \"build.sh: nvcc not found (PATH, CUDA_HOME, /usr/local/cuda/bin)\" >&2; exit 127; }\n"
       << "\"$NVCC\" -O3 -std=c++17";
    for (const auto& a : p.target.archs) os << " -gencode arch=compute_" << a.substr(3) << ",code=" << a;
  } else {
    os << "HIPCC=${HIPCC:-$(command -v hipcc || true)}\n"
       << "[ -n \"$HIPCC\" ] || { echo \"build.sh: hipcc not found (Debian package hipcc)\" >&2; exit 127; }\n"
       << "\"$HIPCC\" -O3 -std=c++17";
    for (const auto& a : p.target.archs) os << " --offload-arch=" << a;
  }
  os << " -o " << p.name << " " << p.harnessFile() << " \"$@\"\n";
  return os.str();
}

}  // namespace gir::gpu
