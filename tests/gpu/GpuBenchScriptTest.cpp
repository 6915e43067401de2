// The GPU benchmark script's plumbing without a GPU: --dry-run generates every scenario's plans through
// `gir codegen`, reads the manifests and writes the report with the measurements marked as not run.
#include <catch2/catch.hpp>

#include "tests/gpu/GpuTestSupport.h"

using namespace gir;

TEST_CASE("bench/gpu/run_gpu_bench.sh --dry-run writes a report for every scenario", "[gpu][bench]") {
  std::string dir = test::scratchDir("bench");
  std::string out;
  int code = test::runCommand(test::sourcePath("bench/gpu/run_gpu_bench.sh") + " --gir " + GIR_EXE + " --work " + dir +
                                  "/work --dry-run --no-compile --report " + dir + "/REPORT.md",
                              out);
  INFO(out);
  REQUIRE(code == 0);
  std::string report = test::readText(dir + "/REPORT.md");
  CHECK(report.find("DRY RUN: nothing was run on a GPU") != std::string::npos);
  for (const char* s : {"softmax", "layernorm", "rmsnorm", "gelu", "silu", "row_reduction", "bert_bias_residual_layernorm", "shufflenet",
                        "efficientnet", "column_reduction"}) {
    INFO(s);
    CHECK(report.find("| " + std::string(s) + " | ") != std::string::npos);
  }
  CHECK(report.find("| softmax | 524288 | 1 | n/a") != std::string::npos);  // one GIR kernel at the minimal bytes
  CHECK(report.find("| shufflenet | 1455104 | 1 | n/a") != std::string::npos);  // the paper's fragment: one kernel at the minimal bytes
}
