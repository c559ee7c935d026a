/* layer_circle: the other half of the circle (circle.h). */
#include "circle.h"

int circle_b(int n) { return n > 0 ? circle_a(n - 1) : 1; }
