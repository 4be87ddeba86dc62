// Staging fills: which register-consumed TMA loads the emitter loads into a store's subtile
// staging slots instead of registers (docs/scheduler.md, "Staged epilogue operands"). Part of
// the kernel driver; reads the finished graph's buffers and stages, writes Buffer::fill_op only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched2cu/sgraph/schedule_graph.h"
#include "sched2cu/ttgir/ir.h"

namespace sched2cu::sched {

// For each store staged as a ring of column subtiles whose boxes cycle the slots evenly: a
// 16-bit register load of the stored tile's shape, in the store's loop and stage, whose every
// use reaches only that store through elementwise float math and views, becomes the staging's
// fill. `slack`: shared-memory bytes left for the fills' barriers. Each decision is a note.
void plan_staging_fills(const ttgir::Module& m, const ttgir::Function& f, sgraph::ScheduleGraph& g,
                        int64_t slack, int64_t mbarrier_bytes, std::vector<std::string>& notes);

}  // namespace sched2cu::sched
