// Independent pieces of planning work run side by side on the machine's cores (docs/scale.md,
// "Plan time"): the planners of one subgraph, and the candidates of one search step.
#pragma once

#include <functional>
#include <vector>

namespace gir::search {

// Runs every task once, `threads` at once (0: as many as the machine has cores; the calling thread
// is one of the workers, and each takes the next task when it finishes one). A task must write only
// its own result: then the outcome does not depend on the number of threads.
void runSideBySide(const std::vector<std::function<void()>>& tasks, unsigned threads = 0);

}  // namespace gir::search
