/* saving.h — predicted against measured savings of a before/after
 * comparison (report/saving.c); report/compare.c adds them to its object. */
#ifndef SCALANA_AN_REPORT_SAVING_H
#define SCALANA_AN_REPORT_SAVING_H

/** Predicted against measured (saving.c): adds to each gone or changed cause
 *  of comparison (json_t *, an_compare_reports' object of the reports
 *  before and after) the saving its before report predicted
 *  (predicted_saving_seconds: its saved_seconds, at cost_processes_before
 *  processes), the seconds the program saved with a core per process, as
 *  the costs are (each run's wall / contention; measured_saving_seconds at
 *  that count, or the largest common one when the before build's largest
 *  count is not common; measured_wall_saving_seconds the plain wall time's;
 *  measured_saving per common count, each with the larger repetition spread
 *  as noise_seconds)
 *  and prediction_error = (predicted - measured) / |measured| (null when
 *  nothing was measured); with several such causes their predictions are
 *  summed against the one measured saving (prediction_combined: how many).
 *  Also sets comparison.saving_check, the sum.  Cannot fail (aborts on
 *  allocation failure). */
void an_compare_savings(void *comparison, const void *before, const void *after);

#endif
