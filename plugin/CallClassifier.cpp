//===- CallClassifier.cpp - What a call site means to the PSG -------------===//
// Name-based recognition of MPI (the shared table through formats/mpi_ops.c),
// CUDA calls (the shared table through formats/gpu_calls.c), and
// runtime-library routines that cannot reach MPI.
//===----------------------------------------------------------------------===//
#include "CallClassifier.h"

#include "scalana/gpu_calls.h"
#include "scalana/mpi_ops.h"
#include "scalana/psg_format.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
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
  // The one table (include/scalana/gpu_calls.def), shared with the CUPTI
  // collector and the binary-structure builder.
  if (!N.contains("cu") && !N.contains("__device_stub__"))
    return -1; // cheap pre-filter: every CUDA name starts with cu after its underscores
  std::string Z = N.str();
  return scalana_gpu_psg_op(Z.c_str());
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

/// Demangled name without its return type and argument list, for the
/// function a lambda is defined in: "void ns::f<int>(int*) const" -> "ns::f<int>".
static std::string shortName(StringRef D) {
  int Angle = 0;
  size_t Paren = D.size(), Start = 0;
  for (size_t I = 0; I < D.size(); ++I) {
    char C = D[I];
    if (C == '<')
      ++Angle;
    else if (C == '>' && Angle > 0)
      --Angle;
    else if (C == ' ' && !Angle)
      Start = I + 1;
    else if (C == '(' && !Angle && !D.substr(0, I).ends_with("operator")) {
      Paren = I;
      break;
    }
  }
  if (Start > Paren)
    Start = 0;
  return D.slice(Start, Paren).str();
}

std::string lambdaName(StringRef D, StringRef File, unsigned Line) {
  // the closure class's call operator: "<outer>::$_N::operator()(...)"
  // (clang's internal-linkage closures), "<outer>::{lambda(...)#N}::operator()(...)"
  // (libstdc++'s demangler) or "<outer>::'lambda'(...)::operator()(...)" (LLVM's)
  size_t Op = D.rfind("::operator()(");
  if (Op == StringRef::npos || Op == 0)
    return "";
  size_t Cls;
  if (D[Op - 1] == '}') {
    int Depth = 0;
    size_t I = Op;
    do {
      --I;
      Depth += D[I] == '}' ? 1 : D[I] == '{' ? -1 : 0;
    } while (I > 0 && Depth > 0);
    if (Depth != 0 || !D.substr(I).starts_with("{lambda("))
      return "";
    Cls = I;
  } else if (D[Op - 1] == ')') {
    // LLVM's demangler: "<outer>::'lambda'(...)" ('lambda0', 'lambda1', ... after the first)
    int Depth = 0;
    size_t I = Op;
    do {
      --I;
      Depth += D[I] == ')' ? 1 : D[I] == '(' ? -1 : 0;
    } while (I > 0 && Depth > 0);
    if (Depth != 0 || I == 0 || D[I - 1] != '\'')
      return "";
    size_t Q = D.rfind('\'', I - 2);
    if (Q == StringRef::npos || !D.slice(Q + 1, I - 1).starts_with("lambda"))
      return "";
    Cls = Q;
  } else {
    size_t I = Op;
    while (I > 0 && isDigit(D[I - 1]))
      --I;
    if (I == Op || I < 2 || D.substr(I - 2, 2) != "$_")
      return "";
    Cls = I - 2;
  }
  std::string Out = ("lambda at " + sys::path::filename(File) + ":" + Twine(Line)).str();
  if (Cls >= 2 && D.substr(Cls - 2, 2) == "::") {
    std::string Outer = shortName(D.take_front(Cls - 2));
    if (!Outer.empty())
      Out += " in " + Outer;
  }
  return Out;
}

std::string displayName(const Function &F) {
  const DISubprogram *SP = F.getSubprogram();
  if (SP && SP->getLine() && F.getName().starts_with("_Z")) {
    std::string L = lambdaName(demangle(F.getName()), SP->getFilename(), SP->getLine());
    if (!L.empty())
      return L;
  }
  if (F.getName() == "_QQmain" && SP) {
    std::string P = programStatement(*SP);
    if (!P.empty())
      return P;
  }
  return displayName(F.getName(), SP ? SP->getName() : "");
}

} // namespace scalana
