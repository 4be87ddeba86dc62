// The data-dependence graph of one loop body, independent of the IR: nodes carry their pipeline,
// issue stream and three costs; edges carry latency and iteration distance. A nested loop is one
// super-node. The scheduler only ever sees this structure. Must never hold pointers into the IR:
// `op` is an op id, and nodes are numbered in program order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched2cu/ddg/target_model.h"

namespace sched2cu::ddg {

struct Node {
  int id = 0;
  int op = -1;           // IR op id (-1 for synthetic test nodes)
  std::string name;      // op name ("tt.descriptor_load") or a test label
  std::string op_class;  // target-model class name ("" for super-nodes)
  Pipe pipe = Pipe::NONE;
  std::string stream = "none";  // issue stream whose reservation table row it fills
  int64_t latency = 0;
  int64_t latency_tail = 0;
  int64_t issue = 0;
  int64_t occupancy = 0;
  // TC nodes: cycles the node holds the in-order tensor core of its issuing warpgroup(s) in the
  // reservation table: its share when warpgroups take turns (docs/scheduler.md); 0 = occupancy.
  int64_t tc_hold = 0;
  // TC nodes: warpgroups taking turns on the tensor core (1 = none). Each turn is II / tc_turns
  // later than the previous one, so the node's hold recurs at those offsets in the table.
  int tc_turns = 1;
  int min_warps = 1;
  // Register math whose result holds fewer registers than its widest tensor operand (a 32- to
  // 16-bit conversion): issuing it later keeps the wider operand live longer.
  bool narrows = false;
  // A global load into registers of a scalar or a rank-1 tensor (a few registers per thread):
  // issuing it an iteration early costs little (prefetch_vector_loads in the scheduler).
  bool vector_load = false;
  bool super_node = false;
  int child_loop = -1;  // super-node: index of the inner loop in the kernel's loop list
};

struct Edge {
  int src = 0;
  int dst = 0;
  int64_t latency = 0;
  int distance = 0;  // iterations; 0 = same iteration
};

// A shared-memory ring the loop fills each iteration: the TMA load that writes it (its issue
// starts the slot's lifetime), the op that materializes it, and the ops that read it (the last
// completion ends the lifetime). `group` ties rings read by the same consumer (A and B of one
// MMA), which must share a depth.
struct RingReq {
  int producer = -1;           // node issuing the fill (TMA load)
  int def = -1;                // node whose result is the buffer (local_alloc), or producer
  std::vector<int> consumers;  // nodes reading the buffer
  int64_t bytes = 0;           // bytes of one slot
  std::vector<int64_t> shape;
  std::string elem;
  int group = -1;  // equal for rings read by the same consumer
  // A register exchange (is_smem_exchange): the consumer role's own warpgroups store a register
  // tile into the slot with ordinary stores and MMAs read it as a shared-memory operand.
  bool exchange = false;
};

struct Ddg {
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<RingReq> rings;

  int add_node(Node n);
  void add_edge(int src, int dst, int64_t latency, int distance);
  std::vector<std::vector<int>> succ_edges() const;  // per node: indices into edges
  std::vector<std::vector<int>> pred_edges() const;
  std::vector<std::string> streams() const;  // distinct non-"none" streams, sorted
};

}  // namespace sched2cu::ddg
