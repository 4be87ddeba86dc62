// The emitter's statement IR: a small tree of typed statements (loops, ifs, ring waits and
// arrivals, expect-tx, TMA loads and stores, wgmma groups, plain compute) built by the lowering
// and printed as CUDA only at the very end. Every statement carries the schedule-graph node (or
// op) it came from, printed as a comment. Lowering code must never edit printed text; it builds
// statements.
#pragma once

#include <string>
#include <vector>

namespace sched2cu::emit {

struct Stmt {
  enum class Kind {
    Comment,    // text
    Code,       // text: one compute statement or declaration, printed verbatim
    Block,      // body in braces
    If,         // cond; body; else_body
    For,        // init; cond; step; body
    WaitFull,   // ring, it
    WaitEmpty,  // ring, it
    Arm,        // ring, it, bytes: arrive.expect_tx on full[slot]
    Release,    // ring, it: one arrival per warp on empty[slot]
    Commit,     // ring, it: one arrival per warp on full[slot]
    TmaLoad,    // map, dst, ring, it, coords
    TmaStore,   // map, src, coords
    MmaGroup,   // acc, n, ta, tb, major_a, major_b, desc_a, desc_b, ksteps, scale
    MmaWait,    // pending
    // cond; body: the statements that give the loop's accumulators their init values. Marks
    // the end of a loop whose accumulators skip their init (zero folded into scale-d);
    // split_zero_trip() replaces it and the rest of its block by
    // `if (cond) { body; rest } else { rest }`. Never printed.
    ZeroTripSplit,
  };
  Kind kind = Kind::Comment;
  std::string note;  // "node 3 (op 17 tt.descriptor_load)": which graph element it lowers
  std::string text, cond, init, step;
  std::string ring, it, bytes, map, ptr, acc, ta, tb, major_a, major_b, desc_a, desc_b, scale;
  int n = 0, ksteps = 0, pending = 0;
  std::vector<std::string> coords;
  std::vector<Stmt> body, else_body;
};

// Constructors (the only way lowering code makes statements).
Stmt comment(std::string text);
Stmt code(std::string text, std::string note = "");
Stmt block(std::vector<Stmt> body, std::string note = "");
Stmt if_(std::string cond, std::vector<Stmt> body, std::string note = "",
         std::vector<Stmt> else_body = {});
Stmt for_(std::string init, std::string cond, std::string step, std::vector<Stmt> body,
          std::string note = "");
Stmt wait_full(std::string ring, std::string it, std::string note);
Stmt wait_empty(std::string ring, std::string it, std::string note);
Stmt arm(std::string ring, std::string it, int bytes, std::string note);
Stmt release(std::string ring, std::string it, std::string note);
Stmt commit(std::string ring, std::string it, std::string note);
Stmt tma_load(std::string map, std::string dst, std::string ring, std::string it,
              std::vector<std::string> coords, std::string note);
Stmt tma_store(std::string map, std::string src, std::vector<std::string> coords, std::string note);
Stmt mma_wait(int pending, std::string acc, std::string note);
Stmt zero_trip_split(std::string cond, std::vector<Stmt> fills, std::string note);

// Resolves every ZeroTripSplit in `body` (recursively) by tail duplication: the statements after
// the marker run once with the init fills (the loop ran no iteration) and once without. The
// accumulator registers are thus never redefined on one path only before a merge, which made
// ptxas spill a 64x256 accumulator, and never selected element by element.
void split_zero_trip(std::vector<Stmt>& body);

// Prints statements at `indent` spaces.
void print(const std::vector<Stmt>& body, int indent, std::string& out);

}  // namespace sched2cu::emit
