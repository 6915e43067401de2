#include "search/SideBySide.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>

namespace gir::search {

void runSideBySide(const std::vector<std::function<void()>>& tasks, unsigned threads) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < tasks.size();) tasks[i]();
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  size_t workers = std::min<size_t>(tasks.size(), threads);
  std::vector<std::future<void>> helpers;
  for (size_t w = 1; w < workers; ++w) helpers.push_back(std::async(std::launch::async, work));
  work();
  for (auto& h : helpers) h.get();
}

}  // namespace gir::search
