// The in-memory IR of a TTGIR module, as the parser builds it and the later stages read it.
// Plain value types only: every cross reference is an integer id (ops and values are numbered in
// program order per function), so the IR can be copied, compared and serialized to JSON without
// pointers. Must never depend on MLIR or Triton, and must stay stable: add fields, never rename.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sched2cu/common/diag.h"

namespace sched2cu::ttgir {

using ValueId = int32_t;  // index into Function::values
using OpId = int32_t;     // index into Function::ops
inline constexpr int32_t kNoId = -1;

// A store of a register tile through a tensor descriptor: `tt.descriptor_store`, or
// `tt.descriptor_reduce` (the same staging and TMA bulk copy, reducing into global memory with
// its kind instead of overwriting). Every stage treats the two alike except the copy itself.
inline bool is_descriptor_store(const std::string& op_name) {
  return op_name == "tt.descriptor_store" || op_name == "tt.descriptor_reduce";
}

// An atomic read-modify-write of global memory (what TMA reduce-adds do not cover).
inline bool is_atomic(const std::string& op_name) {
  return op_name == "tt.atomic_rmw" || op_name == "tt.atomic_cas";
}

struct Type;

// An MLIR attribute. Aliases (`#blocked`) stay references; Module::resolve() follows them.
struct Attribute {
  enum class Kind {
    Unit,        // `unit` / presence-only attribute in a dict
    Bool,        // true | false
    Integer,     // 42 : i32           (ival; type[0] when a type was written)
    Float,       // 1.5 : f32 / 0xFF800000 : f32  (text keeps the exact spelling; see as_double)
    String,      // "cuda:90"          (text, unescaped)
    Symbol,      // @gemm_kernel       (text without '@')
    TypeAttr,    // a bare type used as attribute (type[0])
    Array,       // [a, b, c]          (elems)
    DenseArray,  // array<i32: 1, 0>  (text = element type, elems = Integer/Float attributes)
    Dict,        // {k = v, ...}       (dict, in written order)
    Dense,       // dense<0.0> : tensor<...>  (elems: one element when splat, else all; type[0])
    Alias,       // #blocked           (text = alias name without '#')
    Dialect,     // #ttg.blocked<{...}> / #ttg.shared_memory  (text = "ttg.blocked"; params)
    Keyword,     // a bare identifier such as a predicate `slt` or rounding `rtne` (text)
  };
  Kind kind = Kind::Unit;
  int64_t ival = 0;                                     // Integer, Bool (0/1)
  std::string text;                                     // see Kind
  std::vector<Type> type;                               // 0 or 1 type (see Kind)
  std::vector<Attribute> elems;                         // Array, DenseArray, Dense
  std::vector<std::pair<std::string, Attribute>> dict;  // Dict entries
  std::vector<Attribute> params;                        // Dialect: the `<...>` contents (usually
                                                        // one Dict), empty when none written

  // Special members are defined in ir.cpp, where Type and the pair of `dict` are complete
  // (clang instantiates them eagerly otherwise).
  Attribute();
  ~Attribute();
  Attribute(const Attribute&);
  Attribute(Attribute&&) noexcept;
  Attribute& operator=(const Attribute&);
  Attribute& operator=(Attribute&&) noexcept;

