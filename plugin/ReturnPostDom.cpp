//===- ReturnPostDom.cpp - Post-dominance towards the returns ------------===//
// Cooper-Harvey-Kennedy on the reverse CFG, rooted at a virtual exit joined
// to the `ret` blocks (see ReturnPostDom.h).
//===----------------------------------------------------------------------===//
#include "ReturnPostDom.h"

#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace scalana {

ReturnPostDominators::ReturnPostDominators(const std::vector<BasicBlock *> &Blocks,
                                           const DenseMap<const BasicBlock *, unsigned> &Idx,
                                           bool ReturnsOnly)
    : N(Blocks.size()), IPDom(N + 1, Undef), Pre(N + 1, 0), Post(N + 1, 0) {
  const unsigned Exit = N;
  std::vector<std::vector<unsigned>> Succ(N + 1), Pred(N + 1);
  bool AnyRet = false;
  for (unsigned B = 0; B < N && ReturnsOnly; ++B)
    AnyRet |= isa<ReturnInst>(Blocks[B]->getTerminator());
  for (unsigned B = 0; B < N; ++B) {
    const BasicBlock *BB = Blocks[B];
    for (const BasicBlock *S : successors(BB))
      if (Idx.count(S)) {
        Succ[B].push_back(Idx.lookup(S));
        Pred[Idx.lookup(S)].push_back(B);
      }
    if (AnyRet ? isa<ReturnInst>(BB->getTerminator()) : succ_empty(BB)) {
      Succ[B].push_back(Exit);
      Pred[Exit].push_back(B);
    }
  }
  // Post-order of the reverse graph from the exit (iterative DFS).
  std::vector<unsigned> Order, Num(N + 1, Undef);
  std::vector<std::pair<unsigned, unsigned>> Stack{{Exit, 0}};
  std::vector<bool> Seen(N + 1, false);
  Seen[Exit] = true;
  while (!Stack.empty()) {
    auto &[V, I] = Stack.back();
    if (I < Pred[V].size()) {
      unsigned W = Pred[V][I++];
      if (!Seen[W]) {
        Seen[W] = true;
        Stack.push_back({W, 0});
      }
      continue;
    }
    Num[V] = Order.size();
    Order.push_back(V);
    Stack.pop_back();
  }
  IPDom[Exit] = Exit;
  auto Intersect = [&](unsigned A, unsigned B) {
    while (A != B) {
      while (Num[A] < Num[B])
        A = IPDom[A];
      while (Num[B] < Num[A])
        B = IPDom[B];
    }
    return A;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t K = Order.size(); K-- > 0;) {
      unsigned V = Order[K];
      if (V == Exit)
        continue;
      unsigned New = Undef;
      for (unsigned S : Succ[V])
        if (IPDom[S] != Undef)
          New = New == Undef ? S : Intersect(S, New);
      if (New != Undef && IPDom[V] != New) {
        IPDom[V] = New;
        Changed = true;
      }
    }
  }
  // Pre/post numbers of the tree: X post-dominates B iff B is in X's subtree.
  std::vector<std::vector<unsigned>> Kids(N + 1);
  for (unsigned V = 0; V < N; ++V)
    if (IPDom[V] != Undef)
      Kids[IPDom[V]].push_back(V);
  unsigned Clock = 1;
  std::vector<std::pair<unsigned, unsigned>> Walk{{Exit, 0}};
  Pre[Exit] = Clock++;
  while (!Walk.empty()) {
    auto &[V, I] = Walk.back();
    if (I < Kids[V].size()) {
      unsigned W = Kids[V][I++];
      Pre[W] = Clock++;
      Walk.push_back({W, 0});
      continue;
    }
    Post[V] = Clock++;
    Walk.pop_back();
  }
}

} // namespace scalana
