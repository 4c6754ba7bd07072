//===- PsgEmbedPass.h - Keep call frames and embed the PSG -----*- C++ -*-===//
// The pass the plugin adds at the start of the optimisation pipeline (and
// `-passes=scalana-psg` in opt): marks MPI/GPU calls and calls that can
// reach them `notail`, then embeds the unit's PSG (PsgEmitter.cpp).
//
//   clang-19 -g -O2 -fpass-plugin=build/lib/ScalanaPSG.so -c app.c
//   opt -load-pass-plugin=build/lib/ScalanaPSG.so -passes=scalana-psg in.ll -S
//===----------------------------------------------------------------------===//
#ifndef SCALANA_PLUGIN_PSGEMBEDPASS_H
#define SCALANA_PLUGIN_PSGEMBEDPASS_H

#include "llvm/IR/PassManager.h"

namespace scalana {

class PsgEmbedPass : public llvm::PassInfoMixin<PsgEmbedPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
  // Required: at -O0 clang marks every function optnone, and a skipped pass
  // would leave those units without a graph.
  static bool isRequired() { return true; }
};

} // namespace scalana
#endif
