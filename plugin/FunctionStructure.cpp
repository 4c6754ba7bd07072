//===- FunctionStructure.cpp - Raw structure tree of one function ---------===//
// Containers are natural loops and conditional regions.  The region of a
// conditional block B (two or more successors inside B's loop, not counting
// `continue` edges to the loop header) is every block of that loop that B
// dominates, that does not post-dominate B (post-dominance towards the
// returns: exit() paths do not count) and that does not follow the decision
// (its join, or the code after an early return).  Each block belongs to the
// smallest container holding it; children are ordered by (block,
// instruction) in layout order.  See docs/plugin.md.
//===----------------------------------------------------------------------===//
#include "FunctionStructure.h"
#include "ReturnPostDom.h"

#include "scalana/psg_format.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace scalana {

std::string sourcePath(StringRef Dir, StringRef Name) {
  // Joined to the directory and folded lexically ("./cg_solve.hpp" from
  // `-I.`, "../include" of the compiler's headers), as the analyzer's
  // symbolizer folds DWARF names: both sides then name the same file.
  SmallString<256> Full;
  if (sys::path::is_absolute(Name) || Dir.empty()) {
    Full = Name;
  } else {
    Full = Dir;
    sys::path::append(Full, Name);
  }
  sys::path::remove_dots(Full, /*remove_dot_dot=*/true);
  return std::string(Full);
}

SourcePos sourcePos(const DILocation *DL, StringRef FallbackFile) {
  SourcePos P;
  if (!DL) {
    P.File = FallbackFile.str();
    return P;
  }
  while (const DILocation *IA = DL->getInlinedAt())
    DL = IA;
  P.File = DL->getFilename().empty() ? FallbackFile.str()
                                     : sourcePath(DL->getDirectory(), DL->getFilename());
  P.Line = DL->getLine();
  P.Column = DL->getColumn();
  return P;
}

namespace {

struct Container {
  bool IsLoop = false;
  unsigned HeadIdx = 0;  // loop header / conditional block
  unsigned FirstIdx = 0; // smallest block index it holds (loops)
  std::vector<unsigned> Blocks;
  std::unique_ptr<PsgNode> Node;
  unsigned Rank = 0;
};

struct Item {
  uint64_t Pos;
  std::unique_ptr<PsgNode> Node; // leaf or raw COMPUTE
  int Cont = -1;                 // or a container
};

uint64_t pos(unsigned Block, unsigned Inst) { return (uint64_t)Block << 32 | Inst; }

/// Sets Lines/FirstLine/LastLine of every node bottom-up; lines of other
/// files than the node's own are not counted.
void computeRanges(PsgNode &N) {
  for (auto &C : N.Children) {
    computeRanges(*C);
    if (C->File == N.File) {
      N.cover(C->FirstLine);
      N.cover(C->LastLine);
    }
  }
  N.cover(N.HeadLine);
  for (unsigned L : N.Lines)
    N.cover(L);
}

} // namespace

namespace {

/// The raw tree of one function, built in the steps of its sections: the
/// containers (loops, then conditional regions), their nesting, the leaves
/// and runs of each block, and the tree in program order.
class StructureBuilder {
public:
  StructureBuilder(Function &F, StringRef FallbackFile, CallLeafFn MakeLeaf)
      : F(F), FnFile(functionFile(F, FallbackFile)), MakeLeaf(MakeLeaf), DT(F), LI(DT),
        Blocks(reachableBlocks()), NB(Blocks.size()), PDTRet(Blocks, Idx, true),
        PDTAny(Blocks, Idx, false) {}

  std::unique_ptr<PsgNode> build() {
    addLoops();
    findExitBound();
    for (unsigned B = 0; B < NB; ++B)
      addConditionalRegion(B);
    nestContainers();
    makeFunctionNode();
    for (unsigned B = 0; B < NB; ++B)
      placeBlock(B);
    assemble();
    computeRanges(*Fn);
    return std::move(Fn);
  }

private:
  static constexpr int Root = -1;

  /// Positions without a file fall back to the function's own file.
  static std::string functionFile(Function &F, StringRef FallbackFile) {
    DISubprogram *SP = F.getSubprogram();
    if (!SP || SP->getFilename().empty())
      return FallbackFile.str();
    return sourcePath(SP->getDirectory(), SP->getFilename());
  }

