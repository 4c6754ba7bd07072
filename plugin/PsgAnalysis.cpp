//===- PsgAnalysis.cpp - Program Structure Graph of a module --------------===//
// 1. Call graph of the unit's definitions; strongly connected components
//    (Tarjan) give recursion, and "can reach MPI/GPU" flows from callees to
//    callers.  Indirect calls and calls to unknown external functions are
//    assumed to reach MPI (the callee may be another unit's MPI code).
// 2. Per function: raw structure (FunctionStructure.cpp), then contraction.
//===----------------------------------------------------------------------===//
#include "PsgAnalysis.h"

#include "CallClassifier.h"
#include "Contraction.h"
#include "FunctionStructure.h"

#include "scalana/mpi_ops.h"
#include "scalana/psg_format.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <cstring>
#include <strings.h>

using namespace llvm;

static cl::opt<int> LoopDepthOpt(
    "scalana-psg-loop-depth",
    cl::desc("ScalAna PSG: number of nested loop levels kept (deeper loops fold into their "
             "parent); overrides SCALANA_PSG_LOOP_DEPTH"),
    cl::init(-1));

namespace scalana {

AnalysisKey PsgAnalysis::Key;

unsigned loopDepthLimit() {
  if (LoopDepthOpt.getNumOccurrences() && LoopDepthOpt >= 0)
    return (unsigned)LoopDepthOpt;
  if (const char *E = std::getenv("SCALANA_PSG_LOOP_DEPTH")) {
    char *End = nullptr;
    long V = std::strtol(E, &End, 10);
    if (*E && End && !*End && V >= 0 && V < 1000)
      return (unsigned)V;
    static bool Warned = false;
    if (!Warned) {
      errs() << "scalana: warning: ignoring SCALANA_PSG_LOOP_DEPTH='" << E
             << "' (want a number 0..999); using " << DefaultLoopDepthLimit << "\n";
      Warned = true;
    }
  }
  return DefaultLoopDepthLimit;
}

namespace {

const Function *calleeOf(const CallBase &CB) {
  const Value *V = CB.getCalledOperand()->stripPointerCasts();
  if (auto *GA = dyn_cast<GlobalAlias>(V))
    V = GA->getAliaseeObject();
  return dyn_cast_or_null<Function>(V);
}

unsigned languageOf(unsigned DwLang) {
  switch (DwLang) {
  case dwarf::DW_LANG_C:
  case dwarf::DW_LANG_C89:
  case dwarf::DW_LANG_C99:
  case dwarf::DW_LANG_C11:
  case dwarf::DW_LANG_C17:
    return PSG_LANG_C;
  case dwarf::DW_LANG_C_plus_plus:
  case dwarf::DW_LANG_C_plus_plus_03:
  case dwarf::DW_LANG_C_plus_plus_11:
  case dwarf::DW_LANG_C_plus_plus_14:
  case dwarf::DW_LANG_C_plus_plus_17:
  case dwarf::DW_LANG_C_plus_plus_20:
    return PSG_LANG_CXX;
  case dwarf::DW_LANG_Fortran77:
  case dwarf::DW_LANG_Fortran90:
  case dwarf::DW_LANG_Fortran95:
  case dwarf::DW_LANG_Fortran03:
  case dwarf::DW_LANG_Fortran08:
  case dwarf::DW_LANG_Fortran18:
    return PSG_LANG_FORTRAN;
  default:
    return PSG_LANG_UNKNOWN;
  }
}

unsigned languageOfPath(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  if (Ext == ".c")
    return PSG_LANG_C;
  if (Ext == ".cc" || Ext == ".cpp" || Ext == ".cxx" || Ext == ".C" || Ext == ".c++")
    return PSG_LANG_CXX;
  if (Ext.starts_with_insensitive(".f"))
    return PSG_LANG_FORTRAN;
  return PSG_LANG_UNKNOWN;
}

/// Call graph facts of the unit's definitions.
struct CallFacts {
  std::vector<Function *> Defs;
  DenseMap<const Function *, unsigned> Index;
  std::vector<unsigned> Scc;          // function -> SCC id
  std::vector<bool> SccRecursive;     // SCC id -> has a cycle
  std::vector<bool> Reaches;          // function -> can reach MPI/GPU

