/* robust.c — programs whose behaviour the runtime must not change and whose
 * profiles it must not lose (test_robust.py runs each with and without the
 * runtime and compares output and exit status).  The mode is argv[1]:
 *   completion  MPI_ERRORS_RETURN, rank 1 completes truncated receives with
 *               every completion call (Waitall, Waitsome, Waitany, Wait,
 *               Testall, Testsome, Testany, Test); prints the error classes,
 *               statuses' error classes and sources; exits 1 when the
 *               library did not report the truncation
 *   exit4       rank 0 exit(4) after a Barrier while the others keep working
 *               (then wait in a Barrier that never completes)
 *   exit9 [N]   every rank prints one line, Barrier, exit(N, default 9), no
 *               MPI_Finalize
 *   ok          Allreduce, rank 0 prints "result N", MPI_Finalize
 *   chdir DIR   ok, after chdir(DIR) following MPI_Init
 *   hold S      ok after sleeping S seconds (a job that is still running)
 *   stacks      two threads on small stacks (16 KiB using 8, 64 KiB using 52)
 *               compute while sampled, then ok
 *   dl LIB      dlopen(LIB), its robust_dl_work() (compute + an Allreduce),
 *               dlclose, then ok
 *   linked      robust_lib_allreduce() of a linked shared library, then ok */
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef ROBUST_LINKED
int robust_lib_allreduce(int v);
#endif

static double work(long n)
{
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += i * 0.5;
    return x;
}

static int ok_part(int rank)
{
    double s = work(3000000) > 0 ? rank : 0, t = 0;
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("result %g\n", t);
    return 0;
}

/* ---- completion under MPI_ERRORS_RETURN ------------------------------------ */
static int eclass(int code)
{
    int c = -1;
    if (code == MPI_SUCCESS)
        return 0;
    MPI_Error_class(code, &c);
    return c;
}

/* Rank 0 sends, per round, tag 10 (1 int, fits) and tag 11 (8 ints into 4:
 * truncated); rank 1 receives them with the round's completion call. */
#define ROUNDS 8
static const char *round_name[ROUNDS] = {"Waitall", "Waitsome", "Waitany", "Wait",
                                         "Testall", "Testsome", "Testany", "Test"};

static int completion(int rank)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, buf[2][4];
        if (rank == 0) {
            MPI_Send(data, 1, MPI_INT, 1, 10, MPI_COMM_WORLD);
            MPI_Send(data, 8, MPI_INT, 1, 11, MPI_COMM_WORLD);
        }
        if (rank == 1) {
            MPI_Request q[2];
            MPI_Status st[2];
            memset(st, 0x5a, sizeof st);
            MPI_Irecv(buf[0], 4, MPI_INT, 0, 10, MPI_COMM_WORLD, &q[0]);
            MPI_Irecv(buf[1], 4, MPI_INT, 0, 11, MPI_COMM_WORLD, &q[1]);
            int rc = MPI_SUCCESS, idx[2] = {-7, -7}, out = 0, flag = 0, done = 0, trunc = 0, guard = 0;
            char line[512];
            int len = snprintf(line, sizeof line, "%s:", round_name[r]);
            switch (r) {
            case 0:
                rc = MPI_Waitall(2, q, st);
                trunc = eclass(rc) == MPI_ERR_IN_STATUS && eclass(st[1].MPI_ERROR) == MPI_ERR_TRUNCATE;
                break;
            case 4:
                while (!flag && guard++ < 10000000 && (rc = MPI_Testall(2, q, &flag, st)) == MPI_SUCCESS)
                    ;
                trunc = eclass(rc) == MPI_ERR_IN_STATUS && eclass(st[1].MPI_ERROR) == MPI_ERR_TRUNCATE;
                break;
            case 1: case 5: {
                /* Batches depend on arrival: report per index, in index order. */
                int err[2] = {-1, -1}, src[2] = {-1, -1};
                while (done < 2 && guard++ < 10000000) {
                    MPI_Status s2[2];
                    rc = r == 1 ? MPI_Waitsome(2, q, &out, idx, s2) : MPI_Testsome(2, q, &out, idx, s2);
                    if (out == MPI_UNDEFINED)
                        break;
                    for (int k = 0; k < out; k++) {
                        int i = idx[k] & 1;
                        err[i] = rc == MPI_SUCCESS ? 0 : eclass(s2[k].MPI_ERROR);
                        src[i] = s2[k].MPI_SOURCE;
                        if (i == 1 && rc != MPI_SUCCESS && err[i] == MPI_ERR_TRUNCATE)
                            trunc = 1;
                    }
                    done += out;
                }
                for (int i = 0; i < 2; i++)
                    len += snprintf(line + len, sizeof line - len, " [%d] err %d src %d", i, err[i], src[i]);
                break;
            }
            case 2: case 6:
                while (done < 2 && guard++ < 10000000) {
                    int i = -7;
                    MPI_Status s1;
                    flag = 1;
                    rc = r == 2 ? MPI_Waitany(2, q, &i, &s1) : MPI_Testany(2, q, &i, &flag, &s1);
                    if (rc == MPI_SUCCESS && !flag)
                        continue;
                    if (i == MPI_UNDEFINED)
                        break;
                    len += snprintf(line + len, sizeof line - len, " [%d] rc %d src %d", i, eclass(rc), s1.MPI_SOURCE);
                    if (i == 1 && eclass(rc) == MPI_ERR_TRUNCATE)
                        trunc = 1;
                    done++;
                }
                break;
            case 3: case 7:
                for (int k = 0; k < 2; k++) {
                    MPI_Status s1;
                    flag = 0;
                    if (r == 3)
                        rc = MPI_Wait(&q[k], &s1);
                    else
                        while (!flag && guard++ < 10000000 && (rc = MPI_Test(&q[k], &flag, &s1)) == MPI_SUCCESS)
                            ;
                    len += snprintf(line + len, sizeof line - len, " [%d] rc %d src %d null %d", k, eclass(rc),
                                    s1.MPI_SOURCE, q[k] == MPI_REQUEST_NULL);
                    if (k == 1 && eclass(rc) == MPI_ERR_TRUNCATE)
                        trunc = 1;
                }
                break;
            }
            if (r == 0 || r == 4)
                len += snprintf(line + len, sizeof line - len, " rc %d st0 err %d src %d st1 err %d src %d", eclass(rc),
                                eclass(st[0].MPI_ERROR), st[0].MPI_SOURCE, eclass(st[1].MPI_ERROR),
                                st[1].MPI_SOURCE);
            /* Whatever completed is freed: a request left behind after an
             * error is completed with the error handler's result ignored. */
            for (int k = 0; k < 2; k++)
                if (q[k] != MPI_REQUEST_NULL) {
                    len += snprintf(line + len, sizeof line - len, " left %d", k);
                    MPI_Wait(&q[k], MPI_STATUS_IGNORE);
                }
            printf("%s\n", line);
            if (!trunc) {
                printf("%s: the truncation was not reported\n", round_name[r]);
                bad = 1;
            }
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return bad;
}

