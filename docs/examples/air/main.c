/* Calls the kernel of expr.air through the header unum-airc writes
   (docs/Tools/unum-airc.md; the ABI: docs/AirABI.md). */
#include "expr.h"
#include <stdio.h>

int main(void) {
  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c = 0.5f, out[4];
  UnumMemRef_f32_1d A = {a, a, 0, {4}, {1}}, B = {b, b, 0, {4}, {1}},
                    O = {out, out, 0, {4}, {1}};
  UnumMemRef_f32_0d C = {&c, &c, 0};
  if (expr(&A, &B, &C, &O) != UNUM_AIR_OK) /* inputs, then the output */
    return 1;
  for (int i = 0; i < 4; ++i)
    printf("%g ", out[i]);
  printf("\n"); /* 6 12 18 24 */

  /* Any strides and offset: every other element of b, from b[1]. */
  UnumMemRef_f32_1d A2 = {a, a, 0, {2}, {1}}, B2 = {b, b, 1, {2}, {2}},
                    O2 = {out, out, 0, {2}, {1}};
  if (expr(&A2, &B2, &C, &O2) != UNUM_AIR_OK)
    return 1;
  printf("%g %g\n", out[0], out[1]); /* 11 22 */

  /* a and b must have one length N: a mismatch is refused, nothing runs. */
  UnumMemRef_f32_1d B3 = {b, b, 0, {3}, {1}};
  printf("status %d\n", (int)expr(&A, &B3, &C, &O)); /* status 1 */
  return 0;
}
