// The boxes of a prefix of a subgraph's ops under chosen templates, built one op at a time so the
// search extends and retracts a choice without recomputing what came before.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "search/lowering/IterationSpace.h"
#include "search/lowering/UnitBoxes.h"

namespace gir::search {

// One op's template: split leading dims of its space over units (natural), take the boxes under
// which it reads input `read` exactly as that input's producer wrote it (follow), take the boxes
// under which it writes exactly what each unit of the later op `consumer` reads when that op is
// split by natural[outer]x`tile` (lead, LeadBoxes.h: the producer follows its consumer), or stage
// a transpose through a block's scratch tile (tiled, TiledTranspose.h).
struct OpTemplate {
  enum class Kind { Natural, Follow, Lead, Tiled };
  Kind kind = Kind::Natural;
  std::vector<int> outer;  // natural: dims split over units, in order; lead: the consumer's
  int64_t tile = 1;        // natural: elements of the last outer dim per unit; lead: the consumer's; tiled: the square's side
  int read = -1;           // follow: which input
  int consumer = -1;       // lead: the consumer's index in the subgraph
  int64_t parts = 0;       // tiled: units per square (strips)
  int64_t tileBefore = 1;  // natural: elements per unit of the outer dim before the last (a column strip's rows)
  std::string str() const;  // "natural[0,1]x1", "natural[0,1]x128,16", "follow#0", "lead@5:natural[1]x1", "tiled32/4"
  OpTemplate consumerSplit() const;  // lead: the consumer's natural template
  bool operator==(const OpTemplate&) const = default;
};

class TemplateState {
 public:
  // Fails when an op of the subgraph has no iteration space (no template at all). A unit's box may
  // hold at most `maxBoxElements` (boxElementBudget: registers for a few live copies).
  static Expected<TemplateState> make(const compute::Graph& g, const compute::Subgraph& sub, int64_t maxBoxElements = int64_t{1} << 16);

  // Boxes for the next op under `t`; the state is unchanged when the template does not apply.
  Status push(const OpTemplate& t);
  // For a reduced instance (docs/scale.md): per op, per dim of its space, how many times larger the
  // dim is at full size. A box that holds such a dim whole must also fit the budget at full size.
  void setFullSizeFactors(std::vector<std::vector<int64_t>> factors) { fullSize_ = std::move(factors); }
  void pop();

  size_t size() const { return boxes_.size(); }
  bool complete() const { return boxes_.size() == spaces_.size(); }
  const compute::Graph& graph() const { return *g_; }
  const compute::Subgraph& subgraph() const { return *sub_; }
  const IterationSpace& space(size_t i) const { return spaces_[i]; }
  const UnitBoxes& boxes(size_t i) const { return boxes_[i]; }
  const std::vector<OpTemplate>& choice() const { return choice_; }

  // Bytes of the tensors produced and read inside the prefix that some unit reads in a different
  // pattern than it wrote (so the tensor cannot stay in that unit's registers): each counted as
  // one store and one load. The beam search's cheap score of a partial choice.
  int64_t exchangedBytes() const;

 private:
  Expected<UnitBoxes> boxesFor(size_t i, const OpTemplate& t) const;
  Expected<UnitBoxes> follow(size_t i, const OpTemplate& t) const;
  Expected<UnitBoxes> lead(size_t i, const OpTemplate& t) const;

  const compute::Graph* g_ = nullptr;
  const compute::Subgraph* sub_ = nullptr;
  std::vector<IterationSpace> spaces_;
  std::vector<UnitBoxes> boxes_;
  std::vector<std::vector<int64_t>> fullSize_;
  std::vector<OpTemplate> choice_;
  std::map<TensorId, TensorPlacement> placements_;
  int64_t maxBox_ = 0;
};

// Elements a unit's box may hold on a target: its unit-scope level fits three f32 copies (inputs,
// a temporary, the result) — a register budget, not a proof of fit; the memory-model checker has
// the last word on the final graph.
int64_t boxElementBudget(const HardwareDesc& hw);
// The budget for one op's box: copies and reductions keep the box and a much smaller result (two
// copies' worth), so their boxes may be half as large again as an elementwise op's.
int64_t boxBudgetFor(const IterationSpace& s, int64_t budget);
// The K elements a contraction's unit multiplies at once for a box of extent `ext`: all of them
// when the box fits `budget` (boxBudgetFor), else the largest divisor of K whose chunk (the box's
// output part times the chunk, plus the running sum) fits; the emitter accumulates the chunks
// (docs/plans.md).
int64_t contractionChunk(const IterationSpace& s, const std::vector<int64_t>& ext, int64_t budget);
// The elements a unit holds at once in registers for a box of extent `ext`, the quantity checked
// against boxBudgetFor: the box itself, except a contraction's (its output part times one chunk
// of K) and a pool's (its window of input rows, up to the stride squared times larger).
int64_t liveBoxElements(const IterationSpace& s, const std::vector<int64_t>& ext, int64_t budget);

}  // namespace gir::search
