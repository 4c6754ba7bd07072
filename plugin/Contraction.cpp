//===- Contraction.cpp - Shrink a function's PSG without losing coverage --===//
#include "Contraction.h"

#include "scalana/psg_format.h"

#include <algorithm>

namespace scalana {
namespace {

bool markKept(PsgNode &N) {
  bool Any = false;
  for (auto &C : N.Children)
    Any |= markKept(*C);
  if (N.Kind == PSG_LOOP || N.Kind == PSG_BRANCH || N.Kind == PSG_FUNCTION)
    N.Kept = Any;
  return N.Kept;
}

/// Moves the attribution skeleton of N into Out: its loops (nesting kept, cut
/// at the depth limit like kept loops) and its calls to functions defined in
/// the unit, all flagged ATTRIBUTION_ONLY.  Branches are transparent (their
/// skeleton is lifted); straight-line code and library calls are dropped:
/// their time stays on the enclosing loop or on the folded COMPUTE.  Depth
/// is the number of loops around N.
/// Cond: N lies in an arm of a branch lifted away on the way down (flagged
/// PSG_V_CONDITIONAL, so that the analyzer can tell code every process runs
/// from code only some reach: a serial section from a loop with unequal trip
/// counts).
void skeleton(std::unique_ptr<PsgNode> N, unsigned Depth, unsigned Limit, bool Cut, bool Cond,
              std::vector<std::unique_ptr<PsgNode>> &Out) {
  const unsigned CondFlag = Cond ? PSG_V_CONDITIONAL : 0;
  if (N->Kind == PSG_LOOP) {
    std::vector<std::unique_ptr<PsgNode>> Kids = std::move(N->Children);
    N->Children.clear();
    if (Depth + 1 > Limit) {
      for (auto &K : Kids)
        skeleton(std::move(K), Depth, Limit, true, Cond, Out);
      return;
    }
    for (auto &K : Kids)
      skeleton(std::move(K), Depth + 1, Limit, false, false, N->Children);
    N->Lines.clear();
    N->Flags |= PSG_V_ATTRIBUTION_ONLY | CondFlag | (Cut ? PSG_V_DEPTH_CUT : 0);
    N->Kept = false;
    Out.push_back(std::move(N));
  } else if (N->Kind == PSG_BRANCH) {
    for (auto &K : N->Children)
      skeleton(std::move(K), Depth, Limit, Cut, true, Out);
  } else if ((N->Kind == PSG_CALL || N->Kind == PSG_CALL_RECURSIVE) && N->SkeletonCallee) {
    N->Flags |= PSG_V_ATTRIBUTION_ONLY | CondFlag | (Cut ? PSG_V_DEPTH_CUT : 0);
    N->Kept = false;
    Out.push_back(std::move(N));
  }
}

/// A subtree without MPI becomes one COMPUTE (the backward walk's unit) that
/// keeps its skeleton as children for attribution.
std::unique_ptr<PsgNode> foldToCompute(std::unique_ptr<PsgNode> N, unsigned Depth, unsigned Limit) {
  auto C = std::make_unique<PsgNode>();
  C->Kind = PSG_COMPUTE;
  C->File = N->File;
  C->FirstLine = N->FirstLine;
  C->LastLine = N->LastLine;
  C->Flags = PSG_V_FOLDED | (N->Flags & PSG_V_DEPTH_CUT);
  skeleton(std::move(N), Depth, Limit, false, false, C->Children);
  return C;
}

bool within(unsigned L, const PsgNode *S) {
  return S && S->Kind != PSG_COMPUTE && S->FirstLine && L >= S->FirstLine && L <= S->LastLine;
}

void transform(PsgNode &N, unsigned Depth, unsigned Limit) {
  std::vector<std::unique_ptr<PsgNode>> Out;
  for (auto &C : N.Children) {
    if (!C->Kept) {
      if (C->Kind == PSG_COMPUTE) {
        if (C->HasWork) // a run of straight-line code
          Out.push_back(std::move(C));
      } else {
        Out.push_back(foldToCompute(std::move(C), Depth, Limit));
      }
    } else if (C->Kind == PSG_LOOP && Depth + 1 > Limit) {
      transform(*C, Depth, Limit);
      for (auto &G : C->Children) {
        G->Flags |= PSG_V_DEPTH_CUT;
        Out.push_back(std::move(G));
      }
    } else {
      if (C->Kind == PSG_LOOP || C->Kind == PSG_BRANCH)
        transform(*C, Depth + (C->Kind == PSG_LOOP), Limit);
      Out.push_back(std::move(C));
    }
  }

  // Straight-line code on a line already covered by the parent's test or by
  // the nearest kept sibling adds no coverage: forget those lines, and the
  // run when nothing is left.
  {
    std::vector<bool> Drop(Out.size(), false);
    for (size_t I = 0; I < Out.size(); ++I) {
      PsgNode &C = *Out[I];
      if (C.Kind != PSG_COMPUTE || (C.Flags & PSG_V_FOLDED))
        continue;
      const PsgNode *Prev = nullptr, *Next = nullptr;
      for (size_t J = I; J-- > 0;)
        if (Out[J]->Kind != PSG_COMPUTE) {
          Prev = Out[J].get();
          break;
        }
      for (size_t J = I + 1; J < Out.size(); ++J)
        if (Out[J]->Kind != PSG_COMPUTE) {
          Next = Out[J].get();
          break;
        }
      std::vector<unsigned> Left;
      for (unsigned L : C.Lines)
        if (L != N.HeadLine && !within(L, Prev) && !within(L, Next))
          Left.push_back(L);
      C.Lines = Left;
      C.FirstLine = C.LastLine = 0;
      for (unsigned L : Left)
        C.cover(L);
      Drop[I] = Left.empty();
    }
    std::vector<std::unique_ptr<PsgNode>> Kept;
    for (size_t I = 0; I < Out.size(); ++I)
      if (!Drop[I])
        Kept.push_back(std::move(Out[I]));
    Out = std::move(Kept);
  }

  // Merge adjacent COMPUTEs of one file.
  std::vector<std::unique_ptr<PsgNode>> Merged;
  for (auto &C : Out) {
    PsgNode *P = Merged.empty() ? nullptr : Merged.back().get();
    if (P && P->Kind == PSG_COMPUTE && C->Kind == PSG_COMPUTE &&
        (P->File == C->File || !C->FirstLine)) {
      P->Flags |= C->Flags;
      P->cover(C->FirstLine);
      P->cover(C->LastLine);
      P->Lines.insert(P->Lines.end(), C->Lines.begin(), C->Lines.end());
      for (auto &K : C->Children)
        P->Children.push_back(std::move(K));
      continue;
    }
    if (P && P->Kind == PSG_COMPUTE && C->Kind == PSG_COMPUTE && !P->FirstLine) {
      C->Flags |= P->Flags;
      C->Lines.insert(C->Lines.end(), P->Lines.begin(), P->Lines.end());
      P->Children.insert(P->Children.end(), std::make_move_iterator(C->Children.begin()),
                         std::make_move_iterator(C->Children.end()));
      C->Children = std::move(P->Children);
      Merged.back() = std::move(C);
      continue;
    }
    Merged.push_back(std::move(C));
  }

  N.Children = std::move(Merged);

  // `if (a && b)`: one decision spread over two conditional blocks.
  if (N.Kind == PSG_BRANCH && N.Children.size() == 1 && N.Children[0]->Kind == PSG_BRANCH &&
      N.Children[0]->HeadLine == N.HeadLine) {
    std::unique_ptr<PsgNode> Inner = std::move(N.Children[0]);
    N.Children = std::move(Inner->Children);
  }
}

} // namespace

void contractFunction(PsgNode &Fn, unsigned LoopDepthLimit) {
  markKept(Fn);
  transform(Fn, 0, LoopDepthLimit);
  // Nothing but straight-line code: the FUNCTION vertex alone says it all.
  bool OnlyCompute = std::all_of(Fn.Children.begin(), Fn.Children.end(), [](const auto &C) {
    return C->Kind == PSG_COMPUTE && C->Children.empty();
  });
  if (OnlyCompute)
    Fn.Children.clear();
}

} // namespace scalana
