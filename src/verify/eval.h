// Integer evaluation of the C++ expressions the emitter prints (loop bounds, ring counters,
// slot indices, role and thread predicates), for the protocol checker's interpreter. It knows
// the arithmetic, comparison, logical and ternary operators, min/max, static_cast, and the
// thread-identity functions of runtime/sched2cu/warpgroup.cuh evaluated for one warpgroup's
// leader thread. It must never guess: an identifier it does not know, a float or a pointer
// makes the value unknown, and only the caller decides what an unknown value means.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sched2cu::verify {

// Variables in scope (innermost last) plus the leader thread's identity.
class Env {
 public:
  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }
  // Declares in the innermost scope (nullopt: declared, value unknown).
  void declare(const std::string& name, std::optional<long long> v) { scopes_.back()[name] = v; }
  // Assigns the innermost declaration; false when the name is not declared.
  bool assign(const std::string& name, std::optional<long long> v);
  // nullopt when unknown or undeclared.
  std::optional<long long> get(const std::string& name) const;
  bool declared(const std::string& name) const;
  int warpgroup = 0;  // warpgroup_idx() of the process
  int cluster = 1;    // cluster_nctarank() (the modelled CTA is the cluster's first)
 private:
  std::vector<std::map<std::string, std::optional<long long>>> scopes_;
};

// The value of `expr`, or nullopt when it depends on something unknown. Throws sched2cu::Error
// when the text is not an expression this evaluator parses.
std::optional<long long> eval(const std::string& expr, const Env& env);

// Whether `expr` reads the identity of a thread within its warpgroup (threadIdx, the lane, the
// warp index, an elected thread): statements under such a condition run in one thread.
bool reads_thread_identity(const std::string& expr);

}  // namespace sched2cu::verify
