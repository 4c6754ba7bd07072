//===- WorkCounters.h - Count loop iterations per thread --------*- C++ -*-===//
// The work measure of issue-free analysis: how many times each LOOP vertex's
// header ran, per thread, so that the analyzer can tell processes that do
// more work from processes that run the same work more slowly (another job
// on their core, a slower node).  The ABI with the runtime is
// include/scalana/work_counters.h; the rule and its measured cost are in
// docs/plugin.md ("Work counters").
//===----------------------------------------------------------------------===//
#ifndef SCALANA_PLUGIN_WORKCOUNTERS_H
#define SCALANA_PLUGIN_WORKCOUNTERS_H

#include "PsgEmitter.h"

#include <vector>

namespace llvm {
class CallInst;
class Module;
} // namespace llvm

namespace scalana {

/// Whether counters are wanted: `-mllvm -scalana-work-counters=0` or
/// SCALANA_WORK_COUNTERS=0 in the compiler's environment turns them off
/// (the option wins); on by default.
bool workCountersEnabled();

/// Instruments M: one thread-local counter per loop of Loops (headers of
/// M's functions, as the analysis saw them), flushed where its loop nest is
/// left and before each call of FlushBefore inside the nest (the calls that
/// can reach MPI: the profile may be written there), and the registration of
/// the unit with the runtime.  Does nothing for an empty list.  Returns the
/// number of loops instrumented.
unsigned addWorkCounters(llvm::Module &M, const std::vector<CountedLoop> &Loops,
                         const std::vector<llvm::CallInst *> &FlushBefore);

} // namespace scalana
#endif
