// Internal interface of the emitter: the facts derived from the schedule graph once (Ctx:
// descriptors, shared-memory plan, buffers and rings, names), the model of register values with
// their layouts (Val), and the op lowering interface (Lower) that every entry of the op table
// (optable.cpp) implements. Nothing here changes a decision recorded in the schedule graph.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sched2cu/emit/stmt.h"
#include "sched2cu/sgraph/schedule_graph.h"
#include "sched2cu/ttgir/ir.h"

namespace sched2cu::emit {

// A TMA descriptor: built on the host, passed as a kernel parameter. Made in the kernel
// (tt.make_tensor_descriptor) or passed to it (a host tensor descriptor argument, Triton's
// TensorDescriptor: in the ABI its base pointer, then its extents and strides, the integer
// arguments Triton expands it into).
struct Desc {
  int op = -1;     // the tt.make_tensor_descriptor, or -1 for an argument
  int where = -1;  // the op its errors point at: `op`, or an argument's first use
  int value = -1;  // the descriptor SSA value (the op's result or the argument)
  int base = -1;   // value ids: the base pointer, the extents and the strides (dim 0 outermost)
  std::vector<int> shape, strides;
  std::string map;   // kernel parameter name
  std::string elem;  // MLIR element type ("f16")
  int elem_bytes = 0;
  std::vector<int64_t> block;  // block shape (dim 0 outermost)
  int swizzle = 0;             // bytes: 0, 32, 64, 128
  std::vector<int64_t> box;    // TMA box, dim 0 outermost; empty until a use fixes it
  // Register-only tiles spanning whole contiguous rows wider than a TMA box: the map views the
  // tensor as [rows * fold, cols / fold], so one box is one tile, row-major (plan_descriptors).
  int fold = 1;
};

// What the emitter knows of one SSA value in the current role: its layout kind, its shape per
// warpgroup, its element type and how it is stored (docs/emitter.md, "Register values").
enum class Lay {
  Scalar,  // a C++ scalar
  Splat,   // a tensor equal to one scalar everywhere (tt.splat, splat constant): no registers
  Acc,     // wgmma accumulator layout tile, rows x cols per warpgroup (#nvidia_mma)
  Row,     // one value per row of an Acc tile (#ttg.slice<{dim = 1, parent = #mma}>)
  Col,     // one value per column of an Acc tile (#ttg.slice<{dim = 0, parent = #mma}>)
  RowB,    // a Row vector broadcast along the rows of an Acc tile (expand_dims + broadcast)
  ColB,    // a Col vector broadcast along the columns
  DotA,    // the register A operand of an MMA (#ttg.dot_op<{opIdx = 0}>): a view of an Acc tile
  Smem,    // a shared-memory buffer (memdesc): a ring slot or a resident buffer
  Desc,    // a tensor descriptor (host-built map)
  // The blocked world (blocked.cpp, runtime/sched2cu/blocked.cuh): #ttg.blocked tensors and their
  // slices, any element type (f32, 16-bit floats, integers, i1, pointers).
  BTile,  // a blocked tensor (rank 1 as one row), BTile<cty, BLay<...>>
  BRow,   // one value per row (#ttg.slice<{dim = 1, parent = #blocked}>), BRow<cty, BLay>
  BCol,   // one value per column (slice dim 0), BCol<cty, BLay>
  BRowB,  // a BRow broadcast along the columns of a tile (expand_dims + broadcast: a view)
  BColB,  // a BCol broadcast along the rows
};

// A blocked layout's parameters (runtime BLay<R, C, S0, S1, T0, T1, W0, W1>): rank-1 tensors are
// one row (R = 1); a slice keeps its parent's parameters with the dropped dimension one CTA tile.
struct BLayout {
  int R = 1, C = 1, S0 = 1, S1 = 1, T0 = 1, T1 = 32, W0 = 1, W1 = 4;
  int NW = 4;            // warps of the role holding the value (W0 * W1)
  bool mma_col = false;  // the accumulator layout's columns (is_mma_col in blocked.cpp)
  bool mma_row = false;  // the accumulator layout's rows: MRowLay<R, C> (is_mma_row in blocked.cpp)
  std::string text() const;
  int ct0() const { return S0 * T0 * W0; }
  int ct1() const { return S1 * T1 * W1; }
};

struct Val {
  Lay lay = Lay::Scalar;
  int rows = 0, cols = 0;  // per warpgroup: Acc rows x cols; Row rows; Col cols; DotA rows x K
  std::string elem;        // the IR element type ("f32", "bf16")
  bool packed = false;     // Acc storage is 16-bit pairs (PackedTile<rows, cols>)
  std::string packed_t;    // the packed storage's CUDA element type ("__nv_bfloat16")
  int storage = -1;        // the value whose C++ variable holds the data (itself unless a view)
  bool convert_on_store = false;  // truncf kept as a view: converted where it is stored
  std::string scalar;             // Splat: literal text of a constant splat ...
  int scalar_value = -1;          // ... or the scalar value it broadcasts
  int buffer = -1;                // Smem: buffer id
  bool smem_trans = false;        // Smem: the memdesc's layout is transposed (memdesc_trans)
  int swizzle = 0;  // Smem: the buffer's swizzle when no memdesc type says it (an exchange)
  // Acc: warpgroups side by side along the columns (warpsPerCTA [4, col_parts]); warpgroup k
  // holds every row and columns [k * cols, (k + 1) * cols).
  int col_parts = 1;
  // Acc: a register transpose (tt.trans) kept as a view of its operand; only an exchange
  // through shared memory reads it (exchange.cpp).
  bool reg_trans = false;
  int desc_op = -1;      // Desc: the tt.make_tensor_descriptor op
  int zero_iter = -1;    // the zero-initialized iter_arg this value equals on iteration 0, or -1
  bool partial = false;  // Row: per-lane partials of a quad sum; BCol: per-thread partials of a
                         // column sum; not yet reduced (partial.cpp)
  // Blocked world.
  std::string cty;  // C++ element type ("float", "__half", "int", "bool", "__half*")
  BLayout blay;
  int contig = 1;             // integer/pointer tensors: proven consecutive run along the last dim
  bool uniform_cols = false;  // equal along the last dimension (splat, row broadcast)
  int smem_buffer = -1;       // a TMA-loaded tile still in its ring slot (read where first used)
  // A transposed tile (tt.trans of a blocked tile) kept as a view of its operand's storage; only
  // a layout conversion reads it (btranspose through the scratch, blocked_convert.cpp).
  bool blk_trans = false;
  // An Acc tile [R, C] reshaped to [R, 2, C / 2] (1) and then transposed to [R, C / 2, 2] (2): the
  // views before a tl.split of its column halves (acc_split.cpp); only that split reads them.
  int acc_halves = 0;
  // A row or column vector read where it is used (lazy_loads.cpp): its variable holds the
  // address of element 0 (a `const cty*`), every use reads the elements it needs from memory.
  bool lazy = false;
  // A staged epilogue operand (staged.cpp): an Acc tile that exists only one stored box at a
  // time, in staging buffer `staged` (its fill), or computed from one there by `box_ops` (the
  // elementwise ops to evaluate per box, in program order), inside its store's box loop.
  int staged = -1;
  std::vector<int> box_ops;
  // An integer or i1 tile of the accumulator layout (acc_expr.cpp): never materialized, its
  // element (s, i) is this expression (value references resolved when printed), read only
  // inside the f32 tile op that consumes it.
  Text expr;
};

struct Ctx {
  Ctx(const sgraph::ScheduleGraph& graph, const ttgir::Module& mod, const ttgir::Function& fn)
      : g(graph), m(mod), f(fn) {}
  const sgraph::ScheduleGraph& g;
  const ttgir::Module& m;
  const ttgir::Function& f;