  // Dict / Dialect-with-dict lookup by key; nullptr when absent.
  const Attribute* get(const std::string& key) const;
  // Integer / Bool value, Float decoded (hex spellings are bit patterns of the float type).
  int64_t as_int() const { return ival; }
  double as_double() const;
  // Array / DenseArray of integers as a vector (throws sched2cu::Error otherwise).
  std::vector<int64_t> as_int_array() const;
  // MLIR spelling ("#blocked", "128 : i32", "#ttg.slice<{dim = 1, parent = #mma}>").
  std::string str() const;
  bool operator==(const Attribute& o) const;
};

using NamedAttr = std::pair<std::string, Attribute>;

// An MLIR type with its structure parsed.
struct Type {
  enum class Kind {
    Integer,     // iN   (name "i32", bits N)
    Float,       // f16, bf16, f32, f64, f8E4M3FN, f8E5M2, tf32 ... (name, bits)
    Index,       // index (bits 64)
    None,        // none
    Ptr,         // !tt.ptr<T[, addrspace]>   elem[0] = pointee, address_space
    Tensor,      // tensor<AxBxT[, enc]>     shape, elem[0], encoding (0..1)
    TensorDesc,  // !tt.tensordesc<tensor<...>>  elem[0] = the block tensor type
    MemDesc,     // !ttg.memdesc<AxBxT, enc, space[, mutable][, AxB alloc]>  shape, elem[0],
                 // encoding[0], memory_space[0], mutable_memory, alloc_shape
    AsyncToken,  // !ttg.async.token
    Other,       // anything else, kept verbatim in name (rejected by check_supported)
  };
  Kind kind = Kind::Other;
  std::string name;                     // scalar spelling ("f16"), or "!tt.ptr", "tensor", ...
  int bits = 0;                         // Integer / Float / Index bit width, else 0
  std::vector<int64_t> shape;           // Tensor / MemDesc dims
  std::vector<Type> elem;               // see Kind (0 or 1 entries)
  std::vector<Attribute> encoding;      // Tensor / MemDesc layout (0 or 1 entries)
  std::vector<Attribute> memory_space;  // MemDesc (0 or 1 entries)
  bool mutable_memory = false;          // MemDesc
  std::vector<int64_t> alloc_shape;     // MemDesc, when printed
  int address_space = 1;                // Ptr

  bool is_scalar() const;  // Integer / Float / Index
  bool is_shaped() const { return kind == Kind::Tensor || kind == Kind::MemDesc; }
  // The scalar element: itself for scalars, elem[0] (recursively) for tensor / memdesc /
  // tensordesc. For a tensor of pointers this is the Ptr type.
  const Type& element_type() const;
  int element_bits() const;   // bit width of element_type(); pointers count 64
  int64_t numel() const;      // product of shape (1 for scalars; the block for tensordesc)
  int64_t byte_size() const;  // numel() * element_bits() / 8, rounded up
  // Layout alias name ("blocked", "mma", "shared") when the encoding is an alias, else "".
  std::string encoding_alias() const;
  // The canonical MLIR spelling, as Triton prints it (aliases kept).
  std::string str() const;
  bool operator==(const Type& o) const = default;
};

// Where an op (or a block argument) came from.
struct Location {
  SourceLoc src;                  // resolved Python source: the outermost frame of a callsite chain
                                  // (the kernel's own line), or unknown
  SourceLoc ir;                   // where the op starts in the .ttgir text (file, line, col)
  std::string name;               // innermost NameLoc name ("acc", "a_desc"), "" when none
  std::vector<SourceLoc> frames;  // every file location reached, callee first (callsite chain);
                                  // src is frames.back()
  bool operator==(const Location& o) const;  // field-wise (SourceLoc has no ==)
};

struct Block {
  std::vector<ValueId> args;  // block arguments (scf.for: iv first, then iter_args)
  std::vector<OpId> ops;      // ops of this block in order (terminator last)
  bool operator==(const Block& o) const = default;
};

struct Region {
  std::vector<Block> blocks;
  bool operator==(const Region& o) const = default;
};

struct Op {
  OpId id = kNoId;
  std::string name;               // "arith.addf", "scf.for", "tt.descriptor_load"
  std::vector<ValueId> operands;  // all operands, in printed order
  // Sizes of the operand groups as printed: each top-level `%x` is a group of 1, each bracketed
  // or parenthesized list `[%a, %b]` one group (tt.make_tensor_descriptor: {1, rank, rank};
  // tt.descriptor_load: {1, rank}; tt.descriptor_store: {1, rank, 1}). Sums to operands.size().
  std::vector<int> operand_segments;
  std::vector<ValueId> results;
  std::vector<NamedAttr> attrs;  // inherent and discardable attributes, plus custom-syntax
                                 // keywords named per op ("predicate", "axis", "rounding"...)
  std::vector<Region> regions;
  OpId parent_op = kNoId;  // enclosing op (scf.for / scf.if / tt.reduce), or kNoId
  int parent_region = -1;  // index into the parent's regions
  int parent_block = -1;   // index into that region's blocks
  Location loc;

