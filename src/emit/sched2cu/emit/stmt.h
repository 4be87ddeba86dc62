// The emitter's statement IR: a tree of typed statements whose operands refer to IR values by
// id (never by printed name). Lowering builds statement templates once per op; the modulo
// expander instantiates them per pipeline stage by giving each value reference an age (which
// carried copy it reads); names are resolved only when printing. Synchronization and async
// operations are their own statement kinds, so what is printed is also what a protocol checker
// can read. Lowering code must never edit printed text.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace sched2cu::emit {

// Text with value references: literal pieces and references to IR values. A reference prints as
// the value's C++ name; age a > 0 names the copy carried from a loop steps ago ("x_c1").
class Text {
 public:
  struct Piece {
    std::string s;   // literal text (value < 0)
    int value = -1;  // referenced IR value id
    int age = 0;
  };
  Text() = default;
  Text(const char* s) { add(s); }         // NOLINT(google-explicit-constructor)
  Text(const std::string& s) { add(s); }  // NOLINT(google-explicit-constructor)
  static Text ref(int value, int age = 0);
  Text& operator+=(const Text& o);
  bool empty() const { return pieces_.empty(); }
  const std::vector<Piece>& pieces() const { return pieces_; }
  std::vector<Piece>& pieces() { return pieces_; }
  // Calls f on every reference (e.g. to set ages).
  void for_each_ref(const std::function<void(Piece&)>& f);

 private:
  void add(const std::string& s);
  std::vector<Piece> pieces_;
};
Text operator+(Text a, const Text& b);
inline Text R(int value) { return Text::ref(value); }
std::string S(long long v);  // decimal text

// A shared-memory access a statement makes (the protocol checker's view of it, src/verify):
// which engine touches which bytes of which schedule-graph buffer. A ring slot is named by the
// ring and the iteration counter (slot = counter % depth, round = counter / depth, the slot's
// `bytes` at slot * bytes); any other access by its byte offset in the buffer and its length.
struct Access {
  enum class Engine { Generic, Tma, Mma };
  Engine engine = Engine::Generic;
  bool write = false;
  int buffer = -1;
  std::string ring;  // non-empty: a ring slot; `index` is the iteration counter
  int depth = 1;     // the ring depth the statement assumes
  Text index;        // ring: the iteration counter
  Text offset;       // otherwise: the first byte accessed, from the buffer's start ("" = 0);
                     // for a ring slot: from the slot's start (a part of the slot)
  long long bytes = 0;
  long long slot_bytes = 0;  // a ring slot's size when `bytes` is only a part of it (0: bytes)
  // Otherwise, for a staging box a fill loads (docs/emitter.md, "Staged epilogue operands"):
  // the fill's round, which the TMA copy completes and a read must have waited for ("" = 0).
  Text round;
};

