//===- Plugin.cpp - Entry point of the ScalAna PSG pass plugin ------------===//
// Registers the pipeline names `scalana-psg` (embed) and `print<scalana-psg>`
// (print) for opt, the analysis, and the pipeline-start extension point used
// by `clang-19/flang-new-19 -fpass-plugin=ScalanaPSG.so`: the graph is built
// before any optimisation, while loops are still the source's.
//
//   clang-19 -g -O2 -fpass-plugin=build/lib/ScalanaPSG.so -c app.c
//   opt -load-pass-plugin=build/lib/ScalanaPSG.so -passes='print<scalana-psg>'
//       -disable-output app.ll
//===----------------------------------------------------------------------===//
#include "PsgAnalysis.h"
#include "PsgEmbedPass.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static PassPluginLibraryInfo getScalanaPsgPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ScalanaPSG", LLVM_VERSION_STRING, [](PassBuilder &PB) {
            // The graph travels as module-level inline assembly; flang-new-19
            // never registers an assembly parser, and without one the code
            // generator aborts on it.  Registering the host's is idempotent.
            InitializeNativeTargetAsmParser();
            PB.registerAnalysisRegistrationCallback([](ModuleAnalysisManager &MAM) {
              MAM.registerPass([] { return scalana::PsgAnalysis(); });
            });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name == "scalana-psg") {
                    MPM.addPass(scalana::PsgEmbedPass());
                    return true;
                  }
                  if (Name == "print<scalana-psg>") {
                    MPM.addPass(scalana::PsgPrinterPass(outs()));
                    return true;
                  }
                  return false;
                });
            PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
              MPM.addPass(scalana::PsgEmbedPass());
            });
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK __attribute__((visibility("default"))) PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return getScalanaPsgPluginInfo();
}
