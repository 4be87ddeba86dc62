// TTGIR parser, locations: loc(...) expressions, #locN aliases (Triton prints them after the
// module, so they resolve only once the whole file is read), and their resolution to Python
// source frames. Must never loop on alias cycles, nor blow up on aliases shared inside one
// location (callsite(#a at #a) nested n times has 2^n leaves): resolution depth and the nodes
// visited per location are bounded.
#include "parser_impl.h"

namespace sched2cu::ttgir::detail {

namespace {
constexpr int kMaxLocDepth = 200;
constexpr int kMaxLocNodes = 10000;  // per resolved location; Triton's have a few dozen
struct LocBudgetExceeded {};
}  // namespace

// ---------------------------------------------------------------- locations

int Parser::loc_expr() {
  DepthGuard g(*this);
  LocNode n;
  n.off = (ws(), p_);
  char c = peek();
  if (c == '#') {
    ++p_;
    n.kind = LocNode::Kind::Ref;
    n.text = suffix_id();
  } else if (eat_word("unknown")) {
    n.kind = LocNode::Kind::Unknown;
  } else if (eat_word("callsite")) {
    n.kind = LocNode::Kind::CallSite;
    expect('(', "after callsite");
    int callee = loc_expr();
    if (!eat_word("at")) fail_here("expected 'at' in callsite location");
    int caller = loc_expr();
    expect(')', "closing callsite(");
    n.kids = {callee, caller};
  } else if (eat_word("fused")) {
    n.kind = LocNode::Kind::Fused;
    if (peek() == '<') {
      ++p_;
      attribute();
      expect('>', "closing fused<");
    }
    expect('[', "after fused");
    do n.kids.push_back(loc_expr());
    while (eat(','));
    expect(']', "closing fused[");
  } else if (c == '"') {
    n.text = string_lit();
    if (peek_raw() == ':') {
      n.kind = LocNode::Kind::File;
      ++p_;
      n.line = static_cast<int>(integer());
      expect(':', "between line and column");
      n.col = static_cast<int>(integer());
      if (eat_word("to")) {  // a range: `to [line:]col`; the start is what we keep
        integer();
        if (eat(':')) integer();
      }
    } else {
      n.kind = LocNode::Kind::Name;
      if (eat('(')) {
        n.kids.push_back(loc_expr());
        expect(')', "closing name location");
      }
    }
  } else {
    fail_here("expected a location, found " + describe_next());
  }
  locs_.push_back(std::move(n));
  return static_cast<int>(locs_.size()) - 1;
}

int Parser::opt_loc() {
  if (!peek_word("loc")) return -1;
  p_ += 3;
  expect('(', "after loc");
  int n = loc_expr();
  expect(')', "closing loc(");
  return n;
}

void Parser::collect_frames(int idx, Location& out, int depth, int& budget) {
  if (depth > kMaxLocDepth) fail(locs_[static_cast<size_t>(idx)].off, "location alias cycle");
  if (--budget < 0) throw LocBudgetExceeded{};
  const LocNode& n = locs_[static_cast<size_t>(idx)];
  switch (n.kind) {
    case LocNode::Kind::Unknown:
      return;
    case LocNode::Kind::File:
      out.frames.push_back(SourceLoc{n.text, n.line, n.col});
      return;
    case LocNode::Kind::Name:
      if (out.name.empty()) out.name = n.text;
      for (int k : n.kids) collect_frames(k, out, depth + 1, budget);
      return;
    case LocNode::Kind::CallSite:
      for (int k : n.kids) collect_frames(k, out, depth + 1, budget);
      return;
    case LocNode::Kind::Fused:
      for (int k : n.kids) {
        size_t before = out.frames.size();
        collect_frames(k, out, depth + 1, budget);
        if (out.frames.size() > before) return;  // the first located member stands for all
      }
      return;
    case LocNode::Kind::Ref: {
      auto it = loc_aliases_.find(n.text);
      if (it == loc_aliases_.end()) fail(n.off, "undefined location alias #" + n.text);
      collect_frames(it->second, out, depth + 1, budget);
      return;
    }
  }
}

Location Parser::resolve_loc(int node, const SourceLoc& ir) {
  Location l;
  l.ir = ir;
  int budget = kMaxLocNodes;
  try {
    if (node >= 0) collect_frames(node, l, 0, budget);
  } catch (const LocBudgetExceeded&) {  // reported where the location is used
    fail(locs_[static_cast<size_t>(node)].off,
         "location expands to more than " + std::to_string(kMaxLocNodes) + " nodes");
  }
  if (!l.frames.empty()) l.src = l.frames.back();
  return l;
}

}  // namespace sched2cu::ttgir::detail
