// Per-unit programs per compute kind. Register buffers hold one box per unit (offset u * size).
#include "search/lowering/OpEmitter.h"

#include "search/lowering/SplitReduction.h"
#include "search/lowering/TiledTranspose.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>

namespace gir::search {

namespace {

using Mask = std::vector<bool>;

class UnitEmitter {
 public:
  UnitEmitter(EmitContext& ctx, const compute::Op& op, const IterationSpace& s, const UnitBoxes& b)
      : ctx_(ctx), op_(op), s_(s), b_(b), boxStrides_(denseStrides(b.ext)) {
    if (splitsReduction(s, b))
      if (auto g = reductionGroups(s, b)) groups_ = std::move(*g);  // TemplateState checked the groups
    byIndex_ = combinedByIndex(groups_);
    for (const auto& w : s_.writes) liveTensor_.push_back(!ctx_.live || ctx_.live(w.tensor));  // asked once, not per unit
  }

  // Unit u's programs, one per phase (empty when the unit has no box or nothing to write).
  std::vector<UnitProgram> unit(int64_t u) {
    if (!b_.lo[u]) return {};
    u_ = u;
    if (s_.compute == ComputeKind::Copy && !writesSomething()) return {};
    p_ = UnitProgram{};
    phases_.clear();
    switch (s_.compute) {
      case ComputeKind::Copy: copy(); break;
      case ComputeKind::Elementwise: elementwise(); break;
      case ComputeKind::Reduce: reduce(); break;
      case ComputeKind::Contract: contract(); break;
      case ComputeKind::BatchNorm: batchNorm(); break;
      case ComputeKind::DepthwiseConv: depthwiseConv(); break;
      case ComputeKind::Pool: pool(); break;
    }
    phases_.push_back(std::move(p_));
    return std::move(phases_);
  }
  static size_t phases(const IterationSpace& s, const UnitBoxes& b) {
    return s.compute == ComputeKind::DepthwiseConv || s.compute == ComputeKind::Pool || splitsReduction(s, b) || b.staged ? 2 : 1;
  }

 private:
  Mask all() const { return Mask(s_.dims.size(), true); }
  Mask kept() const {
    Mask m(s_.dims.size());
    for (size_t d = 0; d < m.size(); ++d) m[d] = !s_.reduced[d];
    return m;
  }

  // A register buffer per role, sized for one box per unit of the whole graph.
  BufferId reg(const std::string& role, int64_t perUnit) {
    auto it = regs_.find(role);
    if (it != regs_.end()) return it->second;
    std::string name = uniqueBufferName(op_.name + "_" + role, ctx_.names);
    BufferId id = ctx_.gir.addBuffer(Buffer{name, ctx_.regLevel, {ctx_.gir.units * perUnit}, BufferRole::Temp});
    return regs_.emplace(role, id).first->second;
  }
  // Unit u's dense register slice of `shape` for `role`.
  int regSlice(const std::string& role, std::vector<int64_t> shape) {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    if (shape.empty()) shape = {1};
    return p_.slice(reg(role, n), u_ * n, shape, denseStrides(shape));
  }
  std::vector<int64_t> extOver(const Mask& m) const {
    std::vector<int64_t> e;
    for (size_t d = 0; d < m.size(); ++d)
      if (m[d]) e.push_back(b_.ext[d]);
    return e;
  }
  int dramSlice(const TensorAccess& a) {
    auto s = accessSlice(b_, u_, a);
    return p_.slice(ctx_.dramBuffer(a.tensor), s->offset, s->shape, s->strides);
  }

  // Read `r` into registers shaped like the box over `target` dims, broadcasting along target dims
  // where the tensor does not vary; into `into` (a slice of that shape) when given.
  int loadAs(size_t r, const Mask& target, std::optional<int> into = std::nullopt) {
    const TensorAccess& a = s_.reads[r];
    std::vector<int64_t> compact, full;
    std::vector<int> axes;
    for (size_t d = 0, pos = 0; d < target.size(); ++d) {
      if (!target[d]) continue;
      full.push_back(b_.ext[d]);
      if (a.coeff[d] != 0 || b_.ext[d] == 1) compact.push_back(b_.ext[d]);
      else axes.push_back(static_cast<int>(pos));
      ++pos;
    }
    std::string role = "in" + std::to_string(r);
    int src = dramSlice(a);
    int c = axes.empty() && into ? *into : regSlice(axes.empty() ? role : role + "c", compact);
    p_.node(MovePayload{}, {src}, {c});
    if (axes.empty()) return c;
    int f = into ? *into : regSlice(role, full);
    p_.node(BroadcastPayload{axes}, {c}, {f});
    return f;
  }

