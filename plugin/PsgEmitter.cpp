//===- PsgEmitter.cpp - Embed a unit's PSG in its object file -------------===//
// Stable ids hash (function, kind, file, line, column, ordinal among equal
// keys in the function); functions with internal linkage add the unit name,
// so that two static functions of one name in two units differ, while a
// COMDAT function gets the same ids in every unit that defines it.
//===----------------------------------------------------------------------===//
#include "PsgEmitter.h"

#include "scalana/psg_format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>
#include <tuple>

using namespace llvm;

namespace scalana {
namespace {

uint64_t mix(uint64_t H, const void *P, size_t N) { return psg_fnv1a64(P, N, H); }
uint64_t mix(uint64_t H, StringRef S) {
  H = psg_fnv1a64(S.data(), S.size(), H);
  return psg_fnv1a64("\0", 1, H);
}
uint64_t mix(uint64_t H, uint32_t V) { return mix(H, &V, sizeof V); }

struct FunctionWriter {
  psg_builder *B;
  const PsgFunction &F;
  uint64_t Seed;
  std::map<std::tuple<unsigned, std::string, unsigned, unsigned>, unsigned> Seen;
  std::vector<CountedLoop> *Loops;
  bool Failed = false;

  void add(const PsgNode &N, uint32_t Parent, uint32_t LoopDepth) {
    unsigned &Ord = Seen[{N.Kind, N.File, N.FirstLine, N.Column}];
    uint64_t H = mix(Seed, F.Linkage);
    H = mix(H, (uint32_t)N.Kind);
    H = mix(H, N.File);
    H = mix(H, (uint32_t)N.FirstLine);
    H = mix(H, (uint32_t)N.Column);
    H = mix(H, (uint32_t)Ord++);

    psg_vertex V{};
    V.stable_id = H;
    V.parent = Parent;
    V.kind = N.Kind;
    V.flags = N.Flags;
    if (N.Kept && N.Kind != PSG_FUNCTION)
      V.flags |= PSG_V_REACHES_MPI;
    V.op = N.Op;
    V.loop_depth = LoopDepth;
    V.file = N.File.c_str();
    V.first_line = N.FirstLine;
    V.last_line = N.LastLine;
    V.column = N.Column;
    V.function = F.Linkage.c_str();
    V.display_name = N.Kind == PSG_FUNCTION ? F.Display.c_str() : N.Display.c_str();
    V.callee = N.Callee.c_str();
    uint32_t Me = psg_builder_add(B, &V);
    if (Me == UINT32_MAX) {
      Failed = true;
      return;
    }
    if (Loops && N.Kind == PSG_LOOP && N.Header)
      Loops->push_back({N.Header, H});
    uint32_t ChildDepth = LoopDepth + (N.Kind == PSG_LOOP);
    for (const auto &C : N.Children)
      add(*C, Me, ChildDepth);
  }
};

} // namespace

bool serialisePsg(const PsgModuleGraph &G, std::vector<PsgBlob> &Out,
                  std::vector<CountedLoop> *Loops) {
  uint64_t UnitSeed = mix(PSG_FNV_SEED, G.UnitName);
  std::vector<std::string> Keys{""};
  std::map<std::string, std::vector<const PsgFunction *>> ByKey;
  for (const PsgFunction &F : G.Functions) {
    auto &V = ByKey[F.ComdatKey];
    if (V.empty() && !F.ComdatKey.empty())
      Keys.push_back(F.ComdatKey);
    V.push_back(&F);
  }
  for (const std::string &K : Keys) {
    psg_builder *B = psg_builder_new(G.UnitName.c_str(), G.Producer.c_str(), G.Language,
                                     G.UnitFlags, G.LoopDepthLimit);
    if (!B) {
      errs() << "scalana: error: out of memory building the PSG of " << G.UnitName << "\n";
      return false;
    }
    bool Failed = false;
    for (const PsgFunction *F : ByKey[K]) {
      FunctionWriter W{B, *F, F->LocalLinkage ? UnitSeed : (uint64_t)PSG_FNV_SEED, {}, Loops};
      W.add(*F->Root, PSG_NO_PARENT, 0);
      Failed |= W.Failed;
    }
    unsigned char *Bytes = nullptr;
    size_t N = 0;
    if (Failed || psg_builder_finish(B, &Bytes, &N) != 0) {
      psg_builder_free(B);
      errs() << "scalana: error: out of memory building the PSG of " << G.UnitName << "\n";
      return false;
    }
    psg_builder_free(B);
    PsgBlob Blob;
    Blob.ComdatKey = K;
    Blob.Bytes.assign(Bytes, Bytes + N);
    std::free(Bytes);
    Out.push_back(std::move(Blob));
  }
  return true;
}

bool embedPsg(Module &M, const PsgModuleGraph &G, std::vector<CountedLoop> *Loops) {
  std::vector<PsgBlob> Blobs;
  if (!serialisePsg(G, Blobs, Loops))
    return false;
  bool Little = M.getDataLayout().isLittleEndian();
  std::string Asm;
  raw_string_ostream OS(Asm);
  for (const PsgBlob &B : Blobs) {
    OS << ".pushsection " SCALANA_PSG_SECTION;
    if (B.ComdatKey.empty())
      OS << ",\"\",%progbits\n";
    else
      OS << ",\"G\",%progbits,\"__scalana_psg." << B.ComdatKey << "\",comdat\n";
    OS << ".balign 8\n";
    // The units are little-endian byte strings; emit them as 8-byte words.
    for (size_t I = 0; I < B.Bytes.size(); I += 8) {
      OS << (I % 64 == 0 ? ".quad 0x" : ",0x");
      uint64_t W = 0;
      for (unsigned K = 0; K < 8; ++K) {
        unsigned Shift = Little ? 8 * K : 8 * (7 - K);
        W |= (uint64_t)B.Bytes[I + K] << Shift;
      }
      OS << format_hex_no_prefix(W, 16);
      if (I % 64 == 56 || I + 8 >= B.Bytes.size())
        OS << '\n';
    }
    OS << ".popsection\n";
  }
  M.appendModuleInlineAsm(OS.str());
  return true;
}

} // namespace scalana
