// Internal to the TTGIR frontend: the recursive-descent parser over MLIR text as Triton prints
// it. parse_core.cpp holds the scanner, types and attributes; parse_loc.cpp locations;
// parse_ops.cpp ops and regions; parse_module.cpp functions, the module and final resolution.
// Must never crash or recurse without bound on bad input: every failure is a sched2cu::Error at
// the offending file:line:col, nesting is depth-limited.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ttgir::detail {

class Parser {
 public:
  Parser(std::string_view text, std::string file);
  Module run();

  // ---- scanner (parse_core.cpp)
  SourceLoc loc_at(size_t off) const;
  [[noreturn]] void fail(size_t off, const std::string& msg) const;
  [[noreturn]] void fail_here(const std::string& msg);
  void ws();
  bool at_end();
  char peek();  // next non-blank char, '\0' at end
  char peek_raw(size_t ahead = 0) const;
  bool eat(char c);
  void expect(char c, const std::string& what);
  bool eat_arrow();  // "->"
  bool peek_word(std::string_view w);
  bool eat_word(std::string_view w);
  bool peek_ident_start();
  std::string ident();      // bare identifier, dots allowed
  std::string suffix_id();  // after % ^ # ! @: [A-Za-z0-9_$.-]+
  std::string string_lit();
  int64_t integer();            // optionally signed decimal
  std::string describe_next();  // for "expected X, found Y"

  // ---- types and attributes (parse_core.cpp)
  Type type();
  Type scalar_or_fail(const std::string& name, size_t off);
  void dims(std::vector<int64_t>& out);
  Attribute attribute(bool allow_type_suffix = true);
  Attribute number(bool allow_type_suffix);
  Attribute dict_attr();
  void dict_entries(std::vector<NamedAttr>& out);
  std::string balanced_text(char open, char close);

  // ---- locations (parse_loc.cpp)
  struct LocNode {
    enum class Kind { Unknown, File, Name, CallSite, Fused, Ref } kind = Kind::Unknown;
    std::string text;  // file (File), name (Name), alias (Ref)
    int line = 0, col = 0;
    std::vector<int> kids;  // Name: child; CallSite: callee, caller; Fused: all
    size_t off = 0;         // where written, for errors
  };
  int loc_expr();  // after "loc(" ... returns node index
  int opt_loc();   // parses "loc(...)" when present, else -1
  Location resolve_loc(int node, const SourceLoc& ir);
  void collect_frames(int node, Location& out, int depth, int& budget);

  // ---- ops (parse_ops.cpp)
  struct Scope {
    std::unordered_map<std::string, std::pair<ValueId, int>> names;  // name -> (first, count)
  };
  struct Ctx {
    OpId op = kNoId;
    int region = -1, block = -1;
  };
  void module_body(Module& m);
  Function function();
  void region(Function& f, OpId owner, int region_index, const std::vector<ValueId>& entry_args);
  void op(Function& f);
  void generic_op(Function& f, OpId id, size_t start);
  void custom_op(Function& f, OpId id, size_t start);
  void for_op(Function& f, OpId id, size_t start);
  void if_op(Function& f, OpId id, size_t start);
  ValueId use(Function& f);
  ValueId new_value(Function& f, const std::string& name, Type t);
  void define(const std::string& name, ValueId first, int count, size_t off);
  bool result_list_ahead();
  void set_result_types(Function& f, OpId id, const std::vector<Type>& types, size_t off);
  void finish_op(Function& f, OpId id, size_t start);
  Op& at(Function& f, OpId id) { return f.ops[static_cast<size_t>(id)]; }

  std::string_view s_;
  size_t p_ = 0;
  std::string file_;
  std::vector<size_t> line_starts_;
  int depth_ = 0;
  std::map<std::string, Type> type_aliases_;
  std::map<std::string, int> loc_aliases_;
  std::vector<LocNode> locs_;
  std::vector<Scope> scopes_;
  std::vector<Ctx> ctx_;
  // Locations are resolved after the whole file is read (Triton prints loc aliases last).
  struct PendingLoc {
    int fn = 0;
    bool is_value = false;
    int32_t id = 0;  // OpId, ValueId, or -1 for the function itself
    int node = -1;
    SourceLoc ir;
  };
  std::vector<PendingLoc> pending_;
  int cur_fn_ = 0;
  Module* module_ = nullptr;
};

// Bounds recursion so that deeply nested garbage is an error, not a stack overflow.
class DepthGuard {
 public:
  explicit DepthGuard(Parser& p);
  ~DepthGuard() { --p_.depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  Parser& p_;
};

}  // namespace sched2cu::ttgir::detail
