// Lifting pointer tiles to tensor descriptors: a 2-D `tt.load` that feeds an MMA operand, or a
// 2-D `tt.store` of an MMA result, through a pointer tile `base + rows * stride + cols` (the
// Triton tutorial's matmul) becomes the `tt.descriptor_load` / `tt.descriptor_store` of a tensor
// descriptor made from the same base, extents and row stride, when the two are provably equal:
// the columns contiguous (stride the constant 1), the masks exactly the tensor's bounds (TMA reads
// out-of-bounds elements as zero and never writes them), `other` zero, and the pointer advanced by
// a fixed step per loop iteration. Rows read modulo their extent (`% M`) are lifted only where the
// wrapped rows reach no output: the MMA result flows elementwise into stores bounded by the same
// extent. Everything else is left alone; a pointer tile feeding an MMA that cannot be lifted is an
// error saying why. Never changes what the kernel computes for in-bounds outputs.
#pragma once

#include <string>
#include <vector>

#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ttgir {

// Lifts what can be lifted in function `kernel` of `m`; returns one note per lifted load or store
// ("kernel.py:23:20: tt.load lifted to a TMA load of a_ptr [M, K] ..."). Throws sched2cu::Error at
// the op's location when a pointer tile feeding an MMA operand cannot be lifted.
std::vector<std::string> lift_pointer_tiles(Module& m, const std::string& kernel);

}  // namespace sched2cu::ttgir
