// Internal interface of the per-role modulo expander (expander.cpp): its events, the static
// instances it emits, and the Expander class, shared by expander.cpp (events, placement,
// emission), waits.cpp (wgmma waits and the steady state's origin) and storage.cpp (tile storage
// reuse). Nothing outside the expander includes it.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lower.h"

namespace sched2cu::emit::detail {

using sgraph::Loop;
using sgraph::Node;

// Whether role L has work in scheduled loop `li` or the loops nested in it (role_inputs.cpp).
bool works_in(const Lower& L, int li);
// Values an op reads that are defined outside it (its operands and its regions' free values).
std::vector<int> free_values(const ttgir::Function& f, int op);
// The values from outside scheduled loop `li` that role L's work in it reads: the loop's bounds
// and what its own ops (and the replicated or scalar ops it recomputes) read, in nested loops
// too. Another role's register math inside the loop is not this role's input.
std::vector<int> role_free_values(const Lower& L, int li);

struct Event {
  // WaitEmpty alone: a "store" channel's producer (a register exchange) waits for the slot and
  // commits from its own op; a TMA producer's WaitEmptyArm arms the slot for its copies.
  enum class Kind { Op, WaitFull, WaitEmptyArm, WaitEmpty, Release } kind = Kind::Op;
  int node = -1;  // Op
  int ring = -1;  // ring events
  long long t = 0;
  int stage = 0;
  long long pos = 0;
  int rank = 1;                  // tie break at equal cycles: waits/arms 0, ops 1, releases 2
  Lowered low;                   // Op
  std::vector<int> mma_readers;  // Release: MMA nodes reading the slot
  long long bytes = 0;           // WaitEmptyArm
};

// One statically emitted event instance: a section step (prologue p, steady state, drain e) and
// the event, or -1 for the step's carry shifts.
struct SInst {
  int sec = 0;  // 0 prologue, 1 steady state, 2 drain
  int step = 0;
  int ev = -1;
};

struct Req {
  int mma;   // node
  int back;  // the MMA instance was issued `back` steps before (iteration = step - back - stage)
};

class Expander {
 public:
  Expander(Lower& L, int li) : L_(L), c_(L.c), li_(li), loop_(c_.g.loops.at(li)) {}
  std::vector<Stmt> run();
  std::vector<Stmt> decls;  // what run() declared (a nested loop's are hoisted by its parent)

 private:
  Lower& L_;
  Ctx& c_;
  const int li_;
  const Loop& loop_;
  ttgir::ForLoop fl_;
  std::vector<int> nodes_;  // included node ids, op order
  long long release_time(long long last, const std::vector<int>& mma_readers) const;
  std::map<int, int> node_stage_;  // node -> normalized stage
  std::map<int, int> def_node_;    // value -> defining node (results of included nodes)
  std::map<int, int> yield_of_;    // iter_arg -> yielded value
  std::map<int, int> max_age_;     // value -> largest age read
  std::set<int> cross_step_;       // values read in a later step from their own variable
  std::vector<Event> ev_;
  int S_ = 1;
  int ref_iters_ = -1;  // while the reference loop is emitted: the most iterations it runs
  long long ii_ = 1;
  std::vector<int> order_;  // event indices in body order
  std::string k_, T_, it_;  // names of the step variable, trip count, ring counter base
  std::string kb_;  // a split loop's first iteration in this CTA (split.cpp), "" = not split

  const Node& node(int id) const { return loop_.nodes.at(static_cast<size_t>(id)); }
  [[noreturn]] void fail(const std::string& msg) const { c_.fail(loop_.op, msg); }

  void select_nodes();
  // Index math recomputed before each reader instead of carried (remat.cpp); returns the nodes
  // taken out of the schedule's events (their declarations stay).
  std::vector<int> rematerialize_index_math();
  std::vector<int> remat_;
  void lower_nodes(std::vector<Stmt>& pre);
  void make_events();
  void place(long long origin, bool sequential);
  void collect_ages();  // instantiates every static instance once (learns carried ages)
  // Removes a step's store drains that an earlier full drain of the same step already covers.
  void drop_repeated_store_drains(std::vector<Stmt>& out) const;
  // Elementwise tile math written into the registers of the tile it consumes when the emitted
  // order allows (storage.cpp); returns the values that now print as another's variable.
  std::set<int> share_tile_storage();
  long long choose_origin(const std::map<int, int>& waits) const;
  // Iteration index of an instance of stage s in section/step, as text and its least value.
  Text iter_text(const SInst& si, int s) const;
  long long iter_min(const SInst& si, int s) const;
  std::vector<Stmt> instantiate(std::vector<Stmt> body, const SInst& si, int s);
  int age_of(int value, int s_use) const;
  // What a reference to `value` in a stage-s_use instance of event `reader` (nullptr: a carry
  // shift) reads: (value, age), iter_args resolved to the
  // previous iteration's yield; age INT_MIN for values from outside the loop. A read one step
  // after the definition that comes before the definition in the step reads the variable itself
  // (age 0): there it still holds the previous step's value, which is what its copy holds.
  std::pair<int, int> read_of(int value, int s_use, const Event* reader = nullptr) const;
  // f(referenced value, value read, age) for every loop-defined register reference in `body`.
  void for_each_read(const std::vector<Stmt>& body, int s_use,
                     const std::function<void(int, int, int)>& f,
                     const Event* reader = nullptr) const;
  std::map<int, int> rank_;       // event index -> place in the step's order (place())
  std::map<int, int> def_event_;  // node -> its Op event index
  std::vector<SInst> section(int sec, int step) const;
  std::vector<Stmt> emit_step(const std::vector<SInst>& insts, const std::map<int, int>& waits,
                              const std::map<int, std::vector<Text>>& fences);
  void derive_waits(std::map<int, int>& waits, std::map<int, std::vector<Text>>& fences,
                    bool& end_wait, std::vector<Text>& end_fence);
  std::vector<Req> requirements(const SInst& si) const;
  std::vector<std::pair<int, int>> writes(const SInst& si) const;  // (value, age)
  std::vector<std::pair<int, int>> mma_regs(int node) const;       // issue-time variables
  std::map<std::pair<int, int>, std::vector<SInst>> sinst_index_;
  std::vector<SInst> all_;          // every static instance, in emission order
  std::map<int, Lowered> lowered_;  // node -> its template
  // A staging fill of the enclosing loop issued in this loop (docs/emitter.md, "Staged epilogue
  // operands"), right after the instance of anchor node fill_anchor_ of iteration min(1, T - 1).
  std::vector<Stmt> fills_;
  int fill_anchor_ = -1;
  void defer_fills(std::set<int>& deferred);  // this loop's fills, into their inner loops
  int sid(const SInst& si) const;
};

}  // namespace sched2cu::emit::detail
