/* scalana_fp_note.S — the marker the scalana-cc/cxx/fc wrappers link into
 * every program and library they build: an ELF note "Scalana", type 0x5046
 * ("FP"), saying that the module's code keeps frame pointers, so that the
 * runtime walks them for the call paths of MPI calls (runtime/callpath/rt_fpwalk.c). */
    .section .note.scalana.fp,"a",@note
    .p2align 2
    .long 8            /* name size: "Scalana" and its NUL */
    .long 4            /* descriptor size */
    .long 0x5046       /* type: RT_FP_NOTE_TYPE */
    .asciz "Scalana"
    .p2align 2
    .long 1            /* descriptor: marker version */
    .section .note.GNU-stack,"",@progbits
