// test_gpu_vocab.cpp — the compiler pass and the CUPTI collector agree on
// every CUDA API name.  Links the pass's own classifier
// (plugin/CallClassifier.cpp, scalana::gpuOpOf) and the collector's
// (runtime/gpu/gpu_api_class.c, gpu_api_classify) and asks both about every
// runtime and driver API function CUPTI knows (the names of the callback-id
// headers given as arguments, each as CUPTI spells it, _v3020 and all, and as
// a source spells it) plus the names the two once disagreed on.  Agreement:
//   pass PSG_GPU_LAUNCH      <-> collector GPU_API_LAUNCH
//   pass PSG_GPU_MEMCPY      <-> GPU_API_COPY_ASYNC or GPU_API_COPY_BLOCKING
//   pass PSG_GPU_MEMSET      <-> GPU_API_MEMSET
//   pass PSG_GPU_SYNCHRONIZE <-> GPU_API_SYNC
//   pass PSG_GPU_MALLOC      <-> GPU_API_OTHER (shown in the graph; a
//                                profile has no kind for allocations)
//   pass -1 (not GPU)        <-> GPU_API_OTHER
// usage: test_gpu_vocab cupti_runtime_cbid.h cupti_driver_cbid.h
#include "CallClassifier.h"

extern "C" {
#include "gpu_internal.h"
}
#include "scalana/psg_format.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <string>

static int expected_collector(int psg, int *alt)
{
  *alt = -1;
  switch (psg) {
  case PSG_GPU_LAUNCH: return GPU_API_LAUNCH;
  case PSG_GPU_MEMCPY: *alt = GPU_API_COPY_BLOCKING; return GPU_API_COPY_ASYNC;
  case PSG_GPU_MEMSET: return GPU_API_MEMSET;
  case PSG_GPU_SYNCHRONIZE: return GPU_API_SYNC;
  default: return GPU_API_OTHER; // PSG_GPU_MALLOC and -1
  }
}

static int failures;

static void check(const std::string &name)
{
  int psg = scalana::gpuOpOf(name);
  int col = gpu_api_classify(name.c_str(), nullptr, 0);
  int alt, want = expected_collector(psg, &alt);
  if (col != want && col != alt) {
    std::fprintf(stderr, "FAIL %s: pass says %d (enum psg_gpu_op), collector %d (enum gpu_api_class)\n",
                 name.c_str(), psg, col);
    failures++;
  }
}

static void pin(const char *name, int psg, int col)
{
  int p = scalana::gpuOpOf(name), c = gpu_api_classify(name, nullptr, 0);
  if (p != psg || c != col) {
    std::fprintf(stderr, "FAIL %s: pass %d (want %d), collector %d (want %d)\n", name, p, psg, c, col);
    failures++;
  }
}

int main(int argc, char **argv)
{
  std::set<std::string> names;
  std::regex cbid("CUPTI_(RUNTIME|DRIVER)_TRACE_CBID_(\\w+?)\\s*=");
  for (int i = 1; i < argc; i++) {
    std::ifstream in(argv[i]);
    if (!in) {
      std::fprintf(stderr, "FAIL cannot read %s\n", argv[i]);
      return 1;
    }
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, cbid) && m[2] != "INVALID" && m[2] != "SIZE" && m[2] != "FORCE_INT")
        names.insert(m[2]);
  }
  size_t from_headers = names.size();
  // Source spellings: the CUPTI name without its version/stream suffixes.
  for (const std::string &n : std::set<std::string>(names)) {
    char base[256];
    gpu_api_classify(n.c_str(), base, sizeof base);
    names.insert(base);
  }
  for (const char *n : {"cudaLaunchHostFunc", "cuLaunchHostFunc", "cudaGraphLaunch", "cuGraphLaunch",
                        "cudaMalloc", "cudaFree", "cudaMallocManaged", "cuMemAlloc_v2", "cuMemFree_v2",
                        "cudaMemcpy_ptds", "cudaMemcpyAsync_ptsz", "cuStreamSynchronize_ptsz",
                        "__cudaLaunchKernel", "cudaGraphAddMemcpyNode", "cumulative_sum", "curl_easy_init",
                        "cuda_helper", "cudaGetDevice", "solve"})
    names.insert(n);
  for (const std::string &n : names)
    check(n);
  // The decisions, pinned.
  pin("cudaLaunchKernel", PSG_GPU_LAUNCH, GPU_API_LAUNCH);
  pin("cudaGraphLaunch", PSG_GPU_LAUNCH, GPU_API_LAUNCH);
  pin("cudaLaunchHostFunc", -1, GPU_API_OTHER);
  pin("cudaMalloc", PSG_GPU_MALLOC, GPU_API_OTHER);
  pin("cudaFree", PSG_GPU_MALLOC, GPU_API_OTHER);
  pin("cudaMemcpyAsync", PSG_GPU_MEMCPY, GPU_API_COPY_ASYNC);
  pin("cudaMemcpy", PSG_GPU_MEMCPY, GPU_API_COPY_BLOCKING);
  pin("cuStreamSynchronize_ptsz", PSG_GPU_SYNCHRONIZE, GPU_API_SYNC);
  pin("__device_stub__axpy", PSG_GPU_LAUNCH, GPU_API_OTHER); // clang's launch stub: never a CUPTI name
  if (from_headers < 500) {
    std::fprintf(stderr, "FAIL only %zu callback names read from the CUPTI headers\n", from_headers);
    failures++;
  }
  std::printf("%s: %zu names (%zu from CUPTI's headers), %d disagreements\n", failures ? "FAIL" : "PASS",
              names.size(), from_headers, failures);
  return failures != 0;
}
