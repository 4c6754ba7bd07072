/* test_mpi_ops.c — unit tests of the MPI operation table (mpi_calls.def via
 * formats/mpi_ops.c): codes ascend and are unique, every spelling resolves,
 * classes and names are right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "scalana/mpi_ops.h"

static void test_codes_ascend(void **state)
{
    (void)state;
    unsigned n = scalana_mpi_op_count();
    assert_true(n > 150);
    for (unsigned i = 1; i < n; i++)
        assert_true(scalana_mpi_op_at(i - 1) < scalana_mpi_op_at(i));
    assert_int_equal(scalana_mpi_op_at(n), SCALANA_MPI_OP_NONE);
}

static void test_fixed_codes(void **state)
{
    (void)state;
    /* Codes are stored in profiles and PSGs: these must never change. */
    assert_int_equal(scalana_mpi_op_from_name("MPI_Init"), 1);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Finalize"), 3);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Send"), 100);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Isend"), 104);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Recv"), 120);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Irecv"), 121);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Sendrecv"), 130);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Wait"), 150);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Waitall"), 153);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Barrier"), 200);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Bcast"), 201);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Allreduce"), 203);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Alltoall"), 210);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Comm_split"), 303);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Put"), 420);
    assert_int_equal(scalana_mpi_op_from_name("MPI_File_write_all"), 505);
}

static void test_spellings(void **state)
{
    (void)state;
    const char *names[] = {"MPI_Send", "PMPI_Send", "mpi_send", "mpi_send_", "mpi_send__", "MPI_SEND",
                           "pmpi_send_", "mpi_send_f08", "mpi_send_f08_", "mpi_send_f08ts_", "MPI_Send_c"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_int_equal(scalana_mpi_op_from_name(names[i]), 100);
    assert_int_equal(scalana_mpi_op_from_name("MPI_Foo"), SCALANA_MPI_OP_NONE);
    assert_int_equal(scalana_mpi_op_from_name("printf"), SCALANA_MPI_OP_NONE);
    assert_int_equal(scalana_mpi_op_from_name(""), SCALANA_MPI_OP_NONE);
    assert_int_equal(scalana_mpi_op_from_name(NULL), SCALANA_MPI_OP_NONE);
    assert_int_equal(scalana_mpi_op_from_name("mpi_"), SCALANA_MPI_OP_NONE);
}

static void test_names_and_classes(void **state)
{
    (void)state;
    for (unsigned i = 0; i < scalana_mpi_op_count(); i++) {
        scalana_mpi_op op = scalana_mpi_op_at(i);
        const char *name = scalana_mpi_op_name(op);
        assert_int_equal(strncmp(name, "MPI_", 4), 0);
        assert_int_equal(scalana_mpi_op_from_name(name), op); /* round trip */
        assert_non_null(scalana_mpi_class_name(scalana_mpi_op_class(op)));
    }
    assert_string_equal(scalana_mpi_op_name(9999), "MPI_<unknown>");
    assert_int_equal(scalana_mpi_op_class(9999), SCALANA_MPI_CLASS_NONE);
    assert_int_equal(scalana_mpi_op_class(203), SCALANA_MPI_CLASS_COLLECTIVE);
    assert_int_equal(scalana_mpi_op_class(104), SCALANA_MPI_CLASS_P2P_SEND);
    assert_int_equal(scalana_mpi_op_class(153), SCALANA_MPI_CLASS_COMPLETION);
    assert_int_equal(scalana_mpi_op_class(6), SCALANA_MPI_CLASS_NONE);
    assert_string_equal(scalana_mpi_class_name(SCALANA_MPI_CLASS_COLLECTIVE), "collective");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codes_ascend),
        cmocka_unit_test(test_fixed_codes),
        cmocka_unit_test(test_spellings),
        cmocka_unit_test(test_names_and_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