  bool reaches(const Function *F) const {
    auto It = Index.find(F);
    return It != Index.end() && Reaches[It->second];
  }
  bool sameRecursiveScc(const Function *A, const Function *B) const {
    auto IA = Index.find(A), IB = Index.find(B);
    if (IA == Index.end() || IB == Index.end())
      return false;
    unsigned S = Scc[IA->second];
    return S == Scc[IB->second] && SccRecursive[S];
  }
};

/// Headers of the system and the compiler (/usr/include, /usr/lib/...).
bool isSystemFile(StringRef Path) {
  return Path.starts_with("/usr/include/") || Path.starts_with("/usr/lib/") ||
         Path.starts_with("/usr/local/include/") || Path.contains("/include/c++/");
}

bool isStructural(const CallBase &CB) {
  return !CB.isInlineAsm() && !isa<DbgInfoIntrinsic>(CB) &&
         !(calleeOf(CB) && calleeOf(CB)->isIntrinsic());
}

CallFacts analyseCalls(Module &M, const TargetLibraryInfo &TLI) {
  CallFacts CF;
  for (Function &F : M)
    if (!F.isDeclaration() && !F.hasAvailableExternallyLinkage()) {
      CF.Index[&F] = CF.Defs.size();
      CF.Defs.push_back(&F);
    }
  const unsigned N = CF.Defs.size();
  std::vector<std::vector<unsigned>> Succ(N);
  std::vector<bool> Direct(N, false), SelfLoop(N, false);
  for (unsigned I = 0; I < N; ++I)
    for (BasicBlock &BB : *CF.Defs[I])
      for (Instruction &Inst : BB) {
        auto *CB = dyn_cast<CallBase>(&Inst);
        if (!CB || !isStructural(*CB))
          continue;
        const Function *Fn = calleeOf(*CB);
        if (!Fn) {
          Direct[I] = true; // through a pointer: may reach anything
          continue;
        }
        if (mpiOpOf(Fn->getName()) || gpuOpOf(Fn->getName()) >= 0) {
          Direct[I] = true;
          continue;
        }
        auto It = CF.Index.find(Fn);
        if (It == CF.Index.end()) {
          if (!cannotReachMpi(*Fn, TLI))
            Direct[I] = true;
          continue;
        }
        Succ[I].push_back(It->second);
        if (It->second == I)
          SelfLoop[I] = true;
      }

  // Tarjan, iterative; SCCs complete callees first.
  CF.Scc.assign(N, UINT32_MAX);
  CF.Reaches.assign(N, false);
  std::vector<unsigned> Low(N), Num(N, UINT32_MAX), Stack;
  std::vector<bool> OnStack(N, false);
  unsigned Counter = 0;
  struct Frame { unsigned V, Next; };
  for (unsigned Root = 0; Root < N; ++Root) {
    if (Num[Root] != UINT32_MAX)
      continue;
    std::vector<Frame> Work{{Root, 0}};
    Num[Root] = Low[Root] = Counter++;
    Stack.push_back(Root);
    OnStack[Root] = true;
    while (!Work.empty()) {
      Frame &Fr = Work.back();
      unsigned V = Fr.V;
      if (Fr.Next < Succ[V].size()) {
        unsigned W = Succ[V][Fr.Next++];
        if (Num[W] == UINT32_MAX) {
          Num[W] = Low[W] = Counter++;
          Stack.push_back(W);
          OnStack[W] = true;
          Work.push_back({W, 0});
        } else if (OnStack[W]) {
          Low[V] = std::min(Low[V], Num[W]);
        }
        continue;
      }
      if (Low[V] == Num[V]) {
        unsigned Id = CF.SccRecursive.size();
        std::vector<unsigned> Members;
        unsigned W;
        do {
          W = Stack.back();
          Stack.pop_back();
          OnStack[W] = false;
          CF.Scc[W] = Id;
          Members.push_back(W);
        } while (W != V);
        bool Rec = Members.size() > 1 || SelfLoop[V];
        bool Reach = false;
        for (unsigned M : Members) {
          Reach |= Direct[M];
          for (unsigned S : Succ[M])
            if (CF.Scc[S] != Id)
              Reach |= CF.Reaches[S];
        }
        for (unsigned M : Members)
          CF.Reaches[M] = Reach;
        CF.SccRecursive.push_back(Rec);
      }
      Work.pop_back();
      if (!Work.empty())
        Low[Work.back().V] = std::min(Low[Work.back().V], Low[V]);
    }
  }
  return CF;
}

} // namespace

namespace {

/// The unit's name, producer, language and flags from its compile unit (or
/// the module's source file without one).  Returns whether the unit has
/// debug information; says once per process when it has none.
bool describeUnit(Module &M, DICompileUnit *CU, PsgModuleGraph &G) {
  bool HasDebug = CU && CU->getEmissionKind() != DICompileUnit::NoDebug;
  if (CU) {
    G.UnitName = sourcePath(CU->getDirectory(), CU->getFilename());
    // nvcc compiles a temporary (/tmp/tmpxft_..._app.cudafe1.cpp) whose
    // #line directives name the real source: name the unit after the file
    // most of its functions come from.
    if (StringRef(G.UnitName).contains(".cudafe1.")) {
      StringMap<unsigned> Count;
      for (Function &F : M)
        if (DISubprogram *SP = F.getSubprogram())
          if (!F.isDeclaration() && SP->getFilename().ends_with(".cu")) {
            SmallString<256> P(SP->getDirectory());
            sys::path::append(P, SP->getFilename());
            ++Count[P];
          }
      unsigned Best = 0;
      for (auto &E : Count)
        if (E.second > Best) {
          Best = E.second;
          G.UnitName = E.first().str();
        }
    }
    G.Producer = CU->getProducer().str();
    G.Language = languageOf(CU->getSourceLanguage());
  } else {
    SmallString<256> Full(M.getSourceFileName());
    sys::fs::make_absolute(Full);
    G.UnitName = std::string(Full);
    G.Language = languageOfPath(G.UnitName);
  }
  if (G.Producer.empty())
    G.Producer = "ScalAna PSG pass (LLVM " LLVM_VERSION_STRING ")";
  if (HasDebug)
    G.UnitFlags |= PSG_UNIT_HAS_DEBUG_INFO;
  else {
    static bool Said = false;
    if (!Said) {
      errs() << "scalana: note: " << G.UnitName
             << ": no debug information (add -g): the program structure graph has no source "
                "lines\n";
      Said = true;
    }
  }
  return HasDebug;
}

/// SCALANA_PSG_ALL_FUNCTIONS: keep every function of the program's own
/// sources, also those with nothing inside.  The on/off words of the
/// runtime's variables (scalana-cc turns them into 1 or 0 and warns about
/// any other word); here off/no/false keep it off too.
bool keepAllFunctions() {
  const char *All = std::getenv("SCALANA_PSG_ALL_FUNCTIONS");
  return All && *All && std::strcmp(All, "0") != 0 && strcasecmp(All, "off") != 0 &&
         strcasecmp(All, "no") != 0 && strcasecmp(All, "false") != 0;
}

/// Calls that must keep their caller's frame, in every definition (also
/// those left out of the graph).
void keepFrameCalls(const CallFacts &CF, const TargetLibraryInfo &TLI, std::vector<CallInst *> &Out) {
  for (Function *F : CF.Defs)
    for (BasicBlock &BB : *F)
      for (Instruction &Inst : BB) {
        auto *CI = dyn_cast<CallInst>(&Inst);
        if (!CI || !isStructural(*CI))
          continue;
        const Function *Fn = calleeOf(*CI);
        bool Keep = !Fn || mpiOpOf(Fn->getName()) || gpuOpOf(Fn->getName()) >= 0 ||
                    (CF.Index.count(Fn) ? CF.reaches(Fn) : !cannotReachMpi(*Fn, TLI));
        if (Keep)
          Out.push_back(CI);
      }
}

/// COMDAT/linkonce definitions (C++ inline functions, templates, the MPI C++
/// bindings' hundreds of inline methods) are kept only when the unit's own
/// functions call them, directly or through each other: the rest are
/// emitted because a vtable or an address needs them and are the graph of
/// no call path this unit starts.  Returns, per definition, whether it is kept.
std::vector<bool> wantedDefinitions(const CallFacts &CF) {
  std::vector<bool> Wanted(CF.Defs.size(), false);
  std::vector<unsigned> Work;
  for (unsigned I = 0; I < CF.Defs.size(); ++I)
    if (!CF.Defs[I]->hasComdat() && !CF.Defs[I]->hasLinkOnceLinkage()) {
      Wanted[I] = true;
      Work.push_back(I);
    }
  while (!Work.empty()) {
    unsigned I = Work.back();
    Work.pop_back();
    for (BasicBlock &BB : *CF.Defs[I])
      for (Instruction &Inst : BB)
        if (auto *CB = dyn_cast<CallBase>(&Inst))
          if (const Function *Fn = calleeOf(*CB)) {
            auto It = CF.Index.find(Fn);
            if (It != CF.Index.end() && !Wanted[It->second]) {
              Wanted[It->second] = true;
              Work.push_back(It->second);
            }
          }
  }
  return Wanted;
}

/// Which definitions get a FUNCTION vertex.  Those that can reach MPI/GPU
/// (the backward walk goes through them) and main; and, for attribution,
/// every function of the program's own sources that holds a loop or calls
/// such a function, even when it cannot reach MPI: a sample in relax()'s
/// loop, or in a helper inlined at -O2, must find that loop (docs/plugin.md,
/// "Attribution-only structure").  Library internals (headers under /usr)
/// stay out unless they reach MPI.
std::vector<bool> emittedDefinitions(const CallFacts &CF, const std::vector<bool> &Wanted, bool HasDebug,
                                     bool KeepAll) {
  const unsigned ND = CF.Defs.size();
  std::vector<bool> Emitted(ND, false), Eligible(ND, false), Interesting(ND, false);
  for (unsigned I = 0; I < ND; ++I) {
    Function *F = CF.Defs[I];
    if (!Wanted[I])
      continue;
    DISubprogram *SP = F->getSubprogram();
    std::string File;
    if (SP) {
      SmallString<256> Full;
      StringRef Name = SP->getFilename(), Dir = SP->getDirectory();
      if (!sys::path::is_absolute(Name) && !Dir.empty()) {
        Full = Dir;
        sys::path::append(Full, Name);
      } else {
        Full = Name;
      }
      File = std::string(Full);
    }
    Eligible[I] = !isSystemFile(File) && !(HasDebug && (!SP || !SP->getLine()));
    if (Eligible[I]) {
      DominatorTree DT(*F);
      LoopInfo LI(DT);
      Interesting[I] = !LI.empty();
    }
  }
  // callers of interesting functions are interesting (fixpoint over calls)
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned I = 0; I < ND; ++I) {
      if (Interesting[I] || !Eligible[I])
        continue;
      for (BasicBlock &BB : *CF.Defs[I]) {
        for (Instruction &Inst : BB)
          if (auto *CB = dyn_cast<CallBase>(&Inst))
            if (const Function *Fn = calleeOf(*CB)) {
              auto It = CF.Index.find(Fn);
              if (It != CF.Index.end() && Interesting[It->second]) {
                Interesting[I] = Changed = true;
                break;
              }
            }
        if (Interesting[I])
          break;
      }
    }
  }
  for (unsigned I = 0; I < ND; ++I)
    Emitted[I] = Wanted[I] && (CF.Reaches[I] || CF.Defs[I]->getName() == "main" ||
                               (Eligible[I] && (Interesting[I] || KeepAll)));
  return Emitted;
}

