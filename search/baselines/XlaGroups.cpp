// The fusion state of the xla-like planner (see XlaGroups.h).
#include "search/baselines/XlaGroups.h"

#include <algorithm>

namespace gir::search {

XlaGroups::XlaGroups(const PlanProblem& p) : p_(p), memberOf_(p.nodes.size()), rootOwner_(p.nodes.size()) {
  for (const PlanNode& n : p.nodes) {
    groups_.push_back({{n.id}, {n.id}, true});
    memberOf_[n.id].insert(n.id);
    rootOwner_[n.id] = n.id;
  }
}

bool XlaGroups::isLibrary(int g) const {
  for (int n : groups_[g].nodes)
    if (compute::isLibraryKind(p_.node(n).kind)) return true;
  return false;
}

bool XlaGroups::hasUnnestedReduce(int g) const {
  for (int n : groups_[g].nodes)
    if (isUnnestedReduce(p_, n)) return true;
  return false;
}

std::vector<int> XlaGroups::aliveInOrder() const {
  std::vector<int> out;
  for (int g = 0; g < size(); ++g)
    if (groups_[g].alive) out.push_back(g);
  std::sort(out.begin(), out.end(), [&](int a, int b) { return key(a) < key(b); });
  return out;
}

std::vector<int> XlaGroups::users(int g) const {
  std::set<int> out;
  for (int r : groups_[g].roots)
    for (int u : p_.users[r])
      for (int h : memberOf_[u])
        if (h != g && !groups_[h].nodes.count(r)) out.insert(h);
  std::vector<int> v(out.begin(), out.end());
  std::sort(v.begin(), v.end(), [&](int a, int b) { return key(a) < key(b); });
  return v;
}

std::vector<int> XlaGroups::operands(int g) const {
  std::set<int> out;
  for (int n : groups_[g].nodes)
    for (TensorId t : p_.node(n).inputs) {
      int prod = p_.producer[index(t)];
      if (prod < 0 || groups_[g].nodes.count(prod)) continue;
      GIR_ASSERT(rootOwner_[prod] >= 0, "a group reads a node that no group stores");
      out.insert(rootOwner_[prod]);
    }
  std::vector<int> v(out.begin(), out.end());
  std::sort(v.begin(), v.end(), [&](int a, int b) { return key(a) > key(b); });
  return v;
}

std::vector<int> XlaGroups::readersOf(TensorId t) const {
  int prod = p_.producer[index(t)];
  std::set<int> out;
  for (const PlanNode& n : p_.nodes) {
    if (std::find(n.inputs.begin(), n.inputs.end(), t) == n.inputs.end()) continue;
    for (int h : memberOf_[n.id])
      if (prod < 0 || !groups_[h].nodes.count(prod)) out.insert(h);
  }
  std::vector<int> v(out.begin(), out.end());
  std::sort(v.begin(), v.end(), [&](int a, int b) { return key(a) < key(b); });
  return v;
}

bool XlaGroups::usedBesides(int g, int except) const {
  for (int r : groups_[g].roots)
    if (p_.isOutput[index(p_.node(r).out)]) return true;
  for (int h : users(g))
    if (h != except) return true;
  return false;
}

bool XlaGroups::reaches(int from, int to) const {
  std::vector<int> stack{from};
  std::set<int> seen{from};
  while (!stack.empty()) {
    int g = stack.back();
    stack.pop_back();
    for (int u : users(g)) {
      if (u == to) return true;
      if (seen.insert(u).second) stack.push_back(u);
    }
  }
  return false;
}

std::set<int> XlaGroups::downstream(int g) const {
  std::vector<int> stack{g};
  std::set<int> seen;
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    for (int u : users(x))
      if (seen.insert(u).second) stack.push_back(u);
  }
  return seen;
}

void XlaGroups::cloneInto(int producer, int consumer) {
  for (int n : groups_[producer].nodes) {
    groups_[consumer].nodes.insert(n);
    memberOf_[n].insert(consumer);
  }
}

void XlaGroups::absorb(int consumer, int other) {
  cloneInto(other, consumer);
  for (int r : groups_[other].roots) {
    groups_[consumer].roots.insert(r);
    rootOwner_[r] = consumer;
  }
  groups_[other].roots.clear();
  erase(other);
}

void XlaGroups::erase(int g) {
  for (int n : groups_[g].nodes) memberOf_[n].erase(g);
  for (int r : groups_[g].roots)
    if (rootOwner_[r] == g) rootOwner_[r] = -1;
  groups_[g].alive = false;
}

}  // namespace gir::search
