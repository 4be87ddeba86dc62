// Integer helpers the host side shares where it evaluates what kernels compute (the grid's
// sampling, the protocol checker's expressions). Header-only; must never hold anything else.
#pragma once

namespace sched2cu {

// MLIR's arith.ceildivsi: the ceiling of a / b for either sign (C++ division truncates; the
// quotient goes one up where a remainder is left and the exact quotient is positive). The device
// side's is runtime/sched2cu/common.cuh's ceil_div_signed. b must not be 0.
constexpr long long ceil_div_signed(long long a, long long b) {
  return a / b + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
}

}  // namespace sched2cu
