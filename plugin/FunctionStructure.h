//===- FunctionStructure.h - Raw structure tree of one function -*- C++ -*-===//
// Turns a function's CFG, as the front end left it, into the raw PSG tree:
// natural loops (LoopInfo), conditional regions (dominator/post-dominator
// trees), call sites and runs of straight-line code, children in program order
// (block layout order, which is source order for clang and flang output).
// Contraction.cpp then shrinks the tree.
//===----------------------------------------------------------------------===//
#ifndef SCALANA_PLUGIN_FUNCTIONSTRUCTURE_H
#define SCALANA_PLUGIN_FUNCTIONSTRUCTURE_H

#include "PsgTree.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class CallBase;
class DILocation;
class Function;
} // namespace llvm

namespace scalana {

/// Source position of an instruction, as the pass keys vertices: the
/// outermost location of the inline chain (the line in this function).
struct SourcePos {
  std::string File;
  unsigned Line = 0, Column = 0;
};
SourcePos sourcePos(const llvm::DILocation *DL, llvm::StringRef FallbackFile);

/// A debug-information file name Name joined to its directory Dir (unless
/// absolute) and folded lexically ("." and ".." removed), as the analyzer's
/// symbolizer folds DWARF names, so that both name a file alike.
std::string sourcePath(llvm::StringRef Dir, llvm::StringRef Name);

/// Makes the leaf vertex of a call site, or returns null when the call is
/// plain computation (inline asm, debug intrinsics, ...).  Sets Kind, Op,
/// Callee, Display, Flags, Kept and Absorbs; position fields are filled by
/// the caller.
using CallLeafFn = llvm::function_ref<std::unique_ptr<PsgNode>(const llvm::CallBase &)>;

/// Builds the raw tree of F (a definition).  FallbackFile names the file when
/// F carries no debug information.  Never fails; unreachable blocks are
/// ignored.
std::unique_ptr<PsgNode> buildFunctionStructure(llvm::Function &F, llvm::StringRef FallbackFile,
                                                CallLeafFn MakeLeaf);

} // namespace scalana
#endif
