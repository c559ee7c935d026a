/* layer_circle: two files that call each other, for the array-layers-selftest
 * (tests/unit/array/layer_graph.py must find this circle and fail). */
#ifndef LAYER_CIRCLE_H
#define LAYER_CIRCLE_H
int circle_a(int n);
int circle_b(int n);
#endif
