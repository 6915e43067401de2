// The reference evaluator (docs/import.md, "Reference evaluator"): runs the computation graph directly with plain
// loops, accumulating reductions and dot products in double. The numeric truth for every later
// layer; also what the graph builder uses to fold constants.
#pragma once

#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"

namespace gir::compute {

// Runs one op on its input values; the output shapes and types come from the op's output tensors.
Expected<std::vector<TensorData>> evalOp(const Graph& g, const Op& op, const std::vector<const TensorData*>& inputs);

// Runs the graph; `inputs` follow g.inputs (shapes must match). Returns values for g.outputs.
Expected<std::vector<TensorData>> evaluate(const Graph& g, const std::vector<TensorData>& inputs);

// Library-op kernels (ReferenceLibraryOps.cpp); the output TensorData arrives shaped and zeroed.
void evalMatMul(const TensorData& a, const TensorData& b, TensorData& out);
void evalGemm(const GemmAttrs& attrs, const TensorData& a, const TensorData& b, const TensorData* c, TensorData& out);
void evalConv(const ConvAttrs& attrs, const TensorData& x, const TensorData& w, const TensorData* bias, TensorData& out);
void evalBatchNorm(const BatchNormAttrs& attrs, const std::vector<const TensorData*>& in, TensorData& out);
void evalPool(const PoolAttrs& attrs, const TensorData& x, TensorData& out);

// out[i] = in[base + sum_k idx_k * strides_k] over the row-major multi-index of outDims.
void stridedGather(const std::vector<double>& in, const Dims& outDims, int64_t base, const Dims& strides,
                   std::vector<double>& out);

}  // namespace gir::compute