/// What a unit's functions are built from: its call facts, which definitions
/// are emitted, and the choices of the unit.
struct UnitFacts {
  const CallFacts &CF;
  const TargetLibraryInfo &TLI;
  const std::vector<bool> &Emitted;
  bool HasDebug, KeepAll;
};

/// The leaf vertex of call CB inside function F (MPI, GPU, a call, an
/// indirect or recursive call), or null when the call is not structural.
std::unique_ptr<PsgNode> makeLeaf(const UnitFacts &U, const Function *F, const CallBase &CB) {
  if (!isStructural(CB))
    return nullptr;
  auto N = std::make_unique<PsgNode>();
  N->Absorbs = true;
  const Function *Fn = calleeOf(CB);
  if (!Fn) {
    N->Kind = PSG_CALL_INDIRECT;
    N->Kept = true;
    return N;
  }
  // The name called (an alias keeps its own name: `-O2` aliases
  // complete to base destructors); facts come from the aliasee.
  const Value *Called = CB.getCalledOperand()->stripPointerCasts();
  StringRef Name = Called->hasName() ? Called->getName() : Fn->getName();
  DISubprogram *SP = Fn->getSubprogram();
  N->Callee = Name.str();
  int Gpu = -1;
  if (unsigned Op = mpiOpOf(Name)) {
    N->Kind = PSG_MPI;
    N->Op = Op;
    N->Display = scalana_mpi_op_name(Op);
    N->Kept = true;
  } else if ((Gpu = gpuOpOf(Name)) >= 0) {
    N->Kind = PSG_GPU;
    N->Op = Gpu;
    N->Display = displayName(Name, SP ? SP->getName() : "");
    N->Kept = true;
  } else {
    N->Display = Called == Fn ? displayName(*Fn) : displayName(Name, SP ? SP->getName() : "");
    if (!U.CF.Index.count(Fn)) {
      N->Kind = PSG_CALL;
      N->Flags |= PSG_V_EXTERNAL_CALLEE;
      N->Kept = !cannotReachMpi(*Fn, U.TLI);
    } else {
      N->Kind = U.CF.sameRecursiveScc(F, Fn) ? PSG_CALL_RECURSIVE : PSG_CALL;
      N->Kept = U.CF.reaches(Fn);
      N->SkeletonCallee = U.Emitted[U.CF.Index.lookup(Fn)];
    }
  }
  return N;
}