  std::map<int, Desc> descs;            // by desc_key: the op id, or -2 - value id for an argument
  std::map<int, long long> buf_offset;  // buffer id -> byte offset in dynamic smem
  std::map<std::pair<int, int>, long long> ring_offset;  // (loop, ring) -> byte offset
  std::map<int, long long> fn_bar_offset;                // function-scope channel -> offset
  // Function-scope staging buffers that overlay the resident buffers and loop rings (plan_smem).
  std::set<int> overlaid;
  long long smem_bytes = 0;
  // Row vectors held as per-lane partials of a quad sum (plan_quad_partials).
  std::set<int> quad_partials;
  // Blocked column vectors held as per-thread partials of a column sum (plan_col_partials).
  std::set<int> col_partials;
  // Vector loads read where they are used, and the pointer arithmetic only they read, which
  // emits nothing (plan_lazy_loads).
  std::set<int> lazy_loads;
  // Vector loads that could be read at use but are held in registers: loaded where scheduled,
  // from their affine address (bload_at); their pointer arithmetic is folded as well.
  std::set<int> affine_loads;
  std::set<int> folded_ops;
  // Names a value prints as another's (value, age): a loop result as its last yield's variable.
  std::map<int, std::pair<int, int>> alias;
  // Per-warpgroup scratch for blocked reductions across warps and layout conversions, placed
  // after the plan once every role is lowered (kernel.cpp).
  long long scratch_bytes = 0;
  // Warps that hold a blocked tensor of the role being lowered: a warpgroup, or every warpgroup
  // of a cooperative (non-ping-pong) consumer role.
  int blocked_warps = 4;
  int blocked_role = -1;       // the role being lowered (its id)
  std::set<int> role_scratch;  // roles of several warpgroups whose blocked ops use scratch

