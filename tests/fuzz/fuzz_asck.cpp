// Ascend kernels (.asck): parse -> validate -> insert set/wait -> oracle (docs/fuzzing.md). The inserted
// kernel must print to text that parses and validates as an output, and the oracle must find it correct:
// a race after insertion is a finding, not an input error. The target is the built-in ascend910 (no file
// lookup), and kernels over a small dynamic size are skipped so that the oracle runs in milliseconds.
#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/asck/AsckPrinter.h"
#include "codegen/ascend/asck/AsckValidator.h"
#include "codegen/ascend/sync/FlagInsertion.h"
#include "tests/fuzz/FuzzSupport.h"

using namespace gir::ascend;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = gir::fuzz::asText(data, size);
  auto prog = parseAsck(text, "fuzz.asck");
  if (!prog || !validateInput(*prog, text) || maxDynamicInstrs(prog->body) > 2000) return 0;
  Target target;  // ascend910's defaults
  InsertOptions opt;
  opt.flags = target.flags;
  opt.target = &target;
  auto res = insertSync(*prog, opt);
  if (!res) return 0;  // an error value (e.g. more live dependencies than IDs) is a verdict
  std::string printed = printAsck(res->output);
  auto reparsed = parseAsck(printed, "inserted.asck");
  GIR_FUZZ_CHECK(bool(reparsed), printed + "\n" + (reparsed ? "" : reparsed.error().str()));
  GIR_FUZZ_CHECK(bool(validateOutput(*reparsed, printed, target.flags)), printed);
  OracleOptions small;
  small.exhaustiveLimit = 64;
  small.randomPaths = 8;
  small.latencySeeds = 1;
  OracleReport rep = runOracle(res->output, target, small);
  GIR_FUZZ_CHECK(rep.correct, text + "\n--- inserted:\n" + printed + "\n" + rep.violation);
  return 0;
}