/// Function F's structure, contracted, into PF.  Returns false when F stays
/// out of the graph: it cannot reach MPI/GPU and has no lines, or nothing
/// inside and was not asked for.
bool buildFunction(const UnitFacts &U, Function *F, PsgModuleGraph &G, PsgFunction &PF) {
  PF.Linkage = F->getName().str();
  PF.Display = displayName(*F);
  if (F->hasComdat())
    PF.ComdatKey = F->getComdat()->getName().str();
  else if (F->hasLinkOnceLinkage() || F->hasWeakODRLinkage())
    PF.ComdatKey = F->getName().str();
  PF.LocalLinkage = F->hasLocalLinkage();
  PF.Root = buildFunctionStructure(*F, G.UnitName,
                                   [&](const CallBase &CB) { return makeLeaf(U, F, CB); });
  contractFunction(*PF.Root, G.LoopDepthLimit);
  // A function that cannot reach MPI/GPU keeps only its attribution
  // skeleton (its loops and calls, under folded COMPUTEs); one without
  // lines, or without anything inside and not asked for, stays out.
  if (!U.CF.reaches(F) && F->getName() != "main") {
    if ((U.HasDebug && !PF.Root->FirstLine) || (PF.Root->Children.empty() && !U.KeepAll))
      return false;
    // Nothing in it is walked: its folded COMPUTEs need not stand apart;
    // the FUNCTION holds the skeleton directly (a smaller graph).
    std::vector<std::unique_ptr<PsgNode>> Flat;
    for (auto &C : PF.Root->Children) {
      if (C->Kind == PSG_COMPUTE)
        for (auto &K : C->Children)
          Flat.push_back(std::move(K));
      else
        Flat.push_back(std::move(C));
    }
    PF.Root->Children = std::move(Flat);
  }
  if (!PF.ComdatKey.empty())
    PF.Root->Flags |= PSG_V_LINKONCE;
  if (U.CF.reaches(F))
    PF.Root->Flags |= PSG_V_REACHES_MPI;
  else if (F->getName() != "main")
    PF.Root->Flags |= PSG_V_ATTRIBUTION_ONLY;
  return true;
}

} // namespace