  void store(int from, const TensorAccess& w) { p_.node(MovePayload{}, {from}, {dramSlice(w)}); }

  int ew(ElementwiseOp fn, std::vector<int> ins, std::vector<ScalarOperand> operands, const std::string& role, const Mask& m) {
    int out = regSlice(role, extOver(m));
    p_.node(ElementwisePayload{fn, std::move(operands)}, std::move(ins), {out});
    return out;
  }
  int binary(ElementwiseOp fn, int a, int b, const std::string& role, const Mask& m) { return ew(fn, {a, b}, {{0, 0}, {1, 0}}, role, m); }
  int withImmediate(ElementwiseOp fn, int a, double v, const std::string& role, const Mask& m) {
    return ew(fn, {a}, {{0, 0}, {-1, v}}, role, m);
  }

  // A piece of a layout op between DRAM and the register box, its elements in the tensor's order
  // (descending DRAM strides) rather than the space's: a move may visit its elements in any order,
  // and visiting them along the tensor keeps the DRAM side contiguous (a transpose's rows are read
  // whole) while the strided side is the register box, which is cheap at any stride.
  void movePiece(int box, const TensorAccess& a, bool toDram) {
    auto clip = clipToRegion(b_, u_, a);
    std::vector<size_t> dims;
    int64_t local = 0;
    for (size_t d = 0; d < s_.dims.size(); ++d) {
      local += (clip->first[d] - (*b_.lo[u_])[d]) * boxStrides_[d];
      if (a.coeff[d] != 0) dims.push_back(d);
    }
    std::stable_sort(dims.begin(), dims.end(), [&](size_t x, size_t y) { return a.coeff[x] > a.coeff[y]; });
    std::vector<int64_t> shape, dramStrides, regStrides;
    for (size_t d : dims) {
      shape.push_back(clip->second[d]);
      dramStrides.push_back(a.coeff[d]);
      regStrides.push_back(boxStrides_[d]);
    }
    if (shape.empty()) shape = dramStrides = regStrides = {1};
    const SliceSpec& base = p_.slices[box];
    int reg = p_.slice(base.buffer, base.offset + local, shape, regStrides);
    auto dram = canonicalSlice(a.offsetAt(clip->first), shape, dramStrides);
    int mem = p_.slice(ctx_.dramBuffer(a.tensor), dram.offset, dram.shape.empty() ? std::vector<int64_t>{1} : dram.shape,
                       dram.strides.empty() ? std::vector<int64_t>{1} : dram.strides);
    p_.node(MovePayload{}, toDram ? std::vector<int>{reg} : std::vector<int>{mem}, toDram ? std::vector<int>{mem} : std::vector<int>{reg});
  }

  bool liveWrite(size_t w) const { return liveTensor_[w] && meetsRegion(b_, u_, s_.writes[w]); }
  bool writesSomething() const {
    for (size_t w = 0; w < s_.writes.size(); ++w)
      if (liveWrite(w)) return true;
    return false;
  }

