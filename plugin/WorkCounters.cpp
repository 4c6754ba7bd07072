//===- WorkCounters.cpp - Count loop iterations per thread ----------------===//
// Each counted loop gets a 64-bit local, zeroed at function entry, that the
// header increments; on every way out of the loop (its exit blocks and a
// `ret` inside it) the local is added to the thread's counter and zeroed.
// At -O1 and above SROA makes the local a register and IndVarSimplify turns
// the increment into the trip count added once at the exit, so a loop pays
// one thread-local add per execution, not per iteration.  Counters are
// thread-local so that OpenMP threads neither race nor share cache lines.
//===----------------------------------------------------------------------===//
#include "WorkCounters.h"

#include "scalana/work_counters.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstdlib>
#include <cstring>
#include <map>

using namespace llvm;

namespace scalana {

static cl::opt<int> WorkCountersOpt(
    "scalana-work-counters", cl::init(-1), cl::Hidden,
    cl::desc("ScalAna: count loop iterations per thread (1, default) or not (0)"));

bool workCountersEnabled() {
  if (WorkCountersOpt.getNumOccurrences() && WorkCountersOpt >= 0)
    return WorkCountersOpt != 0;
  const char *E = std::getenv("SCALANA_WORK_COUNTERS");
  return !(E && std::strcmp(E, "0") == 0);
}

namespace {

/// The module's counter storage and the code that reaches it.
struct Storage {
  GlobalVariable *Counters; ///< thread_local [K x i64]
  ArrayType *Ty;
};

/// Adds the local into the thread's counter K and zeroes the local, before I.
void flushBefore(Instruction *I, AllocaInst *Local, const Storage &S, unsigned K) {
  IRBuilder<> B(I);
  Type *I64 = B.getInt64Ty();
  Value *N = B.CreateLoad(I64, Local, "scalana.work.n");
  Value *Base = B.CreateThreadLocalAddress(S.Counters);
  Value *Slot = B.CreateConstInBoundsGEP2_64(S.Ty, Base, 0, K, "scalana.work.slot");
  Value *Old = B.CreateLoad(I64, Slot);
  B.CreateStore(B.CreateAdd(Old, N), Slot);
  B.CreateStore(ConstantInt::get(I64, 0), Local);
}

/// Counts loop K (header H) of F; LI is F's loop forest.  The local is
/// flushed where its nest is left (the exits of the outermost loop around
/// it: an inner loop's flush is not paid once per outer iteration), before a
/// `return` inside the nest, and before each call in the nest that can reach
/// MPI (Flushes), so that the counts are in the thread's array whenever the
/// runtime may write the profile (MPI_Finalize, an exit inside the nest).
bool countLoop(Function &F, LoopInfo &LI, const BasicBlock *H, unsigned K, const Storage &S,
               const SmallPtrSetImpl<const CallInst *> &Flushes) {
  Loop *L = LI.getLoopFor(H);
  if (!L || L->getHeader() != H)
    return false;
  BasicBlock *Header = L->getHeader();
  if (Header->getFirstInsertionPt() == Header->end())
    return false; // a catchswitch header: nowhere to count
  Loop *Top = L;
  while (Top->getParentLoop())
    Top = Top->getParentLoop();
  Type *I64 = Type::getInt64Ty(F.getContext());
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
  AllocaInst *Local = EB.CreateAlloca(I64, nullptr, "scalana.work");
  EB.CreateStore(ConstantInt::get(I64, 0), Local);

  IRBuilder<> HB(&*Header->getFirstInsertionPt());
  HB.CreateStore(HB.CreateAdd(HB.CreateLoad(I64, Local), ConstantInt::get(I64, 1)), Local);

  SmallVector<BasicBlock *, 8> Exits;
  Top->getUniqueExitBlocks(Exits);
  for (BasicBlock *E : Exits)
    if (E->getFirstInsertionPt() != E->end())
      flushBefore(&*E->getFirstInsertionPt(), Local, S, K);
  for (BasicBlock *BB : Top->blocks()) {
    // `return` from inside the nest leaves it without an exit block.
    if (isa<ReturnInst>(BB->getTerminator()))
      flushBefore(BB->getTerminator(), Local, S, K);
    for (Instruction &I : *BB)
      if (auto *CI = dyn_cast<CallInst>(&I); CI && Flushes.count(CI))
        flushBefore(CI, Local, S, K);
  }
  return true;
}

/// The registration: struct scalana_work_unit and a constructor that hands
/// it to the runtime when one is loaded.
void addRegistration(Module &M, const Storage &S, ArrayRef<uint64_t> Ids) {
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C);
  PointerType *Ptr = PointerType::getUnqual(C);

