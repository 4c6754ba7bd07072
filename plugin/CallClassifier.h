//===- CallClassifier.h - What a call site means to the PSG ----*- C++ -*-===//
// Sorts a call into MPI / GPU / library-that-cannot-reach-MPI / other by the
// callee's name, and turns linkage names into display names.  Used by
// PsgAnalysis.cpp; no pass of its own.
//===----------------------------------------------------------------------===//
#ifndef SCALANA_PLUGIN_CALLCLASSIFIER_H
#define SCALANA_PLUGIN_CALLCLASSIFIER_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace llvm {
class Function;
class TargetLibraryInfo;
} // namespace llvm

namespace scalana {

/// MPI operation code (scalana_mpi_op) of a callee name in any C, PMPI or
/// Fortran spelling; 0 when the name is not an MPI routine ScalAna knows.
unsigned mpiOpOf(llvm::StringRef Name);

/// GPU operation (enum psg_gpu_op) of a callee name, or -1 when the name is
/// not a CUDA launch/copy/set/synchronise/allocation call (the table
/// include/scalana/gpu_calls.def, through scalana_gpu_psg_op).  Launches through
/// `<<<>>>` call clang's `__device_stub__<kernel>`, recognised as launches.
int gpuOpOf(llvm::StringRef Name);

/// True when a call to the declaration F can never reach MPI or GPU work:
/// intrinsics, C/C++/Fortran runtime routines (TargetLibraryInfo and a short
/// prefix list), MPI routines the table does not know.  Anything else declared
/// outside the unit is assumed to possibly reach MPI (conservative: the call
/// stays in the graph and is never a tail call).
bool cannotReachMpi(const llvm::Function &F, const llvm::TargetLibraryInfo &TLI);

/// Display name of a function: Itanium names demangled, flang's `_QP`/`_QM`
/// names turned into `name` / `module::name`, `_QQmain` into the program's
/// name when known; otherwise the name itself.  (A lambda's call operator
/// reads "lambda at FILE:LINE in OUTER" through displayName(const Function &).)
std::string displayName(llvm::StringRef Linkage, llvm::StringRef DebugName);

/// Display name of a defined or declared function, from its linkage name and
/// debug information.  flang names the main program `_QQmain` in both the
/// symbol and DW_AT_name, so the program's own name is read from its
/// `program NAME` statement (the subprogram's line in its source file):
/// "program NAME"; "main program" when the file or statement is not there.
std::string displayName(const llvm::Function &F);

/// A lambda's call operator as a person reads it: "lambda at FILE:LINE in
/// OUTER" for a demangled "OUTER::$_N::operator()(...)" (clang's name of a
/// closure with internal linkage), "OUTER::{lambda(...)#N}::operator()(...)"
/// or "OUTER::'lambda'(...)::operator()(...)" (LLVM's demangler);
/// FILE:LINE is the lambda's declaration (its DISubprogram), OUTER the
/// enclosing function without return type and arguments.  "" otherwise.
std::string lambdaName(llvm::StringRef Demangled, llvm::StringRef File, unsigned Line);

} // namespace scalana
#endif