  // A transpose through a scratch tile laid out like the output: the unit's source strip in, with
  // the source's innermost dim innermost (contiguous reads); after the sync its destination strip
  // out, in the destination's order (contiguous writes).
  void stagedCopy() {
    const TileStaging& t = *b_.staged;
    const TensorAccess& r = s_.reads[0];
    const TensorAccess& w = s_.writes[0];
    // Named, not a structured binding: clang 14 does not let a lambda capture a binding (issue #19).
    const auto strip = sourceStrip(b_, u_);
    const std::vector<int64_t>& lo = strip.first;
    const std::vector<int64_t>& ext = strip.second;
    std::vector<int64_t> shape, rs, ws;
    auto add = [&](size_t d) {
      shape.push_back(ext[d]);
      rs.push_back(r.coeff[d]);
      ws.push_back(w.coeff[d]);
    };
    for (size_t d = 0; d < ext.size(); ++d)
      if (ext[d] > 1 && static_cast<int>(d) != t.sourceInner) add(d);
    add(static_cast<size_t>(t.sourceInner));
    if (!scratch_) scratch_ = ctx_.scratch(op_.name + "_tile", ctx_.gir.buffer(ctx_.dramBuffer(w.tensor)).numel());
    p_.node(MovePayload{}, {p_.slice(ctx_.dramBuffer(r.tensor), r.offsetAt(lo), shape, rs)}, {p_.slice(*scratch_, w.offsetAt(lo), shape, ws)});
    phases_.push_back(std::move(p_));
    p_ = UnitProgram{};
    auto out = accessSlice(b_, u_, w);
    p_.node(MovePayload{}, {p_.slice(*scratch_, out->offset, out->shape, out->strides)}, {dramSlice(w)});
  }

  // Layout ops and broadcasts: pieces of inputs into one register box, pieces of it out.
  void copy() {
    if (b_.staged) return stagedCopy();
    int box = regSlice("box", b_.ext);
    for (size_t r = 0; r < s_.reads.size(); ++r) {
      const TensorAccess& a = s_.reads[r];
      if (!meetsRegion(b_, u_, a)) continue;
      bool varies = true;
      for (size_t d = 0; d < s_.dims.size(); ++d) varies = varies && (a.coeff[d] != 0 || b_.ext[d] == 1);
      if (varies) movePiece(box, a, false);
      else loadAs(r, all(), box);  // a broadcast: its only input covers the whole space
    }
    for (size_t w = 0; w < s_.writes.size(); ++w)
      if (liveWrite(w)) movePiece(box, s_.writes[w], true);
  }

  void elementwise() {
    const auto& attrs = std::get<compute::ElementwiseAttrs>(op_.attrs);
    std::vector<int> ins;
    std::vector<ScalarOperand> operands;
    std::map<int, int> used;  // op input -> node input
    for (const auto& arg : attrs.args) {
      if (arg.input < 0) { operands.push_back({-1, arg.scalar}); continue; }
      auto it = used.find(arg.input);
      if (it == used.end()) {
        it = used.emplace(arg.input, static_cast<int>(ins.size())).first;
        ins.push_back(loadAs(arg.input, all()));
      }
      operands.push_back({it->second, 0});
    }
    store(ew(attrs.fn, ins, operands, "out", all()), s_.writes[0]);
  }

  std::vector<int> reducedAxes() const {
    std::vector<int> axes;
    for (size_t d = 0; d < s_.dims.size(); ++d)
      if (s_.reduced[d]) axes.push_back(static_cast<int>(d));
    return axes;
  }

  void reduce() {
    const auto& attrs = std::get<compute::ReduceAttrs>(op_.attrs);
    int in = loadAs(0, all());
    int out = regSlice("out", extOver(kept()));
    p_.node(ReducePayload{attrs.fn, reducedAxes()}, {in}, {out});
    if (groups_.empty()) return store(out, s_.writes[0]);
    combinePartials(attrs.fn, out);
  }

