//===- PsgAnalysis.h - Program Structure Graph of a module -----*- C++ -*-===//
// A module analysis: the contracted PSG of every function defined in the
// translation unit, plus the call sites that must never become tail calls.
// Run it at the start of the optimisation pipeline (loops still the
// source's).  Printed by PsgPrinterPass, embedded by PsgEmbedPass.
//
//   opt -load-pass-plugin=build/lib/ScalanaPSG.so -passes='print<scalana-psg>'
//       -disable-output input.ll
//===----------------------------------------------------------------------===//
#ifndef SCALANA_PLUGIN_PSGANALYSIS_H
#define SCALANA_PLUGIN_PSGANALYSIS_H

#include "PsgTree.h"

#include "llvm/IR/PassManager.h"

#include <vector>

namespace llvm {
class CallInst;
class Module;
} // namespace llvm

namespace scalana {

/// Default kept-loop-depth limit, 10: deeper nests are rare in MPI codes and
/// add vertices without adding insight (docs/plugin.md).
constexpr unsigned DefaultLoopDepthLimit = 10;

/// The limit in force: `-mllvm -scalana-psg-loop-depth=N` when given,
/// otherwise the environment variable SCALANA_PSG_LOOP_DEPTH, otherwise
/// DefaultLoopDepthLimit.  A malformed environment value is reported once and
/// ignored.
unsigned loopDepthLimit();

class PsgAnalysis : public llvm::AnalysisInfoMixin<PsgAnalysis> {
public:
  struct Result {
    PsgModuleGraph Graph;
    /// MPI/GPU calls and calls that can reach them: marked `notail` by the
    /// embedding pass, so that callers stay on the call path, and `nomerge`,
    /// so that each keeps its own line (a merged call's location is line 0).
    std::vector<llvm::CallInst *> KeepFrameCalls;
    bool invalidate(llvm::Module &, const llvm::PreservedAnalyses &PA,
                    llvm::ModuleAnalysisManager::Invalidator &) {
      auto C = PA.getChecker<PsgAnalysis>();
      return !C.preserved();
    }
  };
  Result run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);

private:
  friend llvm::AnalysisInfoMixin<PsgAnalysis>;
  static llvm::AnalysisKey Key;
};

/// Prints the graph in scalana-dump's text layout (`print<scalana-psg>`).
class PsgPrinterPass : public llvm::PassInfoMixin<PsgPrinterPass> {
public:
  explicit PsgPrinterPass(llvm::raw_ostream &OS) : OS(OS) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
  // Printing must happen at -O0 too (optnone functions).
  static bool isRequired() { return true; }

private:
  llvm::raw_ostream &OS;
};

/// Writes a graph as text: one line per vertex, indented by depth.
void printPsg(const PsgModuleGraph &G, llvm::raw_ostream &OS);

} // namespace scalana
#endif