  /// Reachable blocks in layout order (Idx: their positions).
  std::vector<BasicBlock *> reachableBlocks() {
    std::vector<BasicBlock *> V;
    for (BasicBlock &BB : F)
      if (DT.isReachableFromEntry(&BB)) {
        Idx[&BB] = V.size();
        V.push_back(&BB);
      }
    return V;
  }

  /// Towards the returns; for code that never returns, towards any exit.
  const ReturnPostDominators &PDTFor(unsigned B) const { return PDTRet.knows(B) ? PDTRet : PDTAny; }

  SourcePos TermPos(const BasicBlock *BB) const {
    return sourcePos(BB->getTerminator()->getDebugLoc().get(), FnFile);
  }

  /// One container per natural loop, headed by its header's terminator.
  void addLoops() {
    for (Loop *L : LI.getLoopsInPreorder()) {
      Container C;
      C.IsLoop = true;
      C.HeadIdx = Idx.lookup(L->getHeader());
      C.FirstIdx = C.HeadIdx;
      for (BasicBlock *BB : L->blocks()) {
        auto It = Idx.find(BB);
        if (It == Idx.end())
          continue;
        C.Blocks.push_back(It->second);
        C.FirstIdx = std::min(C.FirstIdx, It->second);
      }
      C.Node = std::make_unique<PsgNode>();
      C.Node->Kind = PSG_LOOP;
      C.Node->Absorbs = true;
      C.Node->Header = L->getHeader();
      SourcePos P = TermPos(L->getHeader());
      C.Node->File = P.File;
      C.Node->HeadLine = P.Line;
      Conts.push_back(std::move(C));
    }
  }

  /// Exit-bound blocks: from them every path reaches the function's exit with
  /// no work on the way (the shared `return` block at -O0, clang's cleanup
  /// blocks at -O2).
  void findExitBound() {
    ExitBound.assign(NB, false);
    auto Trivial = [](const BasicBlock &BB) {
      for (const Instruction &I : BB) {
        if (I.isTerminator() || isa<LoadInst>(I) || isa<StoreInst>(I) || isa<CastInst>(I) ||
            isa<GetElementPtrInst>(I) || isa<PHINode>(I) || isa<AllocaInst>(I))
          continue;
        if (auto *II = dyn_cast<IntrinsicInst>(&I))
          if (II->isAssumeLikeIntrinsic())
            continue;
        return false;
      }
      return true;
    };
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (unsigned B = NB; B-- > 0;) {
        if (ExitBound[B])
          continue;
        const BasicBlock *BB = Blocks[B];
        bool Bound = Trivial(*BB);
        for (const BasicBlock *S : successors(BB))
          Bound = Bound && Idx.count(S) && ExitBound[Idx.lookup(S)];
        if (Bound)
          ExitBound[B] = Changed = true;
      }
    }
  }

  /// The region of the decision ending block B, when B ends in one (see the
  /// file's head).
  void addConditionalRegion(unsigned B) {
    BasicBlock *BB = Blocks[B];
    Instruction *T = BB->getTerminator();
    if (!(isa<BranchInst>(T) && cast<BranchInst>(T)->isConditional()) && !isa<SwitchInst>(T))
      return;
    // A decision without a source location in a function that has them is
    // the compiler's (the cleanup switch clang adds at -O1 and above).
    if (!T->getDebugLoc() && F.getSubprogram())
      return;
    Loop *L = LI.getLoopFor(BB);
    SmallPtrSet<BasicBlock *, 4> Arms;
    for (BasicBlock *S : successors(BB))
      if (!L || (L->contains(S) && S != L->getHeader()))
        Arms.insert(S);
    if (Arms.size() < 2)
      return;
    SmallVector<BasicBlock *, 4> Continuing, LeavingArms;
    splitArms(BB, L, Arms, Continuing, LeavingArms);
    const ReturnPostDominators &PDT = PDTFor(B);
    BasicBlock *Join = joinOf(BB, PDT, Continuing, LeavingArms);
    Container C = regionOf(B, BB, L, PDT, Join);
    std::sort(C.Blocks.begin(), C.Blocks.end());
    if (C.Blocks.empty())
      return;
    C.Node = std::make_unique<PsgNode>();
    C.Node->Kind = PSG_BRANCH;
    C.Node->Absorbs = true;
    SourcePos P = TermPos(BB);
    C.Node->File = P.File;
    C.Node->HeadLine = P.Line;
    Conts.push_back(std::move(C));
  }

