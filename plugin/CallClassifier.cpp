//===- CallClassifier.cpp - What a call site means to the PSG -------------===//
// Name-based recognition of MPI (through the shared table in formats/mpi_ops.c),
// CUDA calls, and runtime-library routines that cannot reach MPI.
//===----------------------------------------------------------------------===//
#include "CallClassifier.h"

#include "scalana/mpi_ops.h"
#include "scalana/psg_format.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace scalana {

unsigned mpiOpOf(StringRef Name) {
  // Cheap pre-filter: every spelling starts with mpi_/pmpi_ in some case.
  if (Name.size() < 5)
    return SCALANA_MPI_OP_NONE;
  StringRef L = Name;
  if (!(L.starts_with_insensitive("mpi_") || L.starts_with_insensitive("pmpi_")))
    return SCALANA_MPI_OP_NONE;
  std::string Z = Name.str();
  return scalana_mpi_op_from_name(Z.c_str());
}

int gpuOpOf(StringRef N) {
  if (N.contains("__device_stub__"))
    return PSG_GPU_LAUNCH;
  if (!N.starts_with("cu"))
    return -1;
  if (N.starts_with("cudaLaunch") || N.starts_with("cuLaunch"))
    return PSG_GPU_LAUNCH;
  if (N.starts_with("cudaMemcpy") || N.starts_with("cuMemcpy"))
    return PSG_GPU_MEMCPY;
  if (N.starts_with("cudaMemset") || N.starts_with("cuMemset") || N.starts_with("cuMemsetD"))
    return PSG_GPU_MEMSET;
  if (N == "cudaDeviceSynchronize" || N == "cudaStreamSynchronize" ||
      N == "cudaEventSynchronize" || N == "cuCtxSynchronize" || N == "cuStreamSynchronize" ||
      N == "cuEventSynchronize" || N == "cudaThreadSynchronize")
    return PSG_GPU_SYNCHRONIZE;
  if (N.starts_with("cudaMalloc") || N.starts_with("cudaFree") || N.starts_with("cuMemAlloc") ||
      N.starts_with("cuMemFree"))
    return PSG_GPU_MALLOC;
  return -1;
}

bool cannotReachMpi(const Function &F, const TargetLibraryInfo &TLI) {
  if (F.isIntrinsic())
    return true;
  LibFunc LF;
  if (TLI.getLibFunc(F, LF))
    return true;
  StringRef N = F.getName();
  // glibc declares its functions __THROW (nothrow): clang marks them
  // nounwind, while plain C prototypes of user code (another unit's MPI
  // routine) and MPI's own are not.  Mangled C++ noexcept functions are
  // user code and stay "may reach".
  if (F.doesNotThrow() && !N.starts_with("_Z"))
    return true;
  static const char *const Prefixes[] = {
      "_Fortran",  "__cxa_", "_Unwind_", "__gxx_", "__cxx", "_ZNSt", "_ZNKSt", "_ZSt",
      "_ZdlPv",    "_ZdaPv", "_Znwm",    "_Znam",  "__kmpc_", "omp_", "__cuda", "cuda",
      "__assert",  "__stack_chk", "__errno", "__ubsan", "__asan", "__tsan", "__sanitizer",
      "_gfortran", "MPI_",   "PMPI_",    "mpi_",   "pmpi_", "__clang_"};
  for (const char *P : Prefixes)
    if (N.starts_with(P))
      return true;
  return false;
}

std::string displayName(StringRef Linkage, StringRef DebugName) {
  if (Linkage.starts_with("_Z"))
    return demangle(Linkage);
  if (Linkage == "_QQmain")
    return DebugName.empty() || DebugName == "_QQmain" ? "main program" : DebugName.str();
  if (Linkage.starts_with("_QP"))
    return Linkage.drop_front(3).str();
  if (Linkage.starts_with("_QM")) {
    // _QM<module>P<proc>  (module procedures; module names are lower case)
    StringRef Rest = Linkage.drop_front(3);
    size_t P = Rest.find('P');
    if (P != StringRef::npos)
      return (Rest.take_front(P) + "::" + Rest.drop_front(P + 1)).str();
  }
  if (Linkage.starts_with("_QF")) {
    // _QF<host>P<internal>; the main program's are _QFP<internal>
    StringRef Rest = Linkage.drop_front(3);
    size_t P = Rest.find('P');
    if (P == 0)
      return Rest.drop_front(1).str();
    if (P != StringRef::npos)
      return (Rest.take_front(P) + "." + Rest.drop_front(P + 1)).str();
  }
  if (!DebugName.empty())
    return DebugName.str();
  return Linkage.str();
}

/// "program NAME" from the `program NAME` statement on line Line of the
/// source file of SP (free or fixed form, any case); "" when not found.
static std::string programStatement(const DISubprogram &SP) {
  SmallString<256> Path(SP.getFilename());
  if (!sys::path::is_absolute(Path) && !SP.getDirectory().empty()) {
    Path = SP.getDirectory();
    sys::path::append(Path, SP.getFilename());
  }
  unsigned Line = SP.getLine();
  if (Line == 0)
    return "";
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return "";
  StringRef Text = (*Buf)->getBuffer();
  for (unsigned L = 1; L < Line && !Text.empty(); ++L)
    Text = Text.split('\n').second;
  StringRef S = Text.split('\n').first.ltrim(" \t");
  if (!S.take_front(7).equals_insensitive("program"))
    return "";
  S = S.drop_front(7);
  if (S.empty() || (S[0] != ' ' && S[0] != '\t'))
    return "";
  S = S.ltrim(" \t");
  size_t N = 0;
  while (N < S.size() && (isAlnum(S[N]) || S[N] == '_'))
    ++N;
  if (N == 0 || !isAlpha(S[0]))
    return "";
  return ("program " + S.take_front(N)).str();
}

std::string displayName(const Function &F) {
  const DISubprogram *SP = F.getSubprogram();
  if (F.getName() == "_QQmain" && SP) {
    std::string P = programStatement(*SP);
    if (!P.empty())
      return P;
  }
  return displayName(F.getName(), SP ? SP->getName() : "");
}

} // namespace scalana
