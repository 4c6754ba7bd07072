//===- ReturnPostDom.h - Post-dominance towards the returns -----*- C++ -*-===//
// Post-dominators of a function's reachable blocks where only the returns are
// ways out (used by FunctionStructure.cpp for conditional regions).
//===----------------------------------------------------------------------===//
#ifndef SCALANA_PLUGIN_RETURNPOSTDOM_H
#define SCALANA_PLUGIN_RETURNPOSTDOM_H

#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <vector>

namespace llvm {
class BasicBlock;
} // namespace llvm

namespace scalana {

/// Post-dominance towards the function's returns only: a path that ends in
/// `unreachable` (after exit(), abort()) is not a way out.  LLVM's
/// PostDominatorTree counts such blocks as exits, so after
/// `if (bad) { MPI_Finalize(); exit(2); }` nothing post-dominates anything
/// before it and every earlier decision would swallow the rest of the
/// function.  Cooper-Harvey-Kennedy on the reverse CFG, rooted at a virtual
/// exit joined to the `ret` blocks (to every block without successors when
/// the function never returns).
class ReturnPostDominators {
public:
  /// Blocks: the reachable blocks in layout order, Idx their positions.
  /// ReturnsOnly false: every block without successors is an exit (LLVM's
  /// notion), used for code that never returns.
  ReturnPostDominators(const std::vector<llvm::BasicBlock *> &Blocks,
                       const llvm::DenseMap<const llvm::BasicBlock *, unsigned> &Idx,
                       bool ReturnsOnly);

  /// X post-dominates B (every path from B to a return passes X); a block
  /// that reaches no return is post-dominated by nothing but itself.
  bool dominates(unsigned X, unsigned B) const {
    if (X == B)
      return true;
    if (!Pre[X] || !Pre[B])
      return false;
    return Pre[X] <= Pre[B] && Post[B] <= Post[X];
  }

  /// Whether B reaches an exit (else nothing is known about it).
  bool knows(unsigned B) const { return Pre[B] != 0; }

  /// Immediate post-dominator of B; UINT32_MAX when it is the virtual exit
  /// or unknown.
  unsigned ipdom(unsigned B) const { return !Pre[B] || IPDom[B] == N ? Undef : IPDom[B]; }

  /// Nearest common post-dominator of A and B; UINT32_MAX when it is the
  /// virtual exit or unknown.
  unsigned nearestCommon(unsigned A, unsigned B) const {
    if (!Pre[A] || !Pre[B])
      return Undef;
    while (!dominates(A, B))
      A = IPDom[A];
    return A == N ? Undef : A;
  }

private:
  static constexpr unsigned Undef = UINT32_MAX;
  unsigned N;
  std::vector<unsigned> IPDom, Pre, Post;
};

} // namespace scalana
#endif
