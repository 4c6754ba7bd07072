/* unit_code.h — the code of unit_code.c whose addresses the analyzer's unit
 * tests attribute, its source lines, and the PSG that describes it. */
#ifndef SCALANA_TESTS_UNIT_CODE_H
#define SCALANA_TESTS_UNIT_CODE_H

#include <stdint.h>

#include "scalana/psg_format.h"

/** unit_main's source file (__FILE__ there), as the PSG and DWARF name it. */
extern const char UNIT_CODE_FILE[];
/** Lines of unit_kernel (first, last), of its call in unit_main, and unit_main's last line. */
extern const int KERNEL_FIRST, KERNEL_LAST, CALL_LINE, MAIN_LAST;
/** Calls unit_kernel: *pc an address inside its loop, *ra its return address into unit_main. */
void unit_main(uint64_t *pc, uint64_t *ra);
void unit_kernel(uint64_t *pc, uint64_t *ra);
/** A PSG unit of unit_main (FUNCTION, CALL) and unit_kernel (FUNCTION, LOOP, COMPUTE), parsed. */
struct psg_graph build_psg(void);

#endif