  // Staging fills (Buffer::fill_op): each one's barriers, a Ring of depth x warpgroups slots
  // (warpgroup w's box j waits on slot w * depth + j % depth), placed by plan_smem.
  std::map<int, long long> fill_offset;              // buffer id -> byte offset
  const sgraph::Buffer* fill_of(int load_op) const;  // the staging a load fills, or nullptr
  std::string fill_ring(int buffer) const;
  int fill_slots(const sgraph::Buffer& b) const { return b.depth * g.launch.warpgroups; }
  // Whether role `role` issues MMAs (TC nodes) in scheduled loop `li` itself (a fill follows
  // the first of them, Expander::defer_fills).
  bool role_issues_mmas(int li, int role) const;

  // The loop the launcher may split over a cluster (Loop::split > 1), -1 = none; its sum's
  // barriers (SplitBars) and the bytes a CTA other than the first writes its share through (the
  // loop's own rings, drained by then), placed by plan_smem (docs/emitter.md, "Split loops").
  int split_loop = -1;
  long long split_bar_offset = -1, split_region = 0, split_region_bytes = 0;
  int split_region_buffer = -1;  // the split loop's buffer the region starts at

  [[noreturn]] void fail(int op, const std::string& msg) const;
  std::string note(int op) const;  // "op 17 tt.descriptor_load"
  const ttgir::Op& op(int id) const { return f.op(id); }
  const ttgir::Type& type(int value) const { return f.value(value).type; }
  std::string ident(int value) const;  // C++ identifier of a value (params keep their name)