  // A split reduction: every unit's partial to scratch; after the sync the group's leader reduces
  // the group's partials (one strided slice) with the same associative function and stores.
  void combinePartials(ReduceOp fn, int partial) {
    std::vector<int64_t> shape = p_.slices[partial].shape;
    int64_t k = 1;
    for (auto d : shape) k *= d;
    if (!scratch_) scratch_ = ctx_.scratch(op_.name + "_partials", b_.units() * k);
    p_.node(MovePayload{}, {partial}, {p_.slice(*scratch_, u_ * k, shape, denseStrides(shape))});
    bool byIndex = !byIndex_.empty();
    if (byIndex ? u_ >= static_cast<int64_t>(byIndex_.size()) : groups_[u_]->leader() != u_) return;
    const ReductionGroup g = byIndex ? byIndex_[static_cast<size_t>(u_)] : *groups_[u_];
    phases_.push_back(std::move(p_));
    p_ = UnitProgram{};
    std::vector<int64_t> parts{g.count}, strides{g.stride * k};
    parts.insert(parts.end(), shape.begin(), shape.end());
    for (auto st : denseStrides(shape)) strides.push_back(st);
    int gathered = regSlice("parts", parts);
    p_.node(MovePayload{}, {p_.slice(*scratch_, g.first * k, parts, strides)}, {gathered});
    int combined = regSlice("combined", shape);
    p_.node(ReducePayload{fn, {0}}, {gathered}, {combined});
    int64_t self = u_;
    u_ = g.leader();  // the result goes where the group's leader's box says
    store(combined, s_.writes[0]);
    u_ = self;
  }

  // A contraction multiplies its box's K in chunks when the whole K does not fit the registers
  // (contractionChunk): each chunk's operands loaded and broadcast, multiplied, summed over the
  // chunk, and added to the output part, so the chunks' buffers live one after the other.
  void contract() {
    int64_t k = b_.ext.back(), chunk = b_.chunk > 0 ? b_.chunk : k;
    int acc = chunk == k ? wholeK() : chunkedK(chunk);
    if (s_.alpha != 1) acc = withImmediate(ElementwiseOp::Mul, acc, s_.alpha, "scaled", kept());
    if (s_.beta != 0 && s_.reads.size() > 2) {
      int c = loadAs(2, kept());
      if (s_.beta != 1) c = withImmediate(ElementwiseOp::Mul, c, s_.beta, "cscaled", kept());
      acc = binary(ElementwiseOp::Add, acc, c, "sum", kept());
    }
    store(acc, s_.writes[0]);
  }
  int wholeK() {
    int a = loadAs(0, all()), b = loadAs(1, all());
    int prod = binary(ElementwiseOp::Mul, a, b, "prod", all());
    int acc = regSlice("acc", extOver(kept()));
    p_.node(ReducePayload{ReduceOp::Sum, reducedAxes()}, {prod}, {acc});
    return acc;
  }
  int chunkedK(int64_t chunk) {
    std::vector<int64_t> ext = b_.ext;
    ext.back() = chunk;
    std::optional<int> acc;
    for (int64_t k0 = 0; k0 < b_.ext.back(); k0 += chunk) {
      std::string tag = "_k" + std::to_string(k0 / chunk);
      int a = loadChunk(0, k0, ext, "in0" + tag), b = loadChunk(1, k0, ext, "in1" + tag);
      int prod = regSlice("prod" + tag, ext);
      p_.node(ElementwisePayload{ElementwiseOp::Mul, {{0, 0}, {1, 0}}}, {a, b}, {prod});
      int part = regSlice("part" + tag, extOver(kept()));
      p_.node(ReducePayload{ReduceOp::Sum, reducedAxes()}, {prod}, {part});
      acc = acc ? binary(ElementwiseOp::Add, *acc, part, "acc" + tag, kept()) : part;
    }
    return *acc;
  }
  // Operand r over the box with K cut to [k0, k0 + ext.back()), broadcast like loadAs (a
  // contraction's accesses cover the whole space: no region to clip).
  int loadChunk(size_t r, int64_t k0, const std::vector<int64_t>& ext, const std::string& role) {
    const TensorAccess& a = s_.reads[r];
    std::vector<int64_t> lo = *b_.lo[u_], compact, shape, strides;
    lo.back() += k0;
    std::vector<int> axes;
    for (size_t d = 0; d < ext.size(); ++d) {
      if (a.coeff[d] != 0) {
        shape.push_back(ext[d]);
        strides.push_back(a.coeff[d]);
      }
      if (a.coeff[d] != 0 || ext[d] == 1) compact.push_back(ext[d]);
      else axes.push_back(static_cast<int>(d));
    }
    auto dram = canonicalSlice(a.offsetAt(lo), shape, strides);
    if (dram.shape.empty()) dram.shape = dram.strides = {1};
    int c = regSlice(axes.empty() ? role : role + "c", compact);
    p_.node(MovePayload{}, {p_.slice(ctx_.dramBuffer(a.tensor), dram.offset, dram.shape, dram.strides)}, {c});
    if (axes.empty()) return c;
    int f = regSlice(role, ext);
    p_.node(BroadcastPayload{axes}, {c}, {f});
    return f;
  }

