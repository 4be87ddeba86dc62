// The mutation suite of the protocol checker (verify.h): each mutant breaks one thing in an
// emitted protocol, on the same statements the printer prints, so that a mutant emitted with
// `emit --mutate NAME --no-verify` is the broken kernel the checker rejected. Only the ring-depth
// mutant changes what the checker reads without changing the printed text (the printed depth is
// part of the ring's type). Mutants must never be written by a plain `emit`.
#include <functional>
#include <set>

#include "sched2cu/common/diag.h"
#include "sched2cu/verify/verify.h"

namespace sched2cu::verify {
namespace {

using emit::Stmt;
using K = Stmt::Kind;

// Calls f(list, index) for every statement, pre-order; f returns false to stop.
bool walk(std::vector<Stmt>& v, const std::function<bool(std::vector<Stmt>&, size_t)>& f) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (!f(v, i)) return false;
    if (i < v.size()) {
      if (!walk(v[i].body, f)) return false;
      if (!walk(v[i].else_body, f)) return false;
    }
  }
  return true;
}

// A statement text as printed with its references left out (the literal parts only).
std::string literal(const emit::Text& t) {
  return emit::render(t, [](int, int) { return std::string(); });
}

bool is_wait(const Stmt& s) {
  return s.kind == K::WaitFull || s.kind == K::WaitEmpty || s.kind == K::BarWait;
}
bool is_arm(const Stmt& s) { return s.kind == K::Arm || s.kind == K::BarArm; }
bool is_named(const Stmt& s) {
  return s.kind == K::NamedSync || s.kind == K::NamedArrive || s.kind == K::WarpgroupSync;
}
// A release that a wgmma wait in the same statement list precedes (the one it would move past).
long prior_wait(const std::vector<Stmt>& v, size_t i) {
  for (size_t j = i; j-- > 0;) {
    if (v[j].kind == K::MmaWait) return static_cast<long>(j);
    if (v[j].kind != K::Release && v[j].kind != K::Comment) return -1;
  }
  return -1;
}

struct Site {
  Mutant m;
  std::function<void(std::vector<Stmt>&, size_t)> apply;  // on the k-th match
  std::function<bool(const std::vector<Stmt>&, size_t)> match;
  int k = 0;
};