  // Graph lookups.
  const sgraph::Buffer* buffer_of(int op) const;  // the buffer whose producer_op is `op`
  int loop_index(int for_op) const;               // -1 if the op is no scheduled loop
  int loop_of_op(int op) const;  // innermost scheduled loop whose body holds the op, -1 at top
  // Phases: top-level loop nests in program order; their rings share the pool (plan_smem).
  int phase_of(int loop) const;  // the phase of a scheduled loop (its outermost ancestor's)
  int phases() const;
  bool later_phase(int op) const;  // a top-level scheduled loop follows the op's top-level op
  const sgraph::Node* node_of(int li, int op) const;
  const sgraph::Role& role(int id) const { return g.launch.roles.at(static_cast<size_t>(id)); }
  std::string ring_name(int loop, int ring) const;
  std::string buf_name(int id) const;
  std::string fn_bar(int channel) const;  // a function-scope channel's barrier expression
  const sgraph::FnChannel* fn_channel_of(int buffer) const;
  // Named barrier ids: 1 + wg per warpgroup, one role-wide, one per ping-pong turn.
  int bar_warpgroup() const { return 1; }  // + warpgroup index
  int bar_role() const { return 1 + g.launch.warpgroups; }
  int bar_turn(int slice) const { return 2 + g.launch.warpgroups + slice; }
};

// Pseudo value references that the expander replaces by text for the instance's iteration
// (docs/emitter.md, "Modulo expander"): the ring-slot counter of the iteration (kind 0), its
// index (kind 1: resolved, though no lowering emits it today), and
// the scale-d of an MMA whose accumulator is a zero init folded away (0 on the first k-step of
// iteration 0, else 1).
constexpr int kPseudo = 1 << 28;
inline Text counter_ref(int loop) { return Text::ref(kPseudo + 3 * loop); }
inline Text fold_scale_ref(int loop) { return Text::ref(kPseudo + 3 * loop + 2); }
inline bool is_pseudo(int value) { return value >= kPseudo; }

// What a lowering produced for one op (a template: references carry no ages yet).
struct Lowered {
  std::vector<Stmt> decls;     // declarations of the op's register results (hoisted in loops)
  std::vector<Stmt> body;      // the op's statements
  bool mma = false;            // issues one wgmma commit group (async until a wait covers it)
  std::vector<Text> mma_regs;  // registers the group reads/writes asynchronously (D, A)
};

class Lower;
using LowerFn = void (*)(Lower& L, const ttgir::Op& op, Lowered& out);

// The op table: every op the emitter lowers, one entry each (optable.cpp). An op missing here
// is an error naming the op and its TTGIR and Python lines.
const std::map<std::string, LowerFn>& op_table();
// Whether the op table lowers `op_name` as elementwise f32 math (tile_map and friends); the op
// form also knows tt.extern_elementwise, elementwise for the libdevice functions it accepts.
bool is_elementwise(const std::string& op_name);
bool is_elementwise(const ttgir::Op& o);
// The operand counts an op kind of the table takes, {min, max} (max -1: any number; {-1, -1}: not
// known here). check_coverage refuses an op outside them at the op, before any lowering reads
// operand i unchecked or prints a lambda of the wrong arity.
std::pair<int, int> operand_range(const std::string& op_name);
// The f32 expression of a float math op over x0, x1, ... (empty: none): the op table's, or a
// libdevice function's call (libdevice.cpp).
std::string float_element_fn(const ttgir::Op& o);
// libdevice's f32 functions the emitter calls, by __nv_ name, with their arity
// (runtime/sched2cu/libdevice.cuh declares exactly these).
const std::map<std::string, int>& libdevice_f32();
// Fails at `o` (a tt.extern_elementwise) unless it calls one of libdevice_f32() on f32 values.
void check_extern(const Ctx& c, const ttgir::Op& o);
// The lambda `[](T x0, T x1, ...) { return body; }` every elementwise lowering passes to a map.
std::string lambda_text(size_t arity, const std::string& param_type, const std::string& body);

// Lowering state of one role: the value model, and the services op lowerings use.
class Lower {
 public:
  Lower(Ctx& ctx, const sgraph::Role& role) : c(ctx), r(role) {}
  Ctx& c;
  const sgraph::Role& r;
  std::map<int, Val> vals;
  std::set<int> fn_waited;      // function-scope channels this role has waited for
  std::set<int> smem_declared;  // TMA-loaded tiles whose register copy is declared
  bool stores_in_flight = false;
  bool fn_stores_pending = false;  // a function-scope store before a later phase is in flight
  bool role_synced = false;
  bool overlay_synced = false;  // a warpgroup barrier before an overlay of its own rows only
  // Staging fills a loop issues inside the inner loop that follows them (expander.cpp): inner
  // loop index -> the fill's statements, emitted after that loop's first MMA of iteration 1.
  std::map<int, std::vector<Stmt>> fills_in_loop;
  // Box mode (staged.cpp): operands are read for one box of box_w columns, box index box_ix.
  int box_w = 0;
  Text box_ix;

