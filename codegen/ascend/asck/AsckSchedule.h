// The one pipe-queue scheduler (docs/ascend.md, "The machine"): a trace's ops in seven in-order queues,
// driven in a topological order. A queue's head runs when its rule lets it (a wait only after the set it
// consumes), and pipe_barrier ALL runs once it heads every queue. The simulator times a run on it, the
// happens-before pass joins vector clocks on it, and the app's timeline draws the simulator's times.
#pragma once

#include <cstddef>
#include <vector>

#include "codegen/ascend/asck/AsckTrace.h"

namespace gir::ascend {

// Per pipe, the op indices of its queue in program order; a pipe_barrier ALL sits in every queue.
struct PipeQueues {
  std::vector<std::vector<int>> ops;
  explicit PipeQueues(const Trace& t) : ops(kNumPipes) {
    for (int i = 0; i < static_cast<int>(t.ops.size()); ++i) {
      if (t.ops[i].kind == DynKind::BarrierAll) {
        for (auto& q : ops) q.push_back(i);
      } else {
        ops[static_cast<size_t>(t.ops[i].pipe)].push_back(i);
      }
    }
  }
};

// Runs the queues until none can move: step(pipe, op) runs the head of `pipe` and returns true, or
// returns false when it must wait; barrierAll(op, head) runs a pipe_barrier ALL heading every queue
// (head[r]: its position in queue r). Returns
// each queue's head: the queues drained when every head is its queue's size (else a deadlock).
template <typename Step, typename BarrierAll>
std::vector<size_t> drivePipes(const Trace& t, const PipeQueues& q, Step step, BarrierAll barrierAll) {
  std::vector<size_t> head(kNumPipes, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int p = 0; p < kNumPipes; ++p) {
      const auto& queue = q.ops[static_cast<size_t>(p)];
      while (head[static_cast<size_t>(p)] < queue.size()) {
        int op = queue[head[static_cast<size_t>(p)]];
        if (t.ops[static_cast<size_t>(op)].kind == DynKind::BarrierAll) {
          bool heads = true;
          for (int r = 0; r < kNumPipes; ++r) {
            const auto& other = q.ops[static_cast<size_t>(r)];
            heads &= head[static_cast<size_t>(r)] < other.size() && other[head[static_cast<size_t>(r)]] == op;
          }
          if (!heads) break;
          barrierAll(op, static_cast<const std::vector<size_t>&>(head));
          for (auto& h : head) ++h;
        } else {
          if (!step(p, op)) break;
          ++head[static_cast<size_t>(p)];
        }
        progress = true;
      }
    }
  }
  return head;
}

inline bool drained(const PipeQueues& q, const std::vector<size_t>& head) {
  for (int p = 0; p < kNumPipes; ++p)
    if (head[static_cast<size_t>(p)] < q.ops[static_cast<size_t>(p)].size()) return false;
  return true;
}

}  // namespace gir::ascend
