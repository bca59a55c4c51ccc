/* Compiled as C: include/unum-c/Unum.h must be a C header. */
#include "unum-c/Unum.h"

int unum_capi_test_header_is_c(void) {
  unum_air_options options = {0, 0, 0, 3};
  unum_workflow_run_options run = {0, 0, 0.0, 0, 0};
  unum_nn_options nn = {0, 0};
  (void)run;
  (void)nn;
  return unum_api_version() == UNUM_C_API_VERSION && options.opt_level == 3;
}