  // Lowers one op through the table (or fails with its location).
  Lowered lower(int op);
  const Val& val(int value, int op) const;  // fails with `op` when the value is unknown
  bool has(int value) const { return vals.count(value) != 0; }
  void set(int value, Val v) { vals[value] = std::move(v); }
  // Rows of a tile per warpgroup of this role (split along rows); fails otherwise.
  int split_rows(int rows, int op) const;
  bool split() const { return r.split_parts > 1; }
  // The layout kind a tensor type has in registers, from its encoding (Acc, Row, Col, DotA).
  Val from_type(int value, int op) const;
  // C++ type of a register value ("AccTile<64, 128>", "RowVec<64>", "float").
  std::string ctype(const Val& v, int op) const;
  // The operand adapter text of `value` read at each element of a result of layout `res`.
  Text operand(int value, Lay res, int op) const;
  Text whole_operand(int value, Lay res, int op) const;  // operand() outside box mode
  // A ring slot (or resident buffer) base address expression for a buffer.
  Text slot_addr(const sgraph::Buffer& b) const;
  // The protocol checker's view of an access to buffer b's slot of the current iteration (a
  // ring slot, or the resident buffer).
  Access slot_access(const sgraph::Buffer& b, Access::Engine e, bool write) const;
  // An access to `bytes` at byte `offset` of staging buffer b.
  static Access staging_access(const sgraph::Buffer& b, Text offset, long long bytes,
                               Access::Engine e, bool write);
  // The smem buffer a memdesc value views.
  const sgraph::Buffer& smem_of(int value, int op) const;
};

// --- scalar.cpp ---------------------------------------------------------------------------------
std::string scalar_ctype(const Ctx& c, const ttgir::Type& t, int op);
bool is_scalar_op(const Ctx& c, int op);
Text scalar_expr(Lower& L, const ttgir::Op& o);  // the right-hand side of a scalar op
// The expression of a scalar-kind op (arith.cmpi, addi, select, ...) over operand texts arg(i),
// its result of C++ type `ty`: scalar math, and elementwise math written per element.
Text element_expr(const Ctx& c, const ttgir::Op& o, const std::string& ty,
                  const std::function<Text(size_t)>& arg);
// Index and predicate tiles of the accumulator layout (acc_expr.cpp): whether `o` makes one, or
// is an arith.select onto an f32 accumulator tile, and their lowering.
bool acc_expr_op(const Lower& L, const ttgir::Op& o);
void lower_acc_expr(Lower& L, const ttgir::Op& o, Lowered& out);
// The same expression over lambda parameters x0, x1, ... (elementwise ops on tensors of any
// element type; `ty` is the result's C++ element type).
std::string element_expr(const Ctx& c, const ttgir::Op& o, const std::string& ty);
// The unsigned C++ type of an integer type's width (unsigned ops read their operands as it).
std::string unsigned_ctype(const ttgir::Type& t);
std::string host_expr(const Ctx& c, int value, int user_op);
// Whether host_expr computes `value` (kernel arguments, constants and their integer arithmetic).
bool host_computable(const Ctx& c, int value);
std::string float_literal(const Ctx& c, const ttgir::Attribute& a, int op);
bool is_zero_literal(const ttgir::Attribute& a);
std::string cuda_elem(const Ctx& c, const std::string& elem, int op);  // "__half"
int elem_bytes(const std::string& elem);
int swizzle_of(const Ctx& c, const ttgir::Type& t, int op);
bool layout_transposed(const Ctx& c, const ttgir::Type& t, int op);

// --- overlay.cpp
// Byte spans [start, end) of dynamic shared memory.
using Spans = std::vector<std::pair<long long, long long>>;
// How a row-split, K-major wgmma A tile lies in shared memory (lower_mma.cpp addresses it so):
// `boxes` swizzle boxes of `box` bytes (all rows, `swizzle` bytes each), warpgroup k's rows the
// `slab` bytes at k · slab of every box. Nothing when the tile is not whole boxes.
struct RowSlabs {
  long long box = 0, slab = 0, boxes = 0;
};
std::optional<RowSlabs> row_slabs(long long tile_bytes, long long rows, long long rows_per_slice,
                                  int swizzle);
// The bytes of resident buffer `b` that warpgroup `slice` of role `r` reads, when every reader
// is a wgmma of `r` taking it as its row-split, K-major A operand (each warpgroup its own rows);
// nothing otherwise.
std::optional<Spans> slice_rows(const Ctx& c, const sgraph::Buffer& b, const sgraph::Role& r,
                                int slice);
// Whether staging bytes `mine` of warpgroup `slice` of role `r` overlap nothing that another
// warpgroup may still access once this one's loops are done (no role-wide barrier needed).
bool overlay_private(const Ctx& c, const sgraph::Role& r, int slice, const Spans& mine);

// --- exchange.cpp
// A convert_layout whose result buffer `b` (Ctx::buffer_of) is a register exchange: the tile
// written to the ring slot, fenced and committed; the result is the slot.
void lower_exchange(Lower& L, const ttgir::Op& o, const sgraph::Buffer& b, Lowered& out);
void lower_trans(Lower& L, const ttgir::Op& o, Lowered& out);  // tt.trans: a view
// tt.trans of an accumulator reshaped for its column halves (acc_split.cpp); false for any other.
bool lower_halves_trans(Lower& L, const ttgir::Op& o, Lowered& out);

// --- lower_mem.cpp
// --------------------------------------------------------------------------------
Desc& desc_of(Ctx& c, const ttgir::Op& o);  // the descriptor a TMA op uses (operand 0)
// Whether a function-scope descriptor store follows top-level op `op` (the last one's storing
// thread drains every bulk group it issued before exit).
bool later_fn_store(const Ctx& c, int op);
int64_t inner_box(const Ctx& c, const Desc& d, int op);
void fix_box(Ctx& c, Desc& d, std::vector<int64_t> box, int op);
// blocked_ops.cpp: a blocked tile stored through staging buffer `b` and TMA.
void store_blocked_tile(Lower& L, const ttgir::Op& o, Desc& d, const Val& v,
                        const sgraph::Buffer& b, bool in_loop, std::vector<Stmt>& blk);
// staged.cpp: a register load that fills its store's staging (Ctx::fill_of), and the store of
// a staged value box by box (the chain evaluated per box, each box refilled once stored).
void lower_fill(Lower& L, const ttgir::Op& o, const sgraph::Buffer& b, Lowered& out);
void store_staged(Lower& L, const ttgir::Op& o, Desc& d, const Val& v, const sgraph::Buffer& b,
                  bool in_loop, std::vector<Stmt>& blk);
// store_ring.cpp: a tile stored or reduce-added every iteration of a loop through a ring of
// whole-tile staging slots (staging buffer b of depth >= 2 holding the whole tile).
// The TMA copy a 2-D store op issues per box: "tma_store_2d", or for tt.descriptor_reduce
// "tma_reduce_add_2d" after checking its kind (add) and element type (f32, f16, bf16: what a
// tensor map's reduce-add takes). Every store path asks here, so that no path can issue a plain
// store for a reduce (the blocked-tile path did: `desc.atomic_add` of an f16 tile stored it).
std::string tma_copy_2d(const Ctx& c, const ttgir::Op& o, const Desc& d);
bool is_tile_ring(const Lower& L, const ttgir::Op& o, const Val& v, const sgraph::Buffer& b);
void store_tile_ring(Lower& L, const ttgir::Op& o, Desc& d, const Val& v, const sgraph::Buffer& b,
                     std::vector<Stmt>& blk);

// --- plan.cpp
// -------------------------------------------------------------------------------------
void plan_descriptors(Ctx& c);
void plan_smem(Ctx& c);

// --- values.cpp
// ----------------------------------------------------------------------------------
// Whether a layout's `parent` is the wgmma accumulator layout (row/column slices, dot operands).
bool has_mma_parent(const Ctx& c, const ttgir::Type& t);
// A #ttg.linear layout equal to the accumulator layout of its [R, C] tile (warps along the rows).
bool is_acc_linear(const Ctx& c, const ttgir::Type& t);
// The key of c.descs for a descriptor value (the op id, or -2 - value id for an argument), -1
// when it is neither a tt.make_tensor_descriptor nor a tensor descriptor argument.
int desc_key(const Ctx& c, int value);
// The warpgroups an #nvidia_mma tile is split over along its columns (warpsPerCTA[1]).
int mma_col_warps(const Ctx& c, const ttgir::Type& t, int op);

// --- blocked.cpp / blocked_ops.cpp
// -------------------------------------------------------------------------------------
bool is_blocked_type(const Ctx& c, const ttgir::Type& t);  // #ttg.blocked or a slice of one
// An accumulator-layout row vector or N x 1 tile held in the blocked world (MRowLay).
bool is_mma_row(const Ctx& c, const ttgir::Type& t, bool any_elem);
std::string elem_ctype(const Ctx& c, const ttgir::Type& elem, int op);
// The statement that completes a deferred column sum in place (lanes, then warps).
Stmt reduce_col_partial(Lower& L, const Val& v, int op);
Val blocked_val(const Ctx& c, int value, int op);  // a blocked tensor's layout from its type
std::string blocked_ctype(const Val& v);
bool same_distribution(const Val& a, const Val& b);
bool is_blocked_lay(Lay l);
// The bytes of a C++ element type, and `bytes` of the role's shared scratch per warpgroup as a
// `cty*` expression (blocked_ops.cpp).
int cty_bytes(const std::string& t);
Text scratch(Ctx& c, long long bytes, const std::string& cty);
// ttg.convert_layout of a blocked value, and tt.trans of a blocked tile (blocked_convert.cpp).
void b_convert(Lower& L, const ttgir::Op& o, Lowered& out);
void b_trans(Lower& L, const ttgir::Op& o, Lowered& out);
// Whether `o` works on blocked values (its results or operands), and its lowering there.
bool blocked_op(const Lower& L, const ttgir::Op& o);
void lower_blocked(Lower& L, const ttgir::Op& o, Lowered& out);
void lower_atomic(Lower& L, const ttgir::Op& o, Lowered& out);  // blocked_atomic.cpp
void b_reduce(Lower& L, const ttgir::Op& o, Lowered& out);      // blocked_reduce.cpp
void b_scan(Lower& L, const ttgir::Op& o, Lowered& out);        // blocked_reduce.cpp
// The adapter through which a blocked result of layout `res` reads operand `value`.
Text adapter(const Lower& L, int value, const Val& res, int op);
// The longest run of column slots a pointer tile `p` moves as one vector of `data`'s elements.
int run_of(const Val& p, const Val& data);
// The named barrier of a blocked op's threads: its warpgroup's, or the role's when the layout
// spans several warpgroups.
Text blocked_bar(const Ctx& c);
// A tile a TMA load of another role leaves in ring slot `b`: this role reads it where first used
// (blocked_smem.cpp, as are materialize_smem_tiles and store_blocked_tile).
void bind_smem_tile(Lower& L, int load_op, const sgraph::Buffer& b);
// Reads of TMA-loaded tiles an op needs before it runs (bind_smem_tile), into `out`.
void materialize_smem_tiles(Lower& L, const ttgir::Op& o, Lowered& out);

// --- partial.cpp
// ----------------------------------------------------------------------------------
// Decides Ctx::quad_partials: row sums whose quad shuffles wait until after their loop.
void plan_quad_partials(Ctx& c);
// Decides Ctx::col_partials: column sums of blocked tiles whose reduction across lanes and warps
// waits until after the loop they accumulate in (once per run of it, not once per iteration).
void plan_col_partials(Ctx& c);
// Decides Ctx::lazy_loads, Ctx::affine_loads and Ctx::folded_ops (lazy_loads.cpp).
void plan_lazy_loads(Ctx& c);
// The address of element 0 of a lazy load's vector, from its affine pointer operand.
Text lazy_base(const Lower& L, int ptr, int op);
// A splat's scalar as text (a pointer splat cast to its pointer type), and a make_range's start
// in layout `v` (blocked_ops.cpp).
Text splat_text(const Val& v);
Text range_start(const Lower& L, const Val& v, long long start);

// --- expander.cpp --------------------------------------------------------------------------------
// The role's statements for scheduled loop `li` (nested loops recursively): declarations, trip
// count, prologue / steady state / drain from each node's stage and cycle, the ring protocol,
// wgmma waits derived from the graph and ping-pong turns.
std::vector<Stmt> expand_loop(Lower& L, int li);
// Whether the role has any work in loop `li` or the loops nested in it.
bool role_works_in(const Lower& L, int li);

// Split loops (split.cpp; docs/emitter.md, "Split loops"). The trip count of loop `li` as this
// CTA runs it, given all its iterations `full`: the split loop's share (its first iteration is
// declared into `out` as `kb`), the split loop's parent's count (split_outer), else `full`.
Text split_trip(const Ctx& c, int li, const Text& full, const std::string& kb,
                std::vector<Stmt>& out);
// After the split loop, in the role that holds its results: their sum across the cluster.
Stmt split_sum(const Ctx& c, const sgraph::Role& r, int li, const std::vector<Text>& vals);
// The kernel head's part: cluster rank and size, the sum's phase counter (into `head`), the
// barriers' init (into `init`), and the wait that makes every CTA's inits visible to its peers
// (into `after_sync`).
void split_head(const Ctx& c, std::vector<Stmt>& head, std::vector<Stmt>& init,
                std::vector<Stmt>& after_sync);
// Every statement that writes global memory runs in the cluster's first CTA only.
void split_guard_writes(std::vector<Stmt>& body);

// --- kernel.cpp / host.cpp
// ------------------------------------------------------------------------
std::vector<Stmt> lower_kernel(Ctx& c);  // the __global__ function body, names resolved
std::string lower_host(Ctx& c, const std::string& kernel_name);
std::string kernel_signature(Ctx& c, const std::string& kname);

}  // namespace sched2cu::emit
