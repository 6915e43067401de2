// The one spelling of a node's operation (docs/gir.md): "move", "ew.<op>", "reduce.<op>", "broadcast",
// "sync". The printer writes it, the text parser and the JSON reader read it back, and the views label
// nodes with it; the operator names themselves come from core/gir/ScalarOps.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir {

// The operation word of a node, without operands or scope: "ew.exp", "reduce.sum", "sync".
std::string opSpelling(const Node& n);

struct SpelledOp {
  NodeKind kind = NodeKind::Move;
  ElementwiseOp elementwise = ElementwiseOp::Copy;  // when kind is Elementwise
  ReduceOp reduce = ReduceOp::Sum;                   // when kind is Reduce
};

// Reads an operation word as opSpelling writes it. The error says what was expected; the caller adds
// where (a line and column, or a JSON path).
Expected<SpelledOp> parseOpSpelling(std::string_view word);

}  // namespace gir