  /// The arms of the decision ending BB (inside loop L, when any) that only
  /// leave the function, and those that continue.
  void splitArms(BasicBlock *BB, Loop *L, const SmallPtrSetImpl<BasicBlock *> &Arms,
                 SmallVectorImpl<BasicBlock *> &Continuing,
                 SmallVectorImpl<BasicBlock *> &LeavingArms) {
    // `if (c) { ...; return; }` and `if (c) { ...; exit(1); }`: an arm that
    // only leaves the function does not hold the code after the `if`,
    // although that code no longer post-dominates the decision.  An arm
    // leaves when only B enters it and everything it reaches is its own or
    // exit-bound.  The code after starts where the other arms join; when
    // every arm "leaves" (the code after is itself an arm that ends in the
    // function's return), lexical scopes tell which arm it is.  (An `else`
    // after a returning arm may go with the code after: a sibling, covered.)
    for (BasicBlock *S : Arms) {
      // (A walk that goes on long is the rest of a big function: such an
      // arm continues; the region comes out the same, see below.)
      bool Leaves = S->getSinglePredecessor() == BB;
      SmallPtrSet<BasicBlock *, 16> Seen;
      SmallVector<BasicBlock *, 16> Work{S};
      while (!Work.empty() && Leaves) {
        if (Seen.size() > 512) {
          Leaves = false;
          break;
        }
        BasicBlock *X = Work.pop_back_val();
        if (!Seen.insert(X).second || !Idx.count(X) || ExitBound[Idx.lookup(X)])
          continue;
        if (!DT.dominates(S, X) || (L && !L->contains(X)))
          Leaves = false;
        for (BasicBlock *Y : successors(X))
          Work.push_back(Y);
      }
      (Leaves ? LeavingArms : Continuing).push_back(S);
    }
  }

  /// Where the code after the decision ending BB starts when an arm leaves
  /// the function early; null when no arm does (the join is then BB's
  /// immediate post-dominator).
  BasicBlock *joinOf(BasicBlock *BB, const ReturnPostDominators &PDT,
                     ArrayRef<BasicBlock *> Continuing, ArrayRef<BasicBlock *> LeavingArms) {
    BasicBlock *Join = nullptr;
    if (!LeavingArms.empty() && !Continuing.empty()) {
      unsigned J = Idx.lookup(Continuing[0]);
      for (BasicBlock *S : Continuing)
        if (J != UINT32_MAX)
          J = PDT.nearestCommon(J, Idx.lookup(S));
      Join = J == UINT32_MAX ? nullptr : Blocks[J];
    } else if (LeavingArms.size() >= 2) {
      // Every arm ends in the function's return: `if (c) {...; return;} rest`
      // and `if (c) {...} else {...}` at the end of a function look alike.
      // The lexical scopes tell them apart: arms of the `if` sit in the
      // scope of its condition (or one nested in it), the code after it
      // does not.  One arm outside: that arm is the code after the `if`.
      const DIScope *Cond = nullptr;
      for (const Instruction &I : *BB)
        if (!I.isTerminator() && I.getDebugLoc())
          Cond = I.getDebugLoc()->getScope();
      auto Inside = [&](const BasicBlock *S) {
        for (const Instruction &I : *S)
          if (I.getDebugLoc()) {
            for (const DIScope *P = I.getDebugLoc()->getScope(); P;
                 P = isa<DILexicalBlockBase>(P) ? cast<DILexicalBlockBase>(P)->getScope() : nullptr)
              if (P == Cond)
                return true;
            return false;
          }
        return true;
      };
      if (Cond) {
        SmallVector<BasicBlock *, 2> Outside;
        for (BasicBlock *S : LeavingArms)
          if (!Inside(S))
            Outside.push_back(S);
        if (Outside.size() == 1)
          Join = Outside[0];
      }
    }
    return Join;
  }