struct Stmt {
  enum class Kind {
    Comment,  // text (no references)
    Code,     // text: one statement
    Decl,     // type, var (a reference), init (optional), is_const: a declaration
    Block,    // body in braces
    If,       // cond; body; else_body (one_line: `if (c) s; else t;` of two one-line bodies)
    For,      // init; cond; step; body
    // Ring protocol (docs/schedule_graph.md): ring = the Ring<N>* name, depth = N, ctr = the
    // iteration counter expression of the slot.
    WaitFull,    // every thread waits for the slot's data
    WaitEmpty,   // the producer waits for the slot to be free
    Arm,         // arrive.expect_tx on full[slot] with `bytes`
    Release,     // one arrival per warp on empty[slot]
    Commit,      // one arrival per warp on full[slot], after the warp's ordinary stores into the
                 // slot and their fence.proxy.async (a "store" channel: a register exchange)
    RingInit,    // ring, depth, full / empty: the arrivals each phase of its barriers counts
    BarInit,     // bar: a single mbarrier initialized for `bytes` arrivals
    InitFence,   // mbarrier inits visible to the async proxy
    CtaSync,     // __syncthreads(): every thread of the CTA
    BarWait,     // a single mbarrier (bar) waited at parity `bytes` (function-scope buffers)
    BarArm,      // arrive.expect_tx on a single mbarrier (bar) with `bytes`
    TmaLoad,     // body: the copies (printed inline); bar: the barrier they complete on;
                 // bytes: what the copies deliver; mem: the slot they write
    TmaStore,    // body: the store(s) and the bulk-group commit (printed inline); mem: the
                 // staging they read (asynchronously, until a BulkWait covers the group)
    MmaIssue,    // body: the wgmma group (fence, k-steps, commit), printed inline; acc: the
                 // register operands it reads or writes asynchronously until a wait covers it;
                 // mem: the shared-memory operands it reads
    MmaWait,     // wgmma.wait_group `pending`; fence: the register operands to fence afterwards
    BulkWait,    // cp.async.bulk.wait_group(.read when is_const) `pending`: TMA store groups
    ProxyFence,  // fence.proxy.async: generic-proxy writes before async-proxy reads
    NamedSync,   // bar.sync `bar_id` (or the expression bar), `threads`
    NamedArrive,
    WarpgroupSync,  // bar.sync on barrier `bar` for the 128 threads of one warpgroup
    // A loop's trip count: `const type var = init;` for loop `loop` (the checker may bind it).
    TripCount,
    // A statement with only a memory effect (mem) and plain text: a register read of a slot
    // or a generic-proxy write of staging, printed as text.
    MemCode,
    // A split loop's sum across the CTAs of a cluster (split_sum, docs/emitter.md "Split
    // loops"), printed as `text`. `cond`: how many CTAs share the loop; when more than one, the
    // cluster's first CTA joins named barrier `bar_id` of `threads` threads, then writes and reads
    // back `mem` (the region the sum passes through) with generic-proxy accesses.
    ClusterSum,
    // cond; body: the statements that give a loop's folded accumulators their init values after
    // a loop that ran no iteration; split_zero_trip() replaces it. Never printed.
    ZeroTripSplit,
    // Where a zero-trip split's duplicated statements end: the start of the next phase (a
    // top-level loop nest), whose code does not depend on the earlier loop's trip count. Never
    // printed.
    SplitEnd,
  };
  Kind kind = Kind::Comment;
  std::string note;  // printed as a trailing comment: the graph element it lowers
  Text text, cond, init, step, type, var;
  Text guard;  // non-empty: a one-line statement printed as `if (guard) <statement>`
  // Writes global memory (a pointer store or atomic): a split kernel runs it in its cluster's
  // first CTA only (split_guard_writes).
  bool global_write = false;
  bool is_const = false;
  bool one_line = false;
  std::string ring;
  Text ctr, bar;
  long long bytes = 0;
  int pending = 0, bar_id = 0, threads = 0;
  int depth = 0, full = 0, empty = 0, loop = -1;
  // BulkWait in loop `loop`: -n when it only waits for the stores of iteration i - n (needless in
  // the loop's first n iterations), +1 when only for the next iteration's (needless in its last).
  int iter_dep = 0;
  std::vector<Text> acc, fence;
  std::vector<Access> mem;
  std::vector<Stmt> body, else_body;

  // Every Text of this statement (not of its children), for reference rewriting.
  std::vector<Text*> texts();
  std::vector<const Text*> texts() const;
};

// Constructors (the only way lowering code makes statements).
Stmt comment(const std::string& text);
Stmt code(Text text, std::string note = "");
Stmt decl(Text type, int value, Text init = {}, bool is_const = false, std::string note = "");
// A declaration of a variable no IR value names (a program id, a ring counter).
Stmt named_decl(Text type, const std::string& name, Text init, bool is_const,
                std::string note = "");
Stmt block(std::vector<Stmt> body, std::string note = "");
Stmt if_(Text cond, std::vector<Stmt> body, std::string note = "",
         std::vector<Stmt> else_body = {});