  void batchNorm() {
    int x = loadAs(0, all()), scale = loadAs(1, all()), bias = loadAs(2, all()), mean = loadAs(3, all()), var = loadAs(4, all());
    int centered = binary(ElementwiseOp::Sub, x, mean, "centered", all());
    int inv = ew(ElementwiseOp::Rsqrt, {withImmediate(ElementwiseOp::Add, var, s_.epsilon, "vareps", all())}, {{0, 0}}, "inv", all());
    int normed = binary(ElementwiseOp::Mul, centered, inv, "normed", all());
    int scaled = binary(ElementwiseOp::Mul, normed, scale, "scaled", all());
    store(binary(ElementwiseOp::Add, scaled, bias, "out", all()), s_.writes[0]);
  }

  // The unit's band of output rows needs a window of input rows (the band's rows times the stride,
  // plus the kernel's halo), padded in registers: the rows and columns of the window outside the
  // input are written with `fill` and the rest is loaded, so no element is written twice; each tap
  // then reads a strided view of the window. `wp` columns: the left pad, the input, the right pad.
  struct Window {
    int slice = -1;
    int64_t rows = 0, cols = 0;
  };
  Window window(int64_t wp, double fill) {
    const auto& lo = *b_.lo[u_];
    int64_t en = b_.ext[0], ec = b_.ext[1], oh = b_.ext[2];
    const auto& c = s_.conv;
    int64_t pt = c.pads[0], pl = c.pads[1];
    int64_t hw = (oh - 1) * c.strides[0] + (s_.kH - 1) * c.dilations[0] + 1;  // window rows
    int64_t top = lo[2] * c.strides[0] - pt;                                    // input row of window row 0
    int64_t first = std::max<int64_t>(0, top), last = std::min<int64_t>(s_.inH, top + hw);  // input rows inside
    int padded = regSlice("padded", {en, ec, hw, wp});
    const SliceSpec base = p_.slices[padded];
    std::vector<int64_t> pstr{ec * hw * wp, hw * wp, wp, 1};
    auto view = [&](int64_t off, std::vector<int64_t> shape) { return p_.slice(base.buffer, base.offset + off, std::move(shape), pstr); };
    auto pad = [&](int64_t row, int64_t rows, int64_t col, int64_t cols) {
      if (rows > 0 && cols > 0) p_.node(ElementwisePayload{ElementwiseOp::Copy, {{-1, fill}}}, {}, {view(row * wp + col, {en, ec, rows, cols})});
    };
    int64_t inside = std::max<int64_t>(0, last - first), at = first - top;  // window row of input row `first`
    pad(0, at, 0, wp);
    pad(at + inside, hw - at - inside, 0, wp);
    pad(at, inside, 0, pl);
    pad(at, inside, pl + s_.inW, wp - pl - s_.inW);
    int64_t planes = s_.inH * s_.inW;
    if (inside > 0) {
      int x = p_.slice(ctx_.dramBuffer(s_.reads[0].tensor), (lo[0] * s_.dims[1] + lo[1]) * planes + first * s_.inW, {en, ec, inside, s_.inW},
                       {s_.dims[1] * planes, planes, s_.inW, 1});
      p_.node(MovePayload{}, {x}, {view(at * wp + pl, {en, ec, inside, s_.inW})});
    }
    return Window{padded, hw, wp};
  }
  // Tap (kh, kw) of the window: the output box's shape, a strided view of the window's buffer.
  int tapView(const SliceSpec& base, const Window& w, int64_t kh, int64_t kw) {
    const auto& c = s_.conv;
    int64_t ec = b_.ext[1], hw = w.rows, wp = w.cols;
    return p_.slice(base.buffer, base.offset + kh * c.dilations[0] * wp + kw * c.dilations[1], b_.ext,
                    {ec * hw * wp, hw * wp, c.strides[0] * wp, c.strides[1]});
  }

