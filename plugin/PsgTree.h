//===- PsgTree.h - In-memory Program Structure Graph of one unit -*- C++ -*-===//
// The tree the pass builds per function (FunctionStructure.cpp), shrinks
// (Contraction.cpp) and serialises (PsgEmitter.cpp).  Kinds and flags are the
// on-disk ones of include/scalana/psg_format.h.
//===----------------------------------------------------------------------===//
#ifndef SCALANA_PLUGIN_PSGTREE_H
#define SCALANA_PLUGIN_PSGTREE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
} // namespace llvm

namespace scalana {

/// One vertex.  Source lines are counted in File only; Lines holds the
/// distinct lines of the straight-line code a COMPUTE stands for (used to
/// decide whether it adds coverage), sorted.
struct PsgNode {
  unsigned Kind = 0;  ///< enum psg_kind
  unsigned Flags = 0; ///< enum psg_vertex_flags
  unsigned Op = 0;    ///< MPI op / GPU op
  std::string File; ///< absolute when the compiler knew the directory
  unsigned FirstLine = 0, LastLine = 0, Column = 0;
  unsigned HeadLine = 0; ///< line of a LOOP/BRANCH's test or a FUNCTION's opening
  std::string Callee, Display;
  bool Kept = false;      ///< holds MPI/GPU or a call that can reach one
  bool Absorbs = false;   ///< a call/loop/branch: folding it makes a FOLDED COMPUTE
  bool HasWork = false;   ///< raw COMPUTE: holds arithmetic or a library call, not only moves
  bool SkeletonCallee = false; ///< CALL to a function the graph lists: kept when folded
  /// LOOP: the IR loop's header, where the work counter counts
  /// (WorkCounters.cpp); valid while the module is unchanged since the
  /// analysis, i.e. within the embedding pass.
  const llvm::BasicBlock *Header = nullptr;
  std::vector<unsigned> Lines;
  std::vector<std::unique_ptr<PsgNode>> Children;

  /// Extends [FirstLine, LastLine] by a line of the same file (0 ignored).
  void cover(unsigned Line) {
    if (!Line)
      return;
    if (!FirstLine || Line < FirstLine)
      FirstLine = Line;
    if (Line > LastLine)
      LastLine = Line;
  }
};

/// One defined function of the unit.
struct PsgFunction {
  std::string Linkage, Display;
  std::string ComdatKey; ///< non-empty: COMDAT/linkonce, emitted in its own group
  bool LocalLinkage = false;
  std::unique_ptr<PsgNode> Root; ///< the FUNCTION vertex
};

/// The graph of one translation unit.
struct PsgModuleGraph {
  std::string UnitName, Producer;
  unsigned Language = 0, UnitFlags = 0, LoopDepthLimit = 0;
  std::vector<PsgFunction> Functions;
};

} // namespace scalana
#endif
