// The random GIR-Graph generator shared by the rewrite and symbolic-check property tests.
#include "tests/support/RandomGraph.h"

#include <random>

namespace gir::test {

namespace {

// Builds one random graph: each op is its own kernel (load -> compute in reg -> store), and every
// hand-off of a tensor goes through a device sync, as GIR-Graph merging writes it (paper section 6).
class RandomGraphBuilder {
 public:
  explicit RandomGraphBuilder(uint64_t seed) : rng_(seed) {
    g_.name = "random" + std::to_string(seed);
    rows_ = pick({8, 16});
    cols_ = pick({4, 8});
    g_.units = rows_;
    g_.unitsPerBlock = pick({2, 4});
    g_.levels = {{"dram", Scope::Device, 0}, {"smem", Scope::Block, 49152}, {"reg", Scope::Unit, 4096}};
  }

  Graph build() {
    int inputs = pick({1, 2});
    for (int i = 0; i < inputs; ++i) tensors_.push_back(newTensor(BufferRole::Input, cols_));
    int ops = pick({2, 3, 4, 5, 6});
    for (int i = 0; i < ops; ++i) addOp();
    finish();
    return g_;
  }

 private:
  struct Tensor {
    BufferId buffer;
    int64_t width;                  // elements per unit (row length, or 1 after a reduce)
    SliceId store;                  // the slice its producer wrote (invalid for inputs)
    std::vector<SliceId> loads;     // consumer-pattern slices read after the sync
    int consumers = 0;
    bool transposed = false;        // stored [width, rows]: unit u owns column u (strided)
  };

  int pick(std::initializer_list<int> v) { return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng_)); }

  Tensor newTensor(BufferRole role, int64_t width) {
    BufferId b = g_.addBuffer(Buffer{"t" + std::to_string(g_.buffers().size()), "dram", {rows_ * width}, role});
    return Tensor{b, width, {}, {}, 0, false};
  }

  SliceId rowSlice(BufferId b, int64_t width, AffineIndex off) { return g_.addSlice(MemorySlice{b, off, {width}, {1}}); }

  SliceId reg(int64_t width) {
    BufferId b = g_.addBuffer(Buffer{"r" + std::to_string(g_.buffers().size()), "reg", {rows_ * width}, BufferRole::Temp});
    return rowSlice(b, width, AffineIndex::unit(width));
  }

  // The row a unit reads: its own, its pair partner (same block), or the mirrored one (another block).
  AffineIndex readPattern(int64_t width) {
    switch (pick({0, 0, 1, 2})) {
      case 1: return AffineIndex::unit(width, width).addTerm(UnitTermKind::Mod, 2, -2 * width);  // row u ^ 1
      case 2: return AffineIndex::unit(-width, (rows_ - 1) * width);                            // row R-1-u
      default: return AffineIndex::unit(width);
    }
  }

  // Column u of a [width, rows] tensor, or of its pair partner (u ^ 1).
  SliceId columnSlice(BufferId b, int64_t width, bool partner) {
    AffineIndex off = partner ? AffineIndex::unit(1, 1).addTerm(UnitTermKind::Mod, 2, -2) : AffineIndex::unit(1);
    return g_.addSlice(MemorySlice{b, off, {width}, {rows_}});
  }

  // Loads tensor i into registers with a random pattern; returns the register slice.
  SliceId load(size_t i) {
    Tensor& t = tensors_[i];
    ++t.consumers;
    bool input = g_.buffer(t.buffer).role == BufferRole::Input;
    SliceId from = t.transposed ? columnSlice(t.buffer, t.width, pick({0, 1}) == 1)
                                : rowSlice(t.buffer, t.width, input ? AffineIndex::unit(t.width) : readPattern(t.width));
    if (g_.buffer(t.buffer).role != BufferRole::Input) t.loads.push_back(from);
    SliceId r = reg(t.width);
    g_.addNode(Node{MovePayload{}, {from}, {r}, std::nullopt});
    return r;
  }

  void store(SliceId r, int64_t width, bool transposed = false) {
    Tensor t = newTensor(BufferRole::Temp, width);
    t.transposed = transposed;
    t.store = transposed ? columnSlice(t.buffer, width, false) : rowSlice(t.buffer, width, AffineIndex::unit(width));
    g_.addNode(Node{MovePayload{}, {r}, {t.store}, std::nullopt});
    tensors_.push_back(t);
  }

  size_t randomTensor(int64_t width) {
    std::vector<size_t> c;
    for (size_t i = 0; i < tensors_.size(); ++i)
      if (tensors_[i].width == width) c.push_back(i);
    return c.empty() ? SIZE_MAX : c[std::uniform_int_distribution<size_t>(0, c.size() - 1)(rng_)];
  }

  void addOp() {
    int kind = pick({0, 0, 1, 2, 3, 4});
    size_t wide = randomTensor(cols_), narrow = randomTensor(1);
    if (kind == 4 && wide != SIZE_MAX) return transposeOp(wide);
    if (kind == 3 && narrow != SIZE_MAX) return broadcastOp(narrow);
    if (kind == 2 && wide != SIZE_MAX) return reduceOp(wide);
    if (kind == 1 && wide != SIZE_MAX) {
      size_t other = randomTensor(cols_);
      return binaryOp(wide, other);
    }
    if (wide != SIZE_MAX) return unaryOp(wide);
    broadcastOp(narrow);
  }

  void unaryOp(size_t in) {
    SliceId a = load(in), r = reg(cols_);
    ElementwiseOp op = static_cast<ElementwiseOp>(pick({7, 9, 14, 16}));  // neg exp relu tanh
    g_.addNode(Node{ElementwisePayload{op, {{0, 0}}}, {a}, {r}, std::nullopt});
    store(r, cols_);
  }

  void binaryOp(size_t x, size_t y) {
    SliceId a = load(x), b = load(y), r = reg(cols_);
    ElementwiseOp op = static_cast<ElementwiseOp>(pick({0, 2, 4}));  // add mul max
    g_.addNode(Node{ElementwisePayload{op, {{0, 0}, {1, 0}}}, {a, b}, {r}, std::nullopt});
    store(r, cols_);
  }

  void reduceOp(size_t in) {
    SliceId a = load(in), r = reg(1);
    g_.addNode(Node{ReducePayload{pick({0, 1}) ? ReduceOp::Sum : ReduceOp::Max, {0}}, {a}, {r}, std::nullopt});
    store(r, 1);
  }

  // A layout op: the tensor is written transposed (column per unit), the copy itself in registers.
  void transposeOp(size_t in) {
    SliceId a = load(in), r = reg(cols_);
    g_.addNode(Node{MovePayload{}, {a}, {r}, std::nullopt});
    store(r, cols_, true);
  }

  void broadcastOp(size_t in) {
    SliceId a = load(in), r = reg(cols_);
    g_.addNode(Node{BroadcastPayload{{0}}, {a}, {r}, std::nullopt});
    store(r, cols_);
  }

  void finish() {
    for (Tensor& t : tensors_) {
      if (g_.buffer(t.buffer).role == BufferRole::Input) continue;
      if (t.consumers == 0) g_.buffer(t.buffer).role = BufferRole::Output;
      if (!t.loads.empty()) g_.addNode(Node{SyncPayload{Scope::Device}, {t.store}, t.loads, std::nullopt});
    }
  }

  std::mt19937_64 rng_;
  Graph g_;
  int64_t rows_ = 8, cols_ = 4;
  std::vector<Tensor> tensors_;
};

}  // namespace

Graph randomMergedGraph(uint64_t seed) { return RandomGraphBuilder(seed).build(); }

}  // namespace gir::test