  auto *IdsGV = new GlobalVariable(M, ArrayType::get(Type::getInt64Ty(C), Ids.size()), true,
                                   GlobalValue::PrivateLinkage, ConstantDataArray::get(C, Ids),
                                   "__scalana_work.ids");

  // uint64_t *counters(void): the calling thread's array.
  auto *GetTy = FunctionType::get(Ptr, false);
  Function *Get = Function::Create(GetTy, GlobalValue::InternalLinkage, "__scalana_work.counters",
                                   M);
  Get->addFnAttr(Attribute::NoUnwind);
  {
    IRBuilder<> B(BasicBlock::Create(C, "", Get));
    B.CreateRet(B.CreateThreadLocalAddress(S.Counters));
  }

  StructType *UnitTy = StructType::get(C, {I32, I32, Ptr, Ptr});
  Constant *Unit = ConstantStruct::get(
      UnitTy, {ConstantInt::get(I32, SCALANA_WORK_ABI_VERSION), ConstantInt::get(I32, Ids.size()),
               IdsGV, Get});
  auto *UnitGV = new GlobalVariable(M, UnitTy, true, GlobalValue::PrivateLinkage, Unit,
                                    "__scalana_work.unit");

  // A weak reference: a program run without the runtime never calls it.
  auto *RegTy = FunctionType::get(Type::getVoidTy(C), {Ptr}, false);
  Function *Reg = M.getFunction(SCALANA_WORK_REGISTER);
  if (!Reg)
    Reg = Function::Create(RegTy, GlobalValue::ExternalWeakLinkage, SCALANA_WORK_REGISTER, M);
  Function *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                                    GlobalValue::InternalLinkage, "__scalana_work.register", M);
  Ctor->addFnAttr(Attribute::NoUnwind);
  BasicBlock *Entry = BasicBlock::Create(C, "", Ctor);
  BasicBlock *Call = BasicBlock::Create(C, "call", Ctor);
  BasicBlock *Done = BasicBlock::Create(C, "done", Ctor);
  IRBuilder<> B(Entry);
  B.CreateCondBr(B.CreateIsNotNull(Reg), Call, Done);
  B.SetInsertPoint(Call);
  B.CreateCall(RegTy, Reg, {UnitGV});
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, 65535);
}

} // namespace

unsigned addWorkCounters(Module &M, const std::vector<CountedLoop> &Loops,
                         const std::vector<CallInst *> &FlushBefore) {
  if (Loops.empty())
    return 0;
  SmallPtrSet<const CallInst *, 32> Flushes(FlushBefore.begin(), FlushBefore.end());
  std::map<Function *, std::vector<std::pair<const BasicBlock *, unsigned>>> ByFunction;
  for (unsigned K = 0; K < Loops.size(); ++K)
    ByFunction[const_cast<Function *>(Loops[K].Header->getParent())].push_back(
        {Loops[K].Header, K});

  LLVMContext &C = M.getContext();
  Storage S;
  S.Ty = ArrayType::get(Type::getInt64Ty(C), Loops.size());
  S.Counters = new GlobalVariable(M, S.Ty, false, GlobalValue::InternalLinkage,
                                  ConstantAggregateZero::get(S.Ty), "__scalana_work.tls", nullptr,
                                  GlobalValue::GeneralDynamicTLSModel);
  S.Counters->setAlignment(Align(64)); // its own cache lines, apart from the program's TLS

  std::vector<uint64_t> Ids(Loops.size(), 0);
  unsigned Counted = 0;
  for (auto &[F, List] : ByFunction) {
    DominatorTree DT(*F);
    LoopInfo LI(DT);
    SmallPtrSet<const BasicBlock *, 16> Headers;
    for (auto &HK : List)
      Headers.insert(HK.first);
    for (auto &[H, K] : List) {
      // A loop that holds another counted loop is left uncounted: its work
      // is its inner loops' (the analyzer sums a vertex's subtree), and
      // every counter costs the function size that decides whether the
      // inliner takes it (modproc.f90's relax, two nests of two loops, was no
      // longer inlined at -O2 with all four counted).
      Loop *L = LI.getLoopFor(H);
      bool Holds = false;
      if (L && L->getHeader() == H)
        for (Loop *Sub : L->getLoopsInPreorder())
          Holds |= Sub != L && Headers.count(Sub->getHeader());
      // An uncounted slot keeps id 0: the runtime skips it.
      if (!Holds && countLoop(*F, LI, H, K, S, Flushes)) {
        Ids[K] = Loops[K].StableId;
        ++Counted;
      }
    }
  }
  addRegistration(M, S, Ids);
  return Counted;
}

} // namespace scalana
