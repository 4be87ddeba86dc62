// The fault harness test case shares vec_add's spec.
#include "../vec_add/bench_spec.cpp"
