// ONNX layout ops composed of basic layout ops, with constant indices or parameters:
//   Tile         = reshape [1,d0,1,d1,...] -> broadcast [r0,d0,r1,d1,...] -> reshape
//   Gather       = one slice per run of consecutive indices -> concat -> reshape
//   DepthToSpace / SpaceToDepth = reshape -> transpose -> reshape
//   Pad (constant mode) = slice (negative pads) then concat with constant blocks
#include "core/onnx/OnnxContext.h"

namespace gir::compute::onnximpl {

static Status tileOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(repeats, ctx.constInts(1));
  const Dims& in = ctx.dims(x);
  if (repeats.size() != in.size()) return ctx.fail("repeats must have one entry per input axis");
  Dims split, wide, out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (repeats[i] < 0 || repeats[i] > (int64_t{1} << 31))
      return ctx.fail("repeat count " + std::to_string(repeats[i]) + " is out of range");
    split.insert(split.end(), {1, in[i]});
    wide.insert(wide.end(), {repeats[i], in[i]});
    out.push_back(repeats[i] * in[i]);
  }
  GIR_TRY(r, ctx.b.reshape(x, split, "Tile"));
  GIR_TRY(bc, ctx.b.broadcastTo(r, wide));
  GIR_TRY(y, ctx.b.reshape(bc, out, "Tile"));
  return ctx.setOutput(0, y);
}

// Large index lists on run-time data would explode into slices; they are refused instead.
constexpr size_t kMaxGatherRuns = 256;

static Status gatherOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(idxData, ctx.constData(1));
  GIR_TRY(rawAxis, ctx.intAttr("axis", 0));
  GIR_TRY(axis, ctx.axis(rawAxis, ctx.rank(x), "axis"));
  const Dims& in = ctx.dims(x);
  std::vector<int64_t> idx;
  for (double v : idxData.values) {
    int64_t k = toInt64(v);
    if (k < -in[axis] || k >= in[axis]) return ctx.fail("index " + std::to_string(k) + " is out of range for extent " + std::to_string(in[axis]));
    idx.push_back(k < 0 ? k + in[axis] : k);
  }
  if (idx.empty()) return ctx.fail("empty index lists are not supported");
  std::vector<std::pair<int64_t, int64_t>> runs;  // {start, length}
  for (int64_t k : idx) {
    if (!runs.empty() && runs.back().first + runs.back().second == k) ++runs.back().second;
    else runs.push_back({k, 1});
  }
  if (runs.size() > kMaxGatherRuns && !ctx.b.isConstant(x))
    return ctx.fail("more than " + std::to_string(kMaxGatherRuns) + " separate index runs on a run-time tensor");
  std::vector<TensorId> pieces;
  for (auto [start, len] : runs) {
    std::vector<int64_t> starts(in.size(), 0), steps(in.size(), 1);
    Dims d = in;
    starts[axis] = start;
    d[axis] = len;
    GIR_TRY(piece, ctx.b.slice(x, starts, steps, d));
    pieces.push_back(piece);
  }
  TensorId joined = pieces.front();
  if (pieces.size() > 1) {
    GIR_TRY(c, ctx.b.concat(pieces, axis));
    joined = c;
  }
  Dims out(in.begin(), in.begin() + axis);
  out.insert(out.end(), idxData.dims.begin(), idxData.dims.end());
  out.insert(out.end(), in.begin() + axis + 1, in.end());
  GIR_TRY(y, ctx.b.reshape(joined, out, "Gather"));
  return ctx.setOutput(0, y);
}

static Status depthToSpaceOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(bs, ctx.intAttr("blocksize", 0));
  GIR_TRY(mode, ctx.stringAttr("mode", "DCR"));
  if (ctx.rank(x) != 4) return ctx.fail("input must be rank 4");
  const Dims& d = ctx.dims(x);
  if (bs <= 0 || bs > (1 << 20) || d[1] % (bs * bs) != 0) return ctx.fail("blocksize " + std::to_string(bs) + " does not divide the channels");
  int64_t c = d[1] / (bs * bs);
  bool dcr = mode == "DCR";
  if (!dcr && mode != "CRD") return ctx.fail("mode '" + mode + "' is not supported");
  Dims mid = dcr ? Dims{d[0], bs, bs, c, d[2], d[3]} : Dims{d[0], c, bs, bs, d[2], d[3]};
  std::vector<int> perm = dcr ? std::vector<int>{0, 3, 4, 1, 5, 2} : std::vector<int>{0, 1, 4, 2, 5, 3};
  GIR_TRY(r, ctx.b.reshape(x, mid, "DepthToSpace"));
  GIR_TRY(t, ctx.b.transpose(r, perm));
  GIR_TRY(y, ctx.b.reshape(t, {d[0], c, d[2] * bs, d[3] * bs}, "DepthToSpace"));
  return ctx.setOutput(0, y);
}

