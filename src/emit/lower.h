// Internal interface of the emitter's lowering: the context shared by the kernel-body lowering
// (lower_kernel.cpp), the op-level helpers (lower_ops.cpp) and the host launcher (host.cpp).
// Holds derived facts about the graph (names, shared-memory plan, descriptor boxes); it never
// changes a decision recorded in the schedule graph.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sched2cu/sgraph/schedule_graph.h"
#include "sched2cu/ttgir/ir.h"
#include "stmt.h"

namespace sched2cu::emit {

// A TMA descriptor (tt.make_tensor_descriptor): built on the host, passed as a kernel parameter.
struct Desc {
  int op = -1;
  std::string map;   // kernel parameter name
  std::string elem;  // MLIR element type ("f16")
  int elem_bytes = 0;
  std::vector<int64_t> block;  // block shape (dim 0 outermost)
  int swizzle = 0;             // bytes: 0, 32, 64, 128
  std::vector<int64_t> box;    // TMA box, dim 0 outermost; empty until a use fixes it
};

// A register tile in the wgmma accumulator layout owned by one warpgroup.
struct Tile {
  std::string var;  // AccTile variable
  int rows = 0, cols = 0;
  std::string elem;  // element type the value has in the IR ("f32", or "f16" after truncf)
  // The loop-carried value (iter_arg id) whose initial value is a splat zero, or -1. Such an
  // accumulator is never filled before its loop: the first wgmma that reads it runs with
  // scale-d = 0 (D = A·B), because a register fill ahead of the wgmma chain makes ptxas
  // serialize every wgmma of the loop (warning C7515; measured -2.7% at 8192^3 on the H200).
  // A loop that runs no iteration gets its zeros on a duplicated tail (split_zero_trip).
  int zero_init_value = -1;
  // Non-empty: the tile is a PackedTile of this 16-bit element type (a register load of a
  // 16-bit tensor), whatever `elem` the IR views it as; widened to f32 where it is used.
  std::string packed;
};

struct Ctx {
  Ctx(const sgraph::ScheduleGraph& graph, const ttgir::Module& mod, const ttgir::Function& fn)
      : g(graph), m(mod), f(fn) {}
  const sgraph::ScheduleGraph& g;
  const ttgir::Module& m;
  const ttgir::Function& f;

  std::map<int, Desc> descs;            // by op id
  std::map<int, std::string> names;     // value id -> C++ name of a scalar (device scope)
  std::map<int, Tile> tiles;            // value id -> register tile (current role)
  std::map<int, long long> buf_offset;  // buffer id -> byte offset in dynamic smem
  std::map<std::pair<int, int>, long long> ring_offset;  // (loop, ring) -> byte offset
  long long smem_bytes = 0;

  [[noreturn]] void fail(int op, const std::string& msg) const;
  std::string note(int op) const;  // "op 17 tt.descriptor_load"
  const ttgir::Op& op(int id) const { return f.op(id); }
  const ttgir::Type& type(int value) const { return f.value(value).type; }
  // The C++ identifier for a value (params keep their name).
  std::string ident(int value) const;
};

// --- lower_ops.cpp ---------------------------------------------------------------------------
// C++ type of a scalar MLIR type ("int", "long long", "bool", "float"); fails otherwise.
std::string scalar_ctype(const Ctx& c, const ttgir::Type& t, int op);
bool is_scalar_op(const Ctx& c, int op);  // all results scalar and lowerable as expressions
// One declaration per result of a scalar op ("const int a_12 = pid_m_6 * 128;").
Stmt lower_scalar(Ctx& c, int op);
// Host expression (long long) of a scalar value computed from kernel arguments.
std::string host_expr(const Ctx& c, int value, int user_op);
// Swizzle (bytes) of a shared-memory layout attribute (nvmma_shared), 0 if unswizzled.
int swizzle_of(const Ctx& c, const ttgir::Type& t, int op);
bool layout_transposed(const Ctx& c, const ttgir::Type& t, int op);
std::string cuda_elem(const Ctx& c, const std::string& elem, int op);  // "__half"
int elem_bytes(const std::string& elem);
// Exact C++ spelling of a float attribute (decimal text + "f", or the bit pattern for hex).
std::string float_literal(const Ctx& c, const ttgir::Attribute& a, int op);
// True for an integer 0 or a float +0.0 constant (any spelling).
bool is_zero_literal(const ttgir::Attribute& a);

// --- lower_util.cpp ----------------------------------------------------------------------------
const sgraph::Buffer* buffer_produced_by(const Ctx& c, int op);
std::string buf_name(int id);
std::string ring_name(int loop, int ring);
std::string it_name(int loop);
const sgraph::Node* node_of_op(const sgraph::Loop& L, int op);
// The role that owns the loop-carried values leaving loop `li` (the epilogue runs there).
int result_role(const Ctx& c, int li);
// Rows of a register tile per warpgroup of a (possibly split) role.
int split_rows(const Ctx& c, const sgraph::Role& r, int rows, int op);
// Records the TMA box of one descriptor use; rejects conflicting uses.
void fix_box(Ctx& c, Desc& d, std::vector<int64_t> box, int op);
// Index of the scheduled loop whose op is `op`, -1 if none.
int loop_index_of(const Ctx& c, int op);
// The descriptor a TMA op uses (operand 0); fails unless it is made in the kernel.
Desc& desc_of(Ctx& c, const ttgir::Op& o);
// Inner box width (elements) of a 2-D block under the descriptor's swizzle.
int64_t inner_box(const Ctx& c, const Desc& d, int op);

struct EpilogueState {
  bool overlay = false;           // function-scope buffers overlay the loop rings
  bool role_synced = false;       // the role-wide barrier before the first overlay write is emitted
  bool stores_in_flight = false;  // an in-loop TMA store is not waited for: drain after the nest
};
// One function-scope op after the loops, in the role that owns the loop results.
std::vector<Stmt> lower_epilogue_op(Ctx& c, const sgraph::Role& r, int op, EpilogueState& st);

// --- lower_regtile.cpp -------------------------------------------------------------------------
// Register-tile ops of an epilogue other than the store (a load without shared memory, extf,
// f32 elementwise arithmetic): false if `op` is none of them, else its statements in `out`.
bool lower_register_tile_op(Ctx& c, const sgraph::Role& r, int op, std::vector<Stmt>& out);

// --- lower_kernel.cpp --------------------------------------------------------------------------
std::string lower_kernel(Ctx& c);  // the __global__ function (text)

// --- host.cpp ----------------------------------------------------------------------------------
std::string lower_host(Ctx& c, const std::string& kernel_name);

}  // namespace sched2cu::emit