Stmt for_(Text init, Text cond, Text step, std::vector<Stmt> body, std::string note = "");
Stmt ring_op(Stmt::Kind k, std::string ring, int depth, Text ctr, std::string note,
             long long bytes = 0);
Stmt ring_init(std::string ring, int depth, int full, int empty, std::string note);
Stmt bar_op(Stmt::Kind k, Text bar, long long value, std::string note);
Stmt tma_op(Stmt::Kind k, std::vector<Stmt> body, Text bar, std::string note,
            std::vector<Access> mem = {}, long long bytes = 0);
Stmt mma_issue(std::vector<Stmt> body, std::vector<Text> acc, std::string note,
               std::vector<Access> mem = {});
Stmt mma_wait(int pending, std::vector<Text> fence, std::string note);
Stmt named_bar(Stmt::Kind k, int id, int threads, std::string note);
Stmt named_bar(Stmt::Kind k, Text id, int threads, std::string note);
Stmt warpgroup_sync(Text bar, std::string note = "");
Stmt bulk_wait(int pending, bool read, std::string note = "");
// The note of the bulk wait before a kernel exits. Only the shared-memory reads of its TMA
// stores must finish while the CTA's shared memory exists; their global writes are visible once
// the grid completes (CUTLASS's and FlashAttention-3's epilogues end the same way), and the next
// CTA on the SM starts without waiting for them. Only a kernel that reads back what it stored
// would need the full wait, and that wait would stand before the read, not at the exit.
inline constexpr const char* kExitWait =
    "staging read before exit; the writes land by the grid's end";
Stmt sync_op(Stmt::Kind k, std::string note = "");  // InitFence, CtaSync, ProxyFence
Stmt bar_init(Text bar, int count, std::string note);
Stmt trip_count(Text type, Text var, Text init, int loop, std::string note);
Stmt mem_code(Text text, Access a, std::string note = "");
Stmt cluster_sum(Text text, Text share, int bar_id, int threads, std::vector<Access> region,
                 std::string note);
Stmt guarded(Text guard, Stmt s);  // s printed as `if (guard) s`
Stmt zero_trip_split(Text cond, std::vector<Stmt> fills, std::string note);
Stmt split_end();

// Every statement of `body` (recursively, children after their parent).
void for_each_stmt(std::vector<Stmt>& body, const std::function<void(Stmt&)>& f);
void for_each_stmt(const std::vector<Stmt>& body, const std::function<void(const Stmt&)>& f);

// Applies f to every reference in s (recursively).
void for_each_ref(Stmt& s, const std::function<void(Text::Piece&)>& f);

// Resolves every ZeroTripSplit in `body` (recursively) by tail duplication: the statements after
// the marker run once with the init fills (the loop ran no iteration) and once without. The
// accumulator registers are thus never redefined on one path only before a merge, which made
// ptxas spill a 64x256 accumulator, and never selected element by element.
void split_zero_trip(std::vector<Stmt>& body);

// Prints statements at `indent` spaces; `name(value, age)` resolves references.
using Namer = std::function<std::string(int value, int age)>;
void print(const std::vector<Stmt>& body, int indent, const Namer& name, std::string& out);
std::string render(const Text& t, const Namer& name);
// Replaces every reference in `body` (recursively) by its printed name: the statements become
// self-contained text, printed the same with any namer (what the protocol checker reads).
void resolve_names(std::vector<Stmt>& body, const Namer& name);
// After resolve_names: removes the declarations of scalars nothing reads (a descriptor's shape
// operand that only the host needs, a program id of an unused grid axis, a ring counter of a
// role with no work in that loop), which nvcc would report as warnings. Only a declaration whose
// initializer is pure (casts and literals, no other call) goes; it repeats until none is left.
void drop_unused_decls(std::vector<Stmt>& body);

}  // namespace sched2cu::emit
