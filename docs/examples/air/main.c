/* Calls the kernel of expr.air through the header unum-airc writes
   (docs/Tools/unum-airc.md; the ABI: docs/AirABI.md). */
#include "expr.h"
#include <stdio.h>

int main(void) {
  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c = 0.5f, out[4];
  UnumMemRef_f32_1d A = {a, a, 0, {4}, {1}}, B = {b, b, 0, {4}, {1}},
                    O = {out, out, 0, {4}, {1}};
  UnumMemRef_f32_0d C = {&c, &c, 0};
  expr(&A, &B, &C, &O); /* inputs, then the output */
  for (int i = 0; i < 4; ++i)
    printf("%g ", out[i]);
  printf("\n"); /* 6 12 18 24 */
  return 0;
}
