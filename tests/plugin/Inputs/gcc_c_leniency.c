/* C that gcc 12 (mpicc) builds with warnings and clang 19 rejects by default:
 * a call to an undeclared function, implicit int, an integer from a pointer
 * without a cast (the C99-removed features; tests/plugin/wrapper_options.test). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = twice(21);
    long addr = &n;
    printf("twice 21 = %d%s\n", n, addr ? "" : "?");
    MPI_Finalize();
    return 0;
}

twice(x) { return 2 * x; }
