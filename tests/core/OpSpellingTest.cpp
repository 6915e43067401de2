// One spelling per operation (core/gir/OpSpelling.h): every operation word round-trips, the printer
// and the JSON writer use exactly that word, and unknown words say what was expected.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/gir/Json.h"
#include "core/gir/OpSpelling.h"
#include "core/gir/Parser.h"
#include "core/gir/Printer.h"
#include <set>

using namespace gir;

namespace {

std::vector<Node> everyOperation() {
  std::vector<Node> out;
  for (int k = 0; k <= static_cast<int>(ElementwiseOp::Select); ++k) {
    Node n;
    n.payload = ElementwisePayload{static_cast<ElementwiseOp>(k), {}};
    out.push_back(n);
  }
  for (int k = 0; k <= static_cast<int>(ReduceOp::Prod); ++k) {
    Node n;
    n.payload = ReducePayload{static_cast<ReduceOp>(k), {0}};
    out.push_back(n);
  }
  for (NodePayload p : {NodePayload{MovePayload{}}, NodePayload{BroadcastPayload{{0}}}, NodePayload{SyncPayload{Scope::Unit}}}) {
    Node n;
    n.payload = p;
    out.push_back(n);
  }
  return out;
}

}  // namespace

TEST_CASE("every operation word round-trips through parseOpSpelling", "[core][spelling]") {
  std::set<std::string> seen;
  for (const Node& n : everyOperation()) {
    std::string word = opSpelling(n);
    INFO(word);
    CHECK(seen.insert(word).second);  // no two operations share a word
    auto back = parseOpSpelling(word);
    REQUIRE(back.ok());
    CHECK(back->kind == n.kind());
    if (n.kind() == NodeKind::Elementwise) CHECK(back->elementwise == std::get<ElementwisePayload>(n.payload).op);
    if (n.kind() == NodeKind::Reduce) CHECK(back->reduce == std::get<ReducePayload>(n.payload).op);
  }
  CHECK(seen.size() == 20 + 4 + 3);
}

TEST_CASE("unknown operation words say what was expected", "[core][spelling]") {
  auto e = parseOpSpelling("ew.frob");
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().message == "unknown elementwise operator 'frob'");
  auto r = parseOpSpelling("reduce.avg");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "unknown reduction 'avg' (expected sum, max, min or prod)");
  auto o = parseOpSpelling("teleport");
  REQUIRE_FALSE(o.ok());
  CHECK(o.error().message == "unknown operation 'teleport'");
  CHECK_FALSE(parseOpSpelling("ew.").ok());
  CHECK_FALSE(parseOpSpelling("").ok());
}

TEST_CASE("the printer and the JSON writer spell a node's operation with opSpelling", "[core][spelling]") {
  auto g = parseGirText(
      "gir @t target=cpu-host units=1 block=1\nlevel dram device\n%x = buffer dram f32[4] input\n"
      "%y = buffer dram f32[4] output\n%s = buffer dram f32[1] output\n%xs = slice %x offset(0) shape[4] strides[1]\n"
      "%ys = slice %y offset(0) shape[4] strides[1]\n%ss = slice %s offset(0) shape[1] strides[1]\n"
      "ew.exp %xs -> %ys\nreduce.max axes[0] %ys -> %ss\n");
  INFO((g ? "" : g.error().str()));
  REQUIRE(g.ok());
  std::string text = printGraph(*g);
  auto j = nlohmann::json::parse(graphToJson(*g));
  for (size_t k = 0; k < g->nodes().size(); ++k) {
    std::string word = opSpelling(g->nodes()[k]);
    CHECK(text.find("\n" + word + " ") != std::string::npos);
    CHECK(j["nodes"][k]["op"] == word);
  }
}

// The op table's renderings: every pattern uses exactly its operator's operands, and rendering
// substitutes operand expressions verbatim.
TEST_CASE("every operator's C rendering uses exactly its operands", "[core][spelling]") {
  for (int k = 0; k <= static_cast<int>(ElementwiseOp::Select); ++k) {
    auto op = static_cast<ElementwiseOp>(k);
    std::string_view pattern = elementwiseRendering(op);
    INFO(elementwiseName(op) << ": " << pattern);
    int arity = elementwiseArity(op);
    for (int i = 0; i < 3; ++i)
      CHECK((pattern.find("$" + std::to_string(i)) != std::string_view::npos) == (i < arity));
    std::vector<std::string> args = {"A0", "A1", "A2"};
    args.resize(static_cast<size_t>(arity));
    std::string text = renderElementwise(op, args);
    CHECK(text.find('$') == std::string::npos);
    for (const auto& a : args) CHECK(text.find(a) != std::string::npos);
  }
  CHECK(renderElementwise(ElementwiseOp::Sub, {"x[i]", "1.0f"}) == "(x[i] - 1.0f)");
  CHECK(renderPattern(reduceCombineRendering(ReduceOp::Max), {"acc", "x"}) == "fmaxf(acc, x)");
  CHECK(isTranscendental(ElementwiseOp::Exp));
  CHECK_FALSE(isTranscendental(ElementwiseOp::Add));
}