  /// The blocks of B's region: B's dominator subtree within its loop, less
  /// what post-dominates B and what follows the decision.
  Container regionOf(unsigned B, BasicBlock *BB, Loop *L, const ReturnPostDominators &PDT,
                     BasicBlock *Join) {
    unsigned AfterIdx = PDT.ipdom(B);
    BasicBlock *After = AfterIdx == UINT32_MAX ? nullptr : Blocks[AfterIdx];
    Container C;
    C.HeadIdx = C.FirstIdx = B;
    // Walk B's dominator subtree; what the join (B's immediate
    // post-dominator) or the code after an early return dominates is after
    // the decision, even where a later early return keeps it from
    // post-dominating B: prune those subtrees.
    SmallVector<DomTreeNode *, 32> Walk{DT.getNode(BB)};
    while (!Walk.empty()) {
      DomTreeNode *DN = Walk.pop_back_val();
      BasicBlock *X = DN->getBlock();
      if (X == Join || X == After)
        continue;
      for (DomTreeNode *Kid : DN->children())
        Walk.push_back(Kid);
      if (X == BB || PDT.dominates(Idx.lookup(X), B) || (L && !L->contains(X)))
        continue;
      C.Blocks.push_back(Idx.lookup(X));
    }
    return C;
  }

  /// Smallest first; a loop is inside a region of the same size.  Each
  /// container goes in the item list of its parent.
  void nestContainers() {
    std::vector<unsigned> Order(Conts.size());
    for (unsigned I = 0; I < Order.size(); ++I)
      Order[I] = I;
    std::sort(Order.begin(), Order.end(), [&](unsigned A, unsigned B) {
      const Container &X = Conts[A], &Y = Conts[B];
      if (X.Blocks.size() != Y.Blocks.size())
        return X.Blocks.size() < Y.Blocks.size();
      if (X.IsLoop != Y.IsLoop)
        return X.IsLoop;
      return X.HeadIdx < Y.HeadIdx;
    });
    In.assign(NB, {});
    for (unsigned R = 0; R < Order.size(); ++R) {
      Conts[Order[R]].Rank = R;
      for (unsigned B : Conts[Order[R]].Blocks)
        In[B].push_back(Order[R]);
    }

    Items.resize(Conts.size() + 1);
    for (unsigned C = 0; C < Conts.size(); ++C) {
      Item It;
      It.Pos = Conts[C].IsLoop ? pos(Conts[C].FirstIdx, 0) : pos(Conts[C].HeadIdx, UINT32_MAX);
      It.Cont = C;
      Slot(ParentOf(C)).push_back(std::move(It));
    }
  }

  /// The container owning block B: the smallest holding it.
  int Owner(unsigned B) const { return In[B].empty() ? Root : (int)In[B][0]; }
  /// The parent of a container: the smallest larger container holding its head.
  int ParentOf(unsigned C) const {
    for (unsigned D : In[Conts[C].HeadIdx])
      if (Conts[D].Rank > Conts[C].Rank)
        return D;
    return Root;
  }
  /// The items of container C (Root: the function).
  std::vector<Item> &Slot(int C) { return C == Root ? Items.back() : Items[C]; }
  PsgNode *NodeOf(int C) { return C == Root ? Fn.get() : ContNode[C]; }
  PsgNode *NodeOfBlock(unsigned B) { return NodeOf(Owner(B)); }

  void makeFunctionNode() {
    Fn = std::make_unique<PsgNode>();
    Fn->Kind = PSG_FUNCTION;
    Fn->File = FnFile;
    if (DISubprogram *SP = F.getSubprogram())
      Fn->HeadLine = SP->getLine();
    ContNode.resize(Conts.size());
    for (unsigned C = 0; C < Conts.size(); ++C)
      ContNode[C] = Conts[C].Node.get();
  }