  void depthwiseConv() {
    const auto& lo = *b_.lo[u_];
    int64_t en = b_.ext[0], ec = b_.ext[1], oh = b_.ext[2], ow = b_.ext[3];
    const auto& c = s_.conv;
    Window win = window(s_.inW + c.pads[1] + c.pads[3], 0.0);
    const SliceSpec base = p_.slices[win.slice];
    phases_.push_back(std::move(p_));  // the window is ready; the taps are the same for every band
    p_ = UnitProgram{};
    int64_t taps = s_.kH * s_.kW;
    int w = regSlice("weights", {ec, taps});
    p_.node(MovePayload{}, {p_.slice(ctx_.dramBuffer(s_.reads[1].tensor), lo[1] * taps, {ec, taps}, {taps, 1})}, {w});
    const SliceSpec wbase = p_.slices[w];
    std::vector<int64_t> outShape{en, ec, oh, ow};
    std::optional<int> acc;
    if (s_.reads.size() > 2) {
      int bias = regSlice("bias", {ec});
      p_.node(MovePayload{}, {p_.slice(ctx_.dramBuffer(s_.reads[2].tensor), lo[1], {ec}, {1})}, {bias});
      acc = regSlice("acc_bias", outShape);
      p_.node(BroadcastPayload{{0, 2, 3}}, {bias}, {*acc});
    }
    for (int64_t kh = 0; kh < s_.kH; ++kh)
      for (int64_t kw = 0; kw < s_.kW; ++kw) {
        std::string tap = std::to_string(kh) + "_" + std::to_string(kw);
        int in = tapView(base, win, kh, kw);
        int wt = p_.slice(wbase.buffer, wbase.offset + kh * s_.kW + kw, {ec}, {taps});
        int wb = regSlice("w" + tap, outShape);
        p_.node(BroadcastPayload{{0, 2, 3}}, {wt}, {wb});
        int prod = binary(ElementwiseOp::Mul, in, wb, "t" + tap, all());
        acc = acc ? binary(ElementwiseOp::Add, *acc, prod, "acc" + tap, all()) : prod;
      }
    store(*acc, s_.writes[0]);
  }

  // Taps of an average pool that count at output row (or column) `o` along one axis: the positions
  // inside the input, or with count_include_pad inside the padded extent (never past it), as the
  // reference evaluator counts them (ReferenceLibraryOps.cpp). Rows times columns is the divisor.
  int64_t counted(int axis, int64_t o) const {
    const auto& c = s_.conv;
    int64_t in = axis == 0 ? s_.inH : s_.inW, k = axis == 0 ? s_.kH : s_.kW, n = 0;
    for (int64_t t = 0; t < k; ++t) {
      int64_t i = o * c.strides[axis] - c.pads[axis] + t * c.dilations[axis];
      n += s_.pool.countIncludePad ? i < in + c.pads[axis + 2] : (i >= 0 && i < in);
    }
    return n;
  }
  bool uniformDivisor() const {
    for (int axis = 0; axis < 2; ++axis)
      for (int64_t o = 0; o < s_.dims[2 + axis]; ++o)
        if (counted(axis, o) != counted(axis, 0)) return false;
    return true;
  }
  // 1 / counted along `axis` for the box's rows or columns, one immediate per run of equal values.
  int reciprocals(int axis, const std::string& role) {
    int64_t from = (*b_.lo[u_])[2 + axis], n = b_.ext[2 + axis];
    int v = regSlice(role, {n});
    const SliceSpec base = p_.slices[v];
    for (int64_t o = 0, run = 0; o < n; o = run) {
      for (run = o + 1; run < n && counted(axis, from + run) == counted(axis, from + o);) ++run;
      double r = 1.0 / static_cast<double>(std::max<int64_t>(1, counted(axis, from + o)));
      p_.node(ElementwisePayload{ElementwiseOp::Copy, {{-1, r}}}, {}, {p_.slice(base.buffer, base.offset + o, {run - o}, {1})});
    }
    return v;
  }