PsgAnalysis::Result PsgAnalysis::run(Module &M, ModuleAnalysisManager &) {
  Result R;
  PsgModuleGraph &G = R.Graph;
  G.LoopDepthLimit = loopDepthLimit();

  DICompileUnit *CU = nullptr;
  for (DICompileUnit *C : M.debug_compile_units()) {
    CU = C;
    break;
  }
  bool HasDebug = describeUnit(M, CU, G);

  TargetLibraryInfoImpl TLII{Triple(M.getTargetTriple())};
  TargetLibraryInfo TLI(TLII);
  CallFacts CF = analyseCalls(M, TLI);
  const bool KeepAll = keepAllFunctions();

  // The compile unit says whether the front end optimises (flang marks no
  // function optnone at -O0); without one, clang's -O0 optnone tells.
  bool Optimized = CU ? CU->isOptimized() : !CF.Defs.empty();
  if (!CU)
    for (Function *F : CF.Defs)
      if (F->hasOptNone())
        Optimized = false;
  if (Optimized)
    G.UnitFlags |= PSG_UNIT_OPTIMIZED;
  G.UnitFlags |= PSG_UNIT_MARKS_CONDITIONAL; // Contraction.cpp's skeleton

  keepFrameCalls(CF, TLI, R.KeepFrameCalls);
  std::vector<bool> Emitted = emittedDefinitions(CF, wantedDefinitions(CF), HasDebug, KeepAll);
  UnitFacts U{CF, TLI, Emitted, HasDebug, KeepAll};
  for (Function *F : CF.Defs) {
    if (!Emitted[CF.Index.lookup(F)])
      continue;
    PsgFunction PF;
    if (buildFunction(U, F, G, PF))
      G.Functions.push_back(std::move(PF));
  }
  return R;
}

