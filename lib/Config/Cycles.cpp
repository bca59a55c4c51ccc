//===- Cycles.cpp - Which nodes of a directed graph lie on a cycle --------===//

#include "unum/Config/Cycles.h"

#include <algorithm>
#include <utility>

using namespace unum::config;

std::vector<unsigned> unum::config::stronglyConnected(
    const std::vector<std::vector<unsigned>> &succ) {
  const unsigned n = succ.size();
  constexpr unsigned none = ~0u;
  std::vector<unsigned> index(n, none), low(n), component(n, none);
  std::vector<bool> onStack(n);
  std::vector<unsigned> stack;
  std::vector<std::pair<unsigned, unsigned>> calls; // node, next successor
  unsigned counter = 0, components = 0;
  auto push = [&](unsigned v) {
    index[v] = low[v] = counter++;
    stack.push_back(v);
    onStack[v] = true;
    calls.push_back({v, 0});
  };
  for (unsigned root = 0; root < n; ++root) {
    if (index[root] != none)
      continue;
    push(root);
    while (!calls.empty()) {
      auto [v, next] = calls.back();
      if (next < succ[v].size()) {
        ++calls.back().second;
        unsigned w = succ[v][next];
        if (index[w] == none)
          push(w);
        else if (onStack[w])
          low[v] = std::min(low[v], index[w]);
        continue;
      }
      calls.pop_back();
      if (!calls.empty())
        low[calls.back().first] = std::min(low[calls.back().first], low[v]);
      if (low[v] != index[v])
        continue;
      // v roots a component: everything above it on the stack.
      unsigned w;
      do {
        w = stack.back();
        stack.pop_back();
        onStack[w] = false;
        component[w] = components;
      } while (w != v);
      ++components;
    }
  }
  return component;
}

std::vector<bool>
unum::config::onCycle(const std::vector<std::vector<unsigned>> &succ) {
  std::vector<unsigned> component = stronglyConnected(succ);
  std::vector<unsigned> size(succ.size());
  for (unsigned c : component)
    ++size[c];
  std::vector<bool> cyclic(succ.size());
  for (unsigned v = 0; v < succ.size(); ++v)
    cyclic[v] = size[component[v]] > 1 ||
                std::find(succ[v].begin(), succ[v].end(), v) != succ[v].end();
  return cyclic;
}
