// Signs of the values a graph computes, proved from its structure, for renderings that are cheaper on a
// restricted domain: an exp whose argument is never positive needs no overflow select (docs/gir.md,
// "Value signs").
#pragma once

#include <vector>

#include "core/gir/Graph.h"

namespace gir {

// Per slice id: whether every element the slice holds is <= 0 or NaN. One proof today, softmax's
// x - max(x): the slice is the output of an ew.sub whose operands are a slice A and the broadcast of a
// reduce.max over A along the broadcast's axes, each of the three read slices written by one node only
// (so A's values are the ones the max saw). Float subtraction keeps x <= m as x - m <= 0, and a NaN
// anywhere stays NaN; everything not proved is false.
std::vector<bool> nonPositiveSlices(const Graph& g);

}  // namespace gir
