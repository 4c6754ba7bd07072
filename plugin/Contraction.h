//===- Contraction.h - Shrink a function's PSG without losing coverage -*- C++ -*-===//
// Subtrees with no MPI, no GPU and no call that can reach either fold into
// one COMPUTE vertex (flag FOLDED) that keeps their source range; adjacent
// COMPUTEs merge; LOOPs nested deeper than the kept-loop-depth limit are
// removed and their children lifted into the parent (flag DEPTH_CUT on what
// was lifted); a BRANCH only survives when an arm holds something kept
// (docs/plugin.md, "How a function becomes a tree").
//===----------------------------------------------------------------------===//
#ifndef SCALANA_PLUGIN_CONTRACTION_H
#define SCALANA_PLUGIN_CONTRACTION_H

#include "PsgTree.h"

namespace scalana {

/// Contracts the raw tree of one function (its FUNCTION vertex) in place.
/// LoopDepthLimit is the number of nested LOOP levels kept (0 keeps none).
/// A COMPUTE whose every source line is already covered by the test of its
/// parent or by an adjacent kept sibling is dropped (it adds no coverage);
/// a FUNCTION whose whole body folds keeps no children.
void contractFunction(PsgNode &Fn, unsigned LoopDepthLimit);

} // namespace scalana
#endif
