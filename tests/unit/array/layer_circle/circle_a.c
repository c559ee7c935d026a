/* layer_circle: one half of a circle of calls (circle.h). */
#include "circle.h"

int circle_a(int n) { return n > 0 ? circle_b(n - 1) : 0; }
