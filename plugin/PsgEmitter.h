//===- PsgEmitter.h - Embed a unit's PSG in its object file -----*- C++ -*-===//
// Serialises the graph with the C builder of formats/psg_io.c and appends it
// to the module's inline assembly, in the non-allocated section
// SCALANA_PSG_SECTION (include/scalana/psg_format.h): it survives
// --gc-sections and strip and costs nothing at run time.  The functions of a
// COMDAT group go into a unit of their own in a section group keyed by the
// COMDAT, so the linker keeps exactly one copy.
//===----------------------------------------------------------------------===//
#ifndef SCALANA_PLUGIN_PSGEMITTER_H
#define SCALANA_PLUGIN_PSGEMITTER_H

#include "PsgTree.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class Module;
} // namespace llvm

namespace scalana {

/// One serialised unit and the COMDAT it belongs to ("" for the unit's own).
struct PsgBlob {
  std::string ComdatKey;
  std::vector<unsigned char> Bytes;
};

/// A LOOP vertex as written: its IR header and its stable id (the key of
/// its work counter, WorkCounters.h).
struct CountedLoop {
  const llvm::BasicBlock *Header;
  uint64_t StableId;
};

/// Serialises G: the unit's own functions first, then one unit per COMDAT
/// key in order of first appearance.  Returns false (and reports why on
/// stderr) when the builder fails for lack of memory.  When Loops is given,
/// every LOOP vertex with an IR header is appended to it.
bool serialisePsg(const PsgModuleGraph &G, std::vector<PsgBlob> &Out,
                  std::vector<CountedLoop> *Loops = nullptr);

/// Appends the serialised units to M's module-level inline assembly.
/// Returns false when serialisation failed (nothing is embedded then).
/// Loops: as for serialisePsg.
bool embedPsg(llvm::Module &M, const PsgModuleGraph &G,
              std::vector<CountedLoop> *Loops = nullptr);

} // namespace scalana
#endif