/* ---- small stacks ------------------------------------------------------------ */
struct stack_job { size_t use; double result; };

static void *stack_thread(void *p)
{
    struct stack_job *j = p;
    size_t use = j->use;
    volatile char pad[use]; /* this much of the thread's stack in use while it computes */
    for (size_t i = 0; i < use; i += 512)
        pad[i] = (char)i;
    j->result = work(30000000) + pad[use / 2];
    return NULL;
}

static int stacks(void)
{
    size_t size[2] = {16 * 1024, 64 * 1024}, use[2] = {8 * 1024, 52 * 1024};
    struct stack_job jobs[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        pthread_attr_t at;
        pthread_attr_init(&at);
        if (pthread_attr_setstacksize(&at, size[i]) != 0)
            return 2;
        jobs[i].use = use[i];
        if (pthread_create(&th[i], &at, stack_thread, &jobs[i]) != 0)
            return 2;
        pthread_attr_destroy(&at);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    return jobs[0].result > 0 && jobs[1].result > 0 ? 0 : 3;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = 0;
    if (strcmp(mode, "completion") == 0) {
        rc = size >= 2 ? completion(rank) : 2;
    } else if (strcmp(mode, "exit4") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            printf("rank 0 leaves\n");
            fflush(stdout);
            exit(4);
        }
        work(20000000);
        MPI_Barrier(MPI_COMM_WORLD); /* never completes */
        printf("rank %d passed the barrier\n", rank);
    } else if (strcmp(mode, "exit9") == 0) {
        /* Output before the Barrier: after it the launcher may stop a rank
         * at any point once the first one is gone (with or without us). */
        printf("rank %d leaves\n", rank);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
        exit(argc > 2 ? atoi(argv[2]) : 9);
    } else if (strcmp(mode, "chdir") == 0 && argc > 2) {
        if (chdir(argv[2]) != 0)
            rc = 2;
    } else if (strcmp(mode, "hold") == 0 && argc > 2) {
        usleep((useconds_t)(atof(argv[2]) * 1e6));
    } else if (strcmp(mode, "stacks") == 0) {
        rc = stacks();
    } else if (strcmp(mode, "dl") == 0 && argc > 2) {
        void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
        int (*f)(int) = h ? (int (*)(int))dlsym(h, "robust_dl_work") : NULL;
        if (!f) {
            fprintf(stderr, "dlopen %s: %s\n", argv[2], dlerror());
            rc = 2;
        } else {
            int v = f(rank + 1);
            if (rank == 0)
                printf("dl sum %d\n", v);
            dlclose(h);
        }
#ifdef ROBUST_LINKED
    } else if (strcmp(mode, "linked") == 0) {
        int v = robust_lib_allreduce(rank + 1);
        if (rank == 0)
            printf("linked sum %d\n", v);
#endif
    }
    if (rc == 0)
        ok_part(rank);
    MPI_Finalize();
    return rc;
}
