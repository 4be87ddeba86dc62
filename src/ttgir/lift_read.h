// The reading half of lifting pointer tiles (sched2cu/ttgir/lift.h): a load's or store's pointer
// tile, mask and loop step read as an affine tile over a tensor with known extents, and the proof
// that wrapped rows reach no output. Private to src/ttgir; reads the IR, never edits it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ttgir::lift {

struct Index {  // [start +] arange(0, n) [% wrap]
  ValueId start = kNoId;
  int64_t n = 0;
  ValueId wrap = kNoId;
  bool operator==(const Index&) const = default;
};
struct Term {  // index along dim, times stride (kNoId: the constant 1)
  int dim = 0;
  Index idx;
  ValueId stride = kNoId;
};
struct Cond {  // index along dim < bound
  int dim = 0;
  Index idx;
  ValueId bound = kNoId;
};
struct Fail {
  std::string why;
};

struct Tile {  // an analyzed load or store
  OpId op = kNoId;
  ValueId base = kNoId;
  ValueId row_stride = kNoId;
  // A column stride given at launch (a kernel argument): the descriptor's innermost stride, which
  // the launcher requires to be 1 (kNoId: the constant 1).
  ValueId col_stride = kNoId;
  Index idx[2];
  ValueId extent[2] = {kNoId, kNoId};
  int step_dim = -1;  // the dimension a loop-carried pointer advances along
  ValueId step = kNoId;
  int64_t step_const = 0;
  OpId loop = kNoId;
  std::vector<int64_t> shape;
  std::string elem;  // the pointee type ("f16")
  int bits = 0;
};

class TileReader {
 public:
  explicit TileReader(const Function& f) : f_(f) {}
  // The load (is_load) or store `op` as a tile of a tensor; throws Fail with the reason.
  Tile analyze(OpId op, bool is_load) const;
  // The stores (and tt.atomic_rmw ops) an MMA result reaches through elementwise ops and the
  // accumulator's loop; with `stop`, the names of the first ops that are neither.
  std::vector<OpId> reached_stores(ValueId from, std::vector<std::string>* stop) const;
  // Throws Fail unless every wrapped index of load `t` reaches only stores in `stores` bounded
  // by the same extent from the same start.
  void prove_wraps(const Tile& t, const std::vector<Tile>& stores) const;
  std::optional<int64_t> const_int(ValueId v) const;

 private:
  const Op* def(ValueId v) const { return f_.def_op(v); }
  std::string name(ValueId v) const { return f_.value(v).name; }
  // The scalar a tensor splats (kNoId if it is no splat), narrowed.
  ValueId splat_of(ValueId v) const;
  // f_.through_sign_extensions(v): the values lifting compares and uses are the 32-bit ones.
  ValueId narrow(ValueId v) const;
  Index index(ValueId v) const;
  void offsets(ValueId v, std::vector<Term>& out) const;
  ValueId pointer(ValueId v, std::vector<Term>& out) const;
  void mask(ValueId v, std::vector<Cond>& out) const;
  void step(Tile& t, ValueId inc) const;
  void bound(Tile& t, const std::vector<Cond>& conds, bool is_load) const;

  const Function& f_;
};

}  // namespace sched2cu::ttgir::lift