std::vector<Site> sites(emit::Program& p) {
  std::vector<Site> out;
  auto add = [&](const std::string& base, const std::string& what, auto match, auto apply) {
    // One site per match of `match`, numbered in statement order.
    int k = 0;
    walk(p.body, [&](std::vector<Stmt>& v, size_t i) {
      if (match(v, i)) {
        Site s;
        s.m = {base + ":" + std::to_string(k),
               what + " (statement " + std::to_string(k) + ": `" + v[i].note + "`)"};
        s.match = match;
        s.apply = apply;
        s.k = k++;
        out.push_back(s);
      }
      return true;
    });
  };
  // Rings whose empty barriers some statement waits on or arrives at: a staging fill's ring
  // (docs/emitter.md) never uses its empty half, so its count is no part of the protocol.
  std::set<std::string> empties_used;
  walk(p.body, [&](std::vector<Stmt>& v, size_t i) {
    if (v[i].kind == K::WaitEmpty || v[i].kind == K::Release) empties_used.insert(v[i].ring);
    return true;
  });
  for (int d : {+1, -1}) {
    const std::string sg = d > 0 ? "+1" : "-1";
    add(
        "full-count" + sg, "a ring's full-barrier arrival count " + sg,
        [](const std::vector<Stmt>& v, size_t i) { return v[i].kind == K::RingInit; },
        [d](std::vector<Stmt>& v, size_t i) { v[i].full += d; });
    add(
        "empty-count" + sg, "a ring's empty-barrier arrival count " + sg,
        [&empties_used](const std::vector<Stmt>& v, size_t i) {
          return v[i].kind == K::RingInit && empties_used.count(v[i].ring) != 0;
        },
        [d](std::vector<Stmt>& v, size_t i) { v[i].empty += d; });
    add(
        "bar-count" + sg, "a function-scope barrier's arrival count " + sg,
        [](const std::vector<Stmt>& v, size_t i) { return v[i].kind == K::BarInit; },
        [d](std::vector<Stmt>& v, size_t i) { v[i].bytes += d; });
    add(
        "arm-bytes" + std::string(d > 0 ? "+16" : "-16"), "expected bytes off by 16",
        [](const std::vector<Stmt>& v, size_t i) { return is_arm(v[i]); },
        [d](std::vector<Stmt>& v, size_t i) { v[i].bytes += 16LL * d; });
  }
  add(
      "release-before-wait", "a slot release moved before the wgmma wait that covers its readers",
      [](const std::vector<Stmt>& v, size_t i) {
        return v[i].kind == K::Release && prior_wait(v, i) >= 0;
      },
      [](std::vector<Stmt>& v, size_t i) {
        const auto j = static_cast<size_t>(prior_wait(v, i));
        Stmt r = v[i];
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(j), r);
      });
  add(
      "wait-parity", "a barrier wait's parity flipped",
      [](const std::vector<Stmt>& v, size_t i) { return is_wait(v[i]); },
      [](std::vector<Stmt>& v, size_t i) {
        Stmt& s = v[i];
        if (s.kind == K::BarWait)
          s.bytes ^= 1;
        else
          s.ctr = "(" + literal(s.ctr) + ") + " + std::to_string(s.depth);
      });
  add(
      "fence-removed", "a fence.proxy.async removed",
      [](const std::vector<Stmt>& v, size_t i) { return v[i].kind == K::ProxyFence; },
      [](std::vector<Stmt>& v, size_t i) { v.erase(v.begin() + static_cast<std::ptrdiff_t>(i)); });
  add(
      "named-count", "a named barrier's thread count 128 too high",
      [](const std::vector<Stmt>& v, size_t i) { return is_named(v[i]); },
      [](std::vector<Stmt>& v, size_t i) {
        Stmt& s = v[i];
        s.threads += 128;
        if (s.kind == K::WarpgroupSync) {  // print the count it now waits for
          s.kind = K::NamedSync;
        }
      });
  add(
      "store-drain-removed", "a TMA store drain that lets every store stay in flight",
      [](const std::vector<Stmt>& v, size_t i) { return v[i].kind == K::BulkWait; },
      [](std::vector<Stmt>& v, size_t i) { v[i].pending = 7; });
  // A split loop inside a persistent tile loop summed across the cluster even when the first
  // CTA runs several tiles: its rings refill for the next tile while the sum passes through them.
  add(
      "split-share-outer", "a split sum that ignores the tile loop around it",
      [](const std::vector<Stmt>& v, size_t i) {
        return v[i].kind == K::ClusterSum && literal(v[i].cond) != "split_n";
      },
      [](std::vector<Stmt>& v, size_t i) {
        Stmt& s = v[i];
        const std::string old = literal(s.cond);
        for (auto& piece : s.text.pieces())
          for (size_t at; piece.value < 0 && (at = piece.s.find(old)) != std::string::npos;)
            piece.s.replace(at, old.size(), "split_n");
        s.cond = "split_n";
      });
  // Producer and consumer disagreeing on a ring's depth: the producer's statements assume one
  // slot fewer.
  std::set<std::string> rings;
  walk(p.body, [&](std::vector<Stmt>& v, size_t i) {
    if (v[i].kind == K::RingInit && v[i].depth >= 2) rings.insert(v[i].ring);
    return true;
  });
  for (const std::string& r : rings) {
    Site s;
    s.m = {"ring-depth:" + r,
           "the producer of " + r + " assumes one slot fewer than its consumers"};
    s.match = [r](const std::vector<Stmt>& v, size_t i) {
      return v[i].kind == K::RingInit && v[i].ring == r;
    };
    s.apply = [r, &p](std::vector<Stmt>&, size_t) {
      walk(p.body, [&](std::vector<Stmt>& v, size_t i) {
        Stmt& x = v[i];
        if ((x.kind == K::WaitEmpty || x.kind == K::Arm || x.kind == K::Commit) && x.ring == r)
          --x.depth;
        for (auto& a : x.mem)
          if ((x.kind == K::TmaLoad || (x.kind == K::MemCode && a.write)) && a.ring == r) --a.depth;
        return true;
      });
    };
    out.push_back(s);
  }
  return out;
}

}  // namespace

std::vector<Mutant> mutants(const emit::Program& p) {
  emit::Program q = p;
  std::vector<Mutant> out;
  for (const Site& s : sites(q)) out.push_back(s.m);
  return out;
}

emit::Program mutate(const emit::Program& p, const std::string& name) {
  emit::Program q = p;
  for (const Site& s : sites(q)) {
    if (s.m.name != name) continue;
    int k = 0;
    bool done = false;
    walk(q.body, [&](std::vector<Stmt>& v, size_t i) {
      if (!s.match(v, i)) return true;
      if (k++ != s.k) return true;
      s.apply(v, i);
      done = true;
      return false;
    });
    if (!done) throw Error("verify: internal: mutant " + name + " found no statement");
    return q;
  }
  throw Error("verify: no mutant named '" + name +
              "' (`sched2cu verify --list-mutants` lists them)");
}

}  // namespace sched2cu::verify