  const Attribute* attr(const std::string& key) const;  // nullptr when absent
  bool operator==(const Op& o) const = default;
};

struct Value {
  ValueId id = kNoId;
  std::string name;  // SSA name as printed, without '%' ("acc_2", "0", "arg5")
  Type type;
  OpId def_op = kNoId;    // defining op, kNoId for a block argument
  int result_index = -1;  // which result of def_op
  OpId owner_op = kNoId;  // block argument: the op whose region holds the block;
                          // kNoId for a function argument
  int owner_region = -1, owner_block = -1, arg_index = -1;  // block argument position
  std::vector<OpId> users;       // ops using it, in program order, each once
  Location loc;                  // block arguments carry their own loc
  std::vector<NamedAttr> attrs;  // function-argument attributes ({tt.divisibility = 16})
  bool operator==(const Value& o) const = default;
};

// A view on one scf.for, for the scheduler.
struct ForLoop {
  OpId op = kNoId;
  ValueId lb = kNoId, ub = kNoId, step = kNoId;
  ValueId iv = kNoId;              // induction variable (block arg 0)
  std::vector<ValueId> inits;      // iter_args initial values (operands 3..)
  std::vector<ValueId> iter_args;  // region block args 1..
  std::vector<ValueId> results;    // loop results
  OpId yield_op = kNoId;           // the scf.yield terminating the body
  std::vector<ValueId> yielded;    // its operands
  std::vector<OpId> body;          // the body's ops in order, terminator included
};

struct Function {
  std::string name;  // without '@'
  bool is_public = true;
  std::vector<ValueId> args;  // function arguments (values[0..n))
  Region body;
  std::vector<Op> ops;           // every op, nested ones included, in program (pre-)order
  std::vector<Value> values;     // every value in order of definition
  std::vector<NamedAttr> attrs;  // `attributes {...}`
  Location loc;

  const Op& op(OpId id) const { return ops.at(static_cast<size_t>(id)); }
  const Value& value(ValueId id) const { return values.at(static_cast<size_t>(id)); }
  // Defining op, or nullptr for a block / function argument.
  const Op* def_op(ValueId v) const;
  // `v` with every arith.extsi of a 32-bit integer taken off (index math written in 64 bits,
  // `tl.program_id(0).to(tl.int64)`: the value it extends).
  ValueId through_sign_extensions(ValueId v) const;
  const std::vector<OpId>& users(ValueId v) const { return value(v).users; }
  // Top-level ops of the function body (not nested) in order.
  const std::vector<OpId>& top_ops() const { return body.blocks.at(0).ops; }
  // All scf.for ops in program order, and the view on one (throws when id is no scf.for).
  std::vector<OpId> for_ops() const;
  ForLoop for_loop(OpId id) const;
  // The innermost scf.for holding op `id`, kNoId at function scope.
  OpId enclosing_for(OpId id) const;
  // Whether any op updates memory by an atomic (is_atomic: tl.atomic_add, atomic_max, ...).
  bool has_atomics() const;
  const Value* arg_by_name(const std::string& name) const;
  bool operator==(const Function& o) const = default;
};

struct Module {
  std::string file;                // the .ttgir path as given to the parser
  std::vector<NamedAttr> attrs;    // module attributes ("ttg.num-warps", "ttg.target", ...)
  std::vector<NamedAttr> aliases;  // attribute aliases in file order: "blocked" -> #ttg.blocked<>
  std::vector<Function> functions;

  // Follows Alias attributes (transitively) to their definition; returns `a` itself otherwise.
  // Throws sched2cu::Error for an undefined alias.
  const Attribute& resolve(const Attribute& a) const;
  // A type's layout, resolved (nullptr when the type has none).
  const Attribute* encoding_of(const Type& t) const;
  // The resolved layout's kind ("ttg.blocked", "ttg.nvidia_mma", ...), "" when none.
  std::string encoding_kind(const Type& t) const;
  // One parameter of the type's resolved layout ("warpsPerCTA"), nullptr when absent.
  const Attribute* encoding_param(const Type& t, const std::string& key) const;
  const Attribute* attr(const std::string& key) const;
  int num_warps() const;                                    // "ttg.num-warps", 0 when absent
  const Function& function(const std::string& name) const;  // throws when absent
  bool operator==(const Module& o) const = default;
};

}  // namespace sched2cu::ttgir
