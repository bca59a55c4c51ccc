//===- Cycles.h - Which nodes of a directed graph lie on a cycle -*- C++
//-*-===//
//
// Loops in an application: the compiler marks the states on a loop of their
// scope ("Loop"), and the runtime refuses an app whose functions loop
// without it. Both ask the same question of a small graph.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_CONFIG_CYCLES_H
#define UNUM_CONFIG_CYCLES_H

#include <vector>

namespace unum::config {

/// For a graph given as successor lists (node ids 0..n-1), the strongly
/// connected component of each node (Tarjan's algorithm, iteratively: a
/// chain may be as long as the graph).
std::vector<unsigned>
stronglyConnected(const std::vector<std::vector<unsigned>> &successors);

/// Whether each node lies on a cycle: its component has several nodes, or
/// it has an edge to itself.
std::vector<bool> onCycle(const std::vector<std::vector<unsigned>> &successors);

} // namespace unum::config

#endif // UNUM_CONFIG_CYCLES_H
