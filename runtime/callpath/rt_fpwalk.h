/* rt_fpwalk.h — call paths of MPI calls from frame pointers (rt_fpwalk.c),
 * continued by the libunwind cache of rt_unwcache.h.  Hidden; not for signal
 * handlers. */
#ifndef SCALANA_RT_FPWALK_H
#define SCALANA_RT_FPWALK_H

#include <stdint.h>

/* Type of the "Scalana" ELF note that marks a module built with frame
 * pointers (runtime/callpath/scalana_fp_note.S; "FP" in ASCII). */
#define RT_FP_NOTE_TYPE 0x5046u

/** Builds the table of marked modules (dl_iterate_phdr; the runtime counts
 *  as marked).  Called once, lazily; modules loaded later are not marked
 *  (their frames go through libunwind). */
RT_HIDDEN void rt_fp_init(void);
/** Number of marked modules (the runtime included); builds the table first. */
RT_HIDDEN int rt_fp_marked_modules(void);
/** 1 when a lies in the text of a marked module. */
RT_HIDDEN int rt_fp_marked(uintptr_t a);
/** The caller's call path without the runtime's frames, as rt_capture_path:
 *  frame pointers through marked modules, then rt_unw_from.  Returns the
 *  number of frames, or -1 when the walk cannot start or a record fails a
 *  check (the caller then uses unw_backtrace). */
RT_HIDDEN int rt_fp_capture(void **frames, int cap, int *truncated);
/** The call path from a caller's frame record on: record[1], the return
 *  address it holds, must be ra and is frames[0], then frame pointers and
 *  rt_unw_from as rt_fp_capture.  record is a live record of a caller of
 *  this function (an OpenMP runtime's entry frame, OMPT's enter_frame),
 *  which skips the frames below it without walking them.  Returns the number
 *  of frames, or -1 when the record is not in the calling thread's stack
 *  above this call, does not hold ra, or the walk fails a check. */
RT_HIDDEN int rt_fp_capture_at(const void *record, const void *ra, void **frames, int cap, int *truncated);

#endif