// ---- printing ---------------------------------------------------------------

static void printNode(const PsgNode &N, unsigned Depth, raw_ostream &OS) {
  OS.indent(Depth * 2) << psg_kind_name(N.Kind);
  if (N.Kind == PSG_MPI)
    OS << ' ' << scalana_mpi_op_name(N.Op);
  else if (N.Kind == PSG_GPU)
    OS << ' ' << N.Callee;
  else if (!N.Callee.empty())
    OS << ' ' << (N.Display.empty() ? N.Callee : N.Display);
  OS << ' ' << sys::path::filename(N.File) << ':' << N.FirstLine;
  if (N.LastLine != N.FirstLine)
    OS << '-' << N.LastLine;
  if (N.Column)
    OS << ':' << N.Column;
  if (N.Flags & PSG_V_FOLDED)
    OS << " folded";
  if (N.Flags & PSG_V_DEPTH_CUT)
    OS << " depth-cut";
  if (N.Flags & PSG_V_ATTRIBUTION_ONLY)
    OS << " attribution-only";
  OS << '\n';
  for (const auto &C : N.Children)
    printNode(*C, Depth + 1, OS);
}

void printPsg(const PsgModuleGraph &G, raw_ostream &OS) {
  OS << "unit " << G.UnitName << " (loop depth limit " << G.LoopDepthLimit << ")\n";
  for (const PsgFunction &F : G.Functions) {
    OS << "FUNCTION " << F.Display << ' ' << sys::path::filename(F.Root->File) << ':'
       << F.Root->FirstLine;
    if (F.Root->LastLine != F.Root->FirstLine)
      OS << '-' << F.Root->LastLine;
    OS << '\n';
    for (const auto &C : F.Root->Children)
      printNode(*C, 1, OS);
  }
}

PreservedAnalyses PsgPrinterPass::run(Module &M, ModuleAnalysisManager &MAM) {
  printPsg(MAM.getResult<PsgAnalysis>(M).Graph, OS);
  return PreservedAnalyses::all();
}

} // namespace scalana
