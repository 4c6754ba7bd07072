//===- PsgEmbedPass.cpp - Keep call frames and embed the PSG --------------===//
#include "PsgEmbedPass.h"

#include "PsgAnalysis.h"
#include "PsgEmitter.h"
#include "WorkCounters.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace scalana {

static const char EmbeddedMark[] = "scalana.psg.embedded";

PreservedAnalyses PsgEmbedPass::run(Module &M, ModuleAnalysisManager &MAM) {
  // Once per module, even when the pipeline runs us twice (e.g. -fpass-plugin
  // plus -passes=scalana-psg, or LTO pre-link and link).
  if (M.getNamedMetadata(EmbeddedMark))
    return PreservedAnalyses::all();
  // Device code (CUDA/HIP device compilation, OpenMP offload) has no ELF
  // host section to carry a graph: the host side records the launches.
  Triple T(M.getTargetTriple());
  if (T.isNVPTX() || T.isAMDGPU() || T.isSPIRV())
    return PreservedAnalyses::all();
  M.getOrInsertNamedMetadata(EmbeddedMark);

  PsgAnalysis::Result &R = MAM.getResult<PsgAnalysis>(M);
  // `return MPI_Allreduce(...)` would otherwise become a tail jump and the
  // caller would vanish from every call path the runtime records.  And two
  // such calls on different lines must stay two instructions: SimplifyCFG's
  // sinking/hoisting and the code generator's tail merging (BranchFolding)
  // would make one call of them whose merged DebugLoc is line 0 (flang's
  // `call MPI_Send(...)` in both arms of an IF), so the runtime's call site
  // would name no line.  `nomerge` keeps each call at its own line.
  for (CallInst *CI : R.KeepFrameCalls) {
    if (!CI->isMustTailCall())
      CI->setTailCallKind(CallInst::TCK_NoTail);
    CI->addFnAttr(Attribute::NoMerge);
  }
  std::vector<CountedLoop> Loops;
  bool Count = workCountersEnabled();
  if (!embedPsg(M, R.Graph, Count ? &Loops : nullptr) || !Count)
    return PreservedAnalyses::all();
  // The counters change the IR: from here the analysis' header pointers are
  // stale, so the graph is invalidated with everything else.
  if (addWorkCounters(M, Loops, R.KeepFrameCalls))
    return PreservedAnalyses::none();
  return PreservedAnalyses::all();
}

} // namespace scalana