  /// Block B's call leaves and runs of straight-line code, in its owner's items.
  void placeBlock(unsigned B) {
    std::vector<Item> &S = Slot(Owner(B));
    PsgNode *Run = nullptr; // current run of straight-line code in this block
    unsigned I = 0;
    for (Instruction &Inst : *Blocks[B]) {
      ++I;
      // Markers (debug, lifetime, assume, ...) are not work and their lines
      // differ between -O0 and -O2.
      if (auto *II = dyn_cast<IntrinsicInst>(&Inst))
        if (II->isAssumeLikeIntrinsic())
          continue;
      SourcePos P = sourcePos(Inst.getDebugLoc().get(), FnFile);
      if (auto *CB = dyn_cast<CallBase>(&Inst)) {
        if (std::unique_ptr<PsgNode> Leaf = MakeLeaf(*CB)) {
          Leaf->File = P.File;
          Leaf->FirstLine = Leaf->LastLine = P.Line;
          Leaf->Column = P.Column;
          S.push_back({pos(B, I), std::move(Leaf), -1});
          Run = nullptr;
          continue;
        }
      }
      if (Inst.isTerminator()) {
        // Control flow is not work: its line only widens the owner's range.
        if (P.Line && P.File == NodeOfBlock(B)->File)
          NodeOfBlock(B)->Lines.push_back(P.Line);
        Run = nullptr;
        continue;
      }
      if (!Run) {
        auto N = std::make_unique<PsgNode>();
        N->Kind = PSG_COMPUTE;
        Run = N.get();
        S.push_back({pos(B, I), std::move(N), -1});
      }
      // Loads, stores, address arithmetic and casts are data movement (at -O0
      // `return 0;` is a store, at -O2 clang adds a reload on the closing
      // brace): they widen the owner's range but give a COMPUTE no line.
      if (isa<LoadInst>(Inst) || isa<StoreInst>(Inst) || isa<AllocaInst>(Inst) ||
          isa<CastInst>(Inst) || isa<GetElementPtrInst>(Inst) || isa<PHINode>(Inst) ||
          isa<FreezeInst>(Inst)) {
        if (P.Line && P.File == NodeOfBlock(B)->File)
          NodeOfBlock(B)->Lines.push_back(P.Line);
        continue;
      }
      Run->HasWork = true;
      if (P.Line) {
        if (Run->Lines.empty())
          Run->File = P.File;
        if (P.File == Run->File)
          Run->Lines.push_back(P.Line);
      }
    }
  }

  /// Children in program order: each slot's items sorted by position.
  void assemble() {
    for (int C = -1; C < (int)Conts.size(); ++C) {
      std::vector<Item> &S = Slot(C);
      // Positions are unique within a slot (instructions count from 1, loops
      // take 0, decisions the end of their block).
      std::sort(S.begin(), S.end(), [](const Item &A, const Item &B) { return A.Pos < B.Pos; });
      PsgNode *P = NodeOf(C);
      for (Item &It : S) {
        std::unique_ptr<PsgNode> N =
            It.Cont >= 0 ? std::move(Conts[It.Cont].Node) : std::move(It.Node);
        if (N->Kind == PSG_COMPUTE) {
          std::sort(N->Lines.begin(), N->Lines.end());
          N->Lines.erase(std::unique(N->Lines.begin(), N->Lines.end()), N->Lines.end());
        }
        P->Children.push_back(std::move(N));
      }
    }
  }

  Function &F;
  const std::string FnFile;
  CallLeafFn MakeLeaf;
  DominatorTree DT;
  LoopInfo LI;
  DenseMap<const BasicBlock *, unsigned> Idx;
  std::vector<BasicBlock *> Blocks;
  const unsigned NB;
  ReturnPostDominators PDTRet, PDTAny;
  std::vector<Container> Conts;
  std::vector<bool> ExitBound;
  std::vector<SmallVector<unsigned, 4>> In; // containers holding a block, smallest first
  std::vector<std::vector<Item>> Items;     // per container; last slot: the function
  std::unique_ptr<PsgNode> Fn;
  std::vector<PsgNode *> ContNode;
};

} // namespace

std::unique_ptr<PsgNode> buildFunctionStructure(Function &F, StringRef FallbackFile,
                                                CallLeafFn MakeLeaf) {
  return StructureBuilder(F, FallbackFile, MakeLeaf).build();
}

} // namespace scalana