  // Max and average pooling: the depthwise convolution's window without weights. Max pads with the
  // lowest float (ONNX MaxPool ignores pads: a padded tap never wins while one tap is inside, as in
  // every window a valid pooling has); average pads with zeros and multiplies the sum by one
  // reciprocal, or by per-row times per-column reciprocals where windows at the edges count fewer
  // taps (count_include_pad = 0, or ceil_mode reaching past the pads).
  void pool() {
    const auto& c = s_.conv;
    bool max = s_.pool.kind == compute::PoolKind::Max;
    int64_t reach = (s_.dims[3] - 1) * c.strides[1] + (s_.kW - 1) * c.dilations[1] + 1;  // columns the taps reach
    Window win = window(std::max(c.pads[1] + s_.inW, reach), max ? static_cast<double>(std::numeric_limits<float>::lowest()) : 0.0);
    const SliceSpec base = p_.slices[win.slice];
    bool uniform = max || uniformDivisor();
    std::optional<SliceSpec> rows, cols;
    if (!uniform) {
      rows = p_.slices[reciprocals(0, "rowdiv")];
      cols = p_.slices[reciprocals(1, "coldiv")];
    }
    phases_.push_back(std::move(p_));  // the window is ready; the taps are the same for every band
    p_ = UnitProgram{};
    std::optional<int> acc;
    for (int64_t kh = 0; kh < s_.kH; ++kh)
      for (int64_t kw = 0; kw < s_.kW; ++kw) {
        int in = tapView(base, win, kh, kw);
        std::string tap = std::to_string(kh) + "_" + std::to_string(kw);
        acc = acc ? binary(max ? ElementwiseOp::Max : ElementwiseOp::Add, *acc, in, "acc" + tap, all()) : in;
      }
    if (!max && uniform) acc = withImmediate(ElementwiseOp::Mul, *acc, 1.0 / static_cast<double>(counted(0, 0) * counted(1, 0)), "mean", all());
    if (!uniform) {
      int rb = regSlice("rowdivb", b_.ext), cb = regSlice("coldivb", b_.ext);
      p_.node(BroadcastPayload{{0, 1, 3}}, {p_.slice(rows->buffer, rows->offset, {b_.ext[2]}, {1})}, {rb});
      p_.node(BroadcastPayload{{0, 1, 2}}, {p_.slice(cols->buffer, cols->offset, {b_.ext[3]}, {1})}, {cb});
      acc = binary(ElementwiseOp::Mul, binary(ElementwiseOp::Mul, *acc, rb, "rowmean", all()), cb, "mean", all());
    }
    store(*acc, s_.writes[0]);
  }

  EmitContext& ctx_;
  const compute::Op& op_;
  const IterationSpace& s_;
  const UnitBoxes& b_;
  std::vector<int64_t> boxStrides_;
  std::map<std::string, BufferId> regs_;
  int64_t u_ = 0;
  UnitProgram p_;
  std::vector<UnitProgram> phases_;  // finished phases of the current unit
  std::vector<std::optional<ReductionGroup>> groups_;  // a split reduction's groups, per unit
  std::vector<ReductionGroup> byIndex_;                 // combinedByIndex: unit g combines byIndex_[g]
  std::optional<BufferId> scratch_;
  std::vector<bool> liveTensor_;  // per write: whether its tensor is needed (EmitContext::live)
};

}  // namespace

std::string uniqueBufferName(std::string base, std::set<std::string>& names) {
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  std::string name = base;
  for (int k = 1; names.count(name); ++k) name = base + "_" + std::to_string(k);
  names.insert(name);
  return name;
}

std::vector<PhasePrograms> emitOp(EmitContext& ctx, const compute::Op& op, const IterationSpace& s, const UnitBoxes& boxes) {
  UnitEmitter e(ctx, op, s, boxes);
  std::vector<PhasePrograms> out(UnitEmitter::phases(s, boxes));
  for (int64_t u = 0; u < boxes.units(); ++u) {
    auto programs = e.unit(u);
    for (size_t k = 0; k < out.size(); ++k) out[k].add(k < programs.size() ? std::optional<UnitProgram>(std::move(programs[k])) : std::nullopt);
  }
  return out;
}

}  // namespace gir::search
