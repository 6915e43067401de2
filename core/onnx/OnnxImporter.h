// ONNX import (docs/import.md, "ONNX import"): reads a model through libonnx's protobuf classes and builds a
// computation graph of basic, layout and library ops, opsets 11-17. Anything it cannot represent
// exactly is refused with a Diagnostic naming the file, the node, the op type and the reason.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"

namespace gir::compute {

struct ImportOptions {
  // Graph inputs bound to constant values: the model is specialized for them (used for the
  // integer inputs of ONNX node tests, which must be constants here).
  std::map<std::string, TensorData> constantInputs;
};

constexpr int kMinOnnxOpset = 11;
constexpr int kMaxOnnxOpset = 17;

Expected<Graph> importOnnxFile(const std::string& path, const ImportOptions& options = {});
// `fileName` only labels diagnostics.
Expected<Graph> importOnnxBytes(const std::string& bytes, const std::string& fileName,
                                const ImportOptions& options = {});

// A serialized onnx.TensorProto (the input_N.pb / output_N.pb files of ONNX tests).
Expected<TensorData> loadOnnxTensorFile(const std::string& path);
// The ONNX name stored in such a file.
Expected<std::string> onnxTensorFileName(const std::string& path);

// The op types a model file uses (domain-qualified outside the default domain), in node order.
Expected<std::vector<std::string>> onnxModelOpTypes(const std::string& path);

// Op types (default domain) the importer claims, sorted.
std::vector<std::string> claimedOnnxOps();
bool isClaimedOnnxOp(std::string_view opType);

}  // namespace gir::compute
