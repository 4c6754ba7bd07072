# lit configuration of the PSG pass and wrapper tests (tests/plugin).
# Each test builds a small MPI program with the wrappers and checks the
# embedded graph with `scalana-dump --psg` and FileCheck.
import os
import lit.formats

config.name = "ScalAna-plugin"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp", ".f90", ".ll", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)

# FileCheck, opt, llvm-objdump, llvm-readelf from LLVM 19 first on PATH.
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_bindir, config.scalana_bindir, config.environment.get("PATH", "/usr/bin:/bin")])
for var in ("SCALANA_MPI", "SCALANA_PSG_LOOP_DEPTH", "SCALANA_VERBOSE", "OMPI_CC", "MPICH_CC",
            "OMPI_CXX", "MPICH_CXX", "OMPI_FC", "MPICH_FC"):
    config.environment.pop(var, None)

bindir = config.scalana_bindir
config.substitutions.append(("%scalana-cc", os.path.join(bindir, "scalana-cc")))
config.substitutions.append(("%scalana-cxx", os.path.join(bindir, "scalana-cxx")))
config.substitutions.append(("%scalana-fc", os.path.join(bindir, "scalana-fc")))
config.substitutions.append(("%scalana-dump", os.path.join(bindir, "scalana-dump")))
# Exact structure: indentation is depth, so whitespace counts and patterns
# cover whole lines ("CHECK-NEXT:  MPI ..." is a depth-1 vertex).
config.substitutions.append(("%FileCheck", "FileCheck --strict-whitespace --match-full-lines"))
config.substitutions.append(("%shlibdir", config.scalana_libdir))
config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%plugin", config.scalana_plugin))
config.substitutions.append(("%clang", os.path.join(config.llvm_bindir, "clang")))
config.substitutions.append(("%opt", os.path.join(config.llvm_bindir, "opt")))
config.substitutions.append(("%mpi_include", config.ompi_include))
config.substitutions.append(("%examples", os.path.join(config.scalana_src_root, "examples")))

for mpi in config.scalana_mpis:
    config.available_features.add("mpi-" + mpi)
if os.path.exists(os.path.join(config.scalana_libdir, "libscalana-openmpi.so")):
    config.available_features.add("runtime-openmpi")