static Status spaceToDepthOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(bs, ctx.intAttr("blocksize", 0));
  if (ctx.rank(x) != 4) return ctx.fail("input must be rank 4");
  const Dims& d = ctx.dims(x);
  if (bs <= 0 || bs > (1 << 20) || d[2] % bs != 0 || d[3] % bs != 0) return ctx.fail("blocksize " + std::to_string(bs) + " does not divide the spatial extents");
  GIR_TRY(r, ctx.b.reshape(x, {d[0], d[1], d[2] / bs, bs, d[3] / bs, bs}, "SpaceToDepth"));
  GIR_TRY(t, ctx.b.transpose(r, {0, 3, 5, 1, 2, 4}));
  GIR_TRY(y, ctx.b.reshape(t, {d[0], d[1] * bs * bs, d[2] / bs, d[3] / bs}, "SpaceToDepth"));
  return ctx.setOutput(0, y);
}

// A block of `value` shaped like x except `extent` along `axis`: a folded constant when small, else the
// scalar broadcast at run time (a 148-byte model asked for a 2^31-element block: 17 GB before the error).
static Expected<TensorId> padBlock(GraphBuilder& b, TensorId x, int axis, int64_t extent, double value) {
  Dims d = b.tensor(x).dims;
  d[axis] = extent;
  if (numElements(d) <= kMaxFoldedElements)
    return b.constant(TensorData{b.tensor(x).dtype, d, std::vector<double>(numElements(d), value)});
  return b.broadcastTo(b.scalar(value, b.tensor(x).dtype), d, /*fold=*/false);
}

// The padded (or cropped) shape, so that a result over kMaxTensorElements is refused before any block is made.
static Dims paddedDims(Dims d, const std::vector<int64_t>& pads) {
  int r = static_cast<int>(d.size());
  for (int a = 0; a < r; ++a) d[a] = std::max<int64_t>(0, d[a] + pads[a] + pads[a + r]);
  return d;
}

static Status padOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(mode, ctx.stringAttr("mode", "constant"));
  if (mode != "constant") return ctx.fail("mode '" + mode + "' is not supported (only 'constant')");
  GIR_TRY(pads, ctx.constInts(1));
  int r = ctx.rank(x);
  if (static_cast<int>(pads.size()) != 2 * r || ctx.hasInput(3)) return ctx.fail("pads must list a begin and an end for every axis");
  double value = 0;
  if (ctx.hasInput(2)) {
    GIR_TRY(v, ctx.constData(2));
    if (v.values.size() != 1) return ctx.fail("constant_value must be a scalar");
    value = v.values[0];
  }
  constexpr int64_t kLimit = int64_t{1} << 31;
  for (int64_t p : pads)
    if (p < -kLimit || p > kLimit) return ctx.fail("pads must lie in [-2^31, 2^31]");
  if (numElements(paddedDims(ctx.dims(x), pads)) > kMaxTensorElements)
    return ctx.fail("the padded result would have more than 2^31 elements (kMaxTensorElements)");
  TensorId y = x;
  for (int a = 0; a < r; ++a) {
    int64_t before = pads[a], after = pads[a + r];
    if (before < 0 || after < 0) {  // negative pads crop
      Dims d = ctx.dims(y);
      int64_t cropB = std::max<int64_t>(0, -before), cropA = std::max<int64_t>(0, -after);
      if (cropB + cropA > d[a]) return ctx.fail("negative pads remove more than the whole axis");
      std::vector<int64_t> starts(r, 0), steps(r, 1);
      starts[a] = cropB;
      d[a] -= cropB + cropA;
      GIR_TRY(s, ctx.b.slice(y, starts, steps, d));
      y = s;
    }
    std::vector<TensorId> parts;
    if (before > 0) {
      GIR_TRY(block, padBlock(ctx.b, y, a, before, value));
      parts.push_back(block);
    }
    parts.push_back(y);
    if (after > 0) {
      GIR_TRY(block, padBlock(ctx.b, y, a, after, value));
      parts.push_back(block);
    }
    if (parts.size() == 1) continue;
    GIR_TRY(c, ctx.b.concat(parts, a));
    y = c;
  }
  if (y == x) {
    GIR_TRY(copy, ctx.b.unary(ElementwiseOp::Copy, x));
    y = copy;
  }
  return ctx.setOutput(0, y);
}

void addCompositeLayoutHandlers(HandlerTable& t) {
  t["Tile"] = tileOp;
  t["Gather"] = gatherOp;
  t["DepthToSpace"] = depthToSpaceOp;
  t["SpaceToDepth"] = spaceToDepthOp;
  t["Pad"] = padOp;
}

}  // namespace gir::compute::onnximpl
