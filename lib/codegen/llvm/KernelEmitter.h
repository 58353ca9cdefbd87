// Internal to lib/codegen (includes LLVM; never include it from a public header): the
// translation of loop nests into LLVM IR functions of a module, shared by the CPU and CUDA back
// ends. Statements are emitted by StmtEmitter.cpp, expressions by ExprEmitter.cpp (math calls
// by CallEmitter.cpp), loads and stores by MemoryEmitter.cpp, index sums by IndexEmitter.cpp;
// ValueNumbering.cpp shares what the copies of an unrolled body compute alike. The function frames
// are each back end's: the CPU entry point and outlined parallel bodies in cpu/CpuKernelFrame.cpp,
// CUDA kernels and thread-bound loops in cuda/GpuKernelFrame.cpp.
//
// Vectorized loops run as vector lanes: while one is emitted, `lanes_` is set, the loop variable
// is bound to the vector <base, base+1, ...>, and every expression yields either a scalar (the
// same for all lanes, broadcast where it meets a vector) or a vector. Guards whose condition
// differs between lanes become a lane mask that loads and stores honour.
#pragma once

#include "te/Stmt.h"

#include <array>
#include <functional>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <map>
#include <optional>
#include <unordered_map>

namespace llvm {
class TargetMachine;
}

namespace clustune::codegen {

// The lanes of a vector value, 0 for a scalar.
inline unsigned laneCount(llvm::Value* value) {
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(value->getType());
  return vector ? vector->getNumElements() : 0;
}

// The scalar type `scalar`, as a vector when `like` is one.
inline llvm::Type* shapedLike(llvm::Type* scalar, llvm::Value* like) {
  const unsigned lanes = laneCount(like);
  return lanes ? llvm::FixedVectorType::get(scalar, lanes) : scalar;
}

inline bool isSigned(te::DataType dtype) {
  return dtype == te::DataType::Int8 || dtype == te::DataType::Int32 ||
         dtype == te::DataType::Int64;
}

// What the emitter needs to know of the machine it emits for.
struct EmitTarget {
  std::string cpu;         // the functions' target-cpu: an x86 CPU, or a GPU architecture (sm_90)
  std::string features;    // their target-features; may be empty
  int vectorBits = 128;    // the widest vectors the code should use
  bool vectorMath = false; // CPU: vector math calls libmvec (cpu/VectorMath.h)
  bool gpu = false;        // NVPTX: thread-bound loops read block and thread indices
};

// The launch of a GPU kernel: blocks and threads per block along x, y and z.
struct GpuLaunch {
  std::array<std::int64_t, 3> grid = {1, 1, 1};
  std::array<std::int64_t, 3> block = {1, 1, 1};
};

class KernelEmitter {
public:
  // `machine` answers which vector memory operations the target has instructions for.
  KernelEmitter(llvm::Module& module, EmitTarget target, const llvm::TargetMachine& machine);

  // CPU (cpu/CpuKernelFrame.cpp): emits `void <name>(void** arguments)` and the functions it
  // needs into the module.
  void emitKernel(const te::LoweredFunction& function);

  // GPU (cuda/GpuKernelFrame.cpp): emits the kernel `name(parameters...)` that runs `body` in
  // every thread of `launch`.
  void emitGpuKernel(const std::string& name, const te::Stmt& body,
                     const std::vector<te::Buffer>& parameters, const GpuLaunch& launch);

private:
  struct VectorLanes {
    const te::VarNode* var;
    unsigned width;
    llvm::Value* laneBase; // scalar i64: the loop variable's value in lane 0
    llvm::Value* mask;     // <width x i1> of active lanes; null when all are active
  };

  // KernelEmitter.cpp
  llvm::Function* createFunction(llvm::FunctionType* type, llvm::GlobalValue::LinkageTypes linkage,
                                 const std::string& name);
  void addBufferParameterAttributes(llvm::Function* function, unsigned parameter,
                                    const te::BufferNode& buffer);
  void emitParallelFor(const te::StmtNode& loop);
  // A loop bound to a block, thread or virtual thread; refused on the CPU.
  void emitThreadBoundFor(const te::StmtNode& loop);
  // GPU (cuda/GpuKernelFrame.cpp): __syncthreads, and the block's one copy of a shared buffer
  // (a generic pointer to an addrspace(3) array); both refused on the CPU.
  void emitBarrier();
  llvm::Value* sharedBuffer(const te::Buffer& buffer);
  llvm::AllocaInst* createEntryAlloca(llvm::Type* type, std::uint64_t count, unsigned alignment,
                                      const std::string& name);
  llvm::FunctionCallee runtimeFunction(const char* name, llvm::FunctionType* type);

  // StmtEmitter.cpp
  void emitStmt(const te::Stmt& stmt);
  void emitFor(const te::StmtNode& loop);
  void emitUnrolledFor(const te::StmtNode& loop);
  void emitVectorizedFor(const te::StmtNode& loop);
  void emitLanes(const te::StmtNode& loop, unsigned width, llvm::Value* laneBase);
  // A counted loop over [begin, end) whose body receives the i64 induction variable; the
  // loop is skipped when begin >= end unless `nonEmpty` promises otherwise.
  void emitCountedLoop(llvm::Value* begin, llvm::Value* end, bool nonEmpty,
                       const std::function<void(llvm::Value*)>& body, bool hintVectorize = false);
  void emitStore(const te::StmtNode& store);
  void emitAllocate(const te::StmtNode& allocate);
  void emitIfThenElse(const te::StmtNode& branch);
  // Runs emitBody with the lane mask narrowed to `mask`, skipping it when no lane is active.
  void emitUnderMask(llvm::Value* mask, const std::function<void()>& emitBody);

  // ExprEmitter.cpp
  llvm::Value* emitExpr(const te::Expr& expr);
  llvm::Value* emitIndex(const te::Expr& index); // as i64 (scalar or vector)
  llvm::Value* emitArithmetic(const te::ExprNode& node);
  llvm::Value* emitIntegerArithmetic(te::ExprKind kind, graph::DataType dtype, llvm::Value* a,
                                     llvm::Value* b, bool nonNegativeDividend);
  llvm::Value* emitComparison(const te::ExprNode& node);
  // cond ? whenTrue() : whenFalse(), evaluating only the chosen side when `lazy` (per lane
  // under a mask when the condition differs between lanes).
  llvm::Value* emitChoice(llvm::Value* condition, const std::function<llvm::Value*()>& whenTrue,
                          const std::function<llvm::Value*()>& whenFalse, bool lazy);
  // Whether expr differs between the copies of a loop body that emitUnrolledFor emits.
  bool dependsOnUnrolledLoop(const te::Expr& expr) const;
  llvm::Value* convert(llvm::Value* value, te::DataType from, te::DataType to);

  // CallEmitter.cpp
  llvm::Value* emitCall(const te::ExprNode& node);
  // The libmvec function `scalarName` over vector arguments of equal lanes, in as many
  // registers as they take; nullptr where libmvec has no such function.
  llvm::Value* emitVectorMathCall(const std::string& scalarName,
                                  const std::vector<llvm::Value*>& arguments);
  // exp of a vector through libmvec, with the lanes whose result is exactly 0 or +inf kept off
  // libmvec's slow path; nullptr where libmvec has no exp.
  llvm::Value* emitVectorExp(llvm::Value* x);

  // MemoryEmitter.cpp
  llvm::Value* loadFromMemory(const te::Buffer& buffer, const te::Expr& index);
  // The alignment a vector access at `index` (lane 0) may claim: the element's on the CPU, and
  // on a GPU what the index's known multiple and the 16-byte buffer starts give.
  llvm::Align vectorAlignment(const te::Expr& index, llvm::Type* element) const;
  // Whether a vector access at `index` covers consecutive elements, one per lane.
  bool movesOneElementPerLane(const te::Expr& index) const;
  // The value of a Select between loads (isLoadChoice): one load from a selected address.
  llvm::Value* emitChosenLoad(const te::Expr& choice);
  // A gather of the active lanes of `addresses` (a vector of pointers into `base`'s buffer).
  llvm::Value* emitGather(llvm::VectorType* type, llvm::Value* addresses, llvm::Value* base,
                          llvm::Align align);
  void storeToMemory(const te::Buffer& buffer, const te::Expr& index, llvm::Value* value);
  // The flat index with the vectorized loop variable replaced by its lane-0 value.
  llvm::Value* emitLaneZeroIndex(const te::Expr& index);

  // IndexEmitter.cpp
  struct AffineValue {
    struct Term {
      llvm::Value* value;
      std::int64_t coefficient;
    };
    std::vector<Term> terms;
    std::int64_t constant = 0;
  };
  // An int64 Add, Sub or Mul, as Σ coefficient·value + constant with its run-time part shared.
  llvm::Value* emitIntegerSum(const te::Expr& expr);
  void gatherAffineTerms(const te::Expr& expr, std::int64_t coefficient, AffineValue& sum);

  // ValueNumbering.cpp
  // create()'s value, or the value an earlier call made for the same operation on the same
  // operands in the current block. `operation` is an ExprKind (arithmetic) or a NumberedKind;
  // `type` tells results of the same operation on the same operands apart (a GEP's element
  // type, a cast's result type).
  llvm::Value* numbered(int operation, llvm::Value* left, llvm::Value* right,
                        const std::function<llvm::Value*()>& create, llvm::Type* type = nullptr);
  enum NumberedKind : int { kAddress = 1 << 16, kBroadcast, kTruncate, kCompare };
  llvm::Value* numberedAddress(llvm::Type* element, llvm::Value* base, llvm::Value* index);
  // The same for a load (mask null) or masked load or gather (mask null when all lanes load)
  // of `buffer` at `address`, unless the buffer may have been written since.
  llvm::Value* numberedLoad(const te::BufferNode* buffer, llvm::Value* address, llvm::Type* type,
                            llvm::Value* mask, const std::function<llvm::Value*()>& create);
  // After a store (mask null) or masked store or scatter of `value` to `buffer`.
  void rememberStore(const te::BufferNode* buffer, llvm::Value* address, llvm::Value* value,
                     llvm::Value* mask);
  // After code that may write any buffer.
  void forgetMemory();

  // Types and lanes.
  llvm::Type* registerType(te::DataType dtype);
  llvm::Type* storageType(te::DataType dtype);
  // A value loaded as storageType(dtype), in registerType(dtype).
  llvm::Value* fromStorage(llvm::Value* loaded, te::DataType dtype);
  llvm::Value* broadcast(llvm::Value* value, unsigned width);
  llvm::Value* splat(llvm::Value* value, unsigned width); // broadcast's instructions
  // Broadcasts whichever of the two is scalar when the other is a vector.
  void matchLanes(llvm::Value*& left, llvm::Value*& right);
  llvm::Value* lanesOf(llvm::Value* scalarOrVector, llvm::Value* like);
  llvm::Value* allLanes(unsigned width);
  llvm::Value* bufferPointer(const te::Buffer& buffer);
  llvm::Value* lookupVar(const te::VarNode* var);

  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::IRBuilder<> builder_;
  const EmitTarget target_;
  const llvm::TargetMachine& machine_;
  std::string kernelName_;
  llvm::Function* function_ = nullptr; // the function being emitted
  std::unordered_map<const te::VarNode*, llvm::Value*> vars_;
  std::unordered_map<const te::BufferNode*, llvm::Value*> buffers_;
  std::optional<VectorLanes> lanes_;
  std::vector<const te::VarNode*> unrolledVars_; // of the loops being unrolled, outermost first
  int autoUnrollMaxStep_ = 0; // from the innermost enclosing auto_unroll_max_step pragma
  using NumberedOperation = std::tuple<const llvm::BasicBlock*, int, const llvm::Value*,
                                       const llvm::Value*, const llvm::Type*>;
  std::map<NumberedOperation, llvm::Value*> numberedOperations_;
  // Per buffer: block, address, loaded type, mask.
  using MemoryKey = std::tuple<const llvm::BasicBlock*, const llvm::Value*, const llvm::Type*,
                               const llvm::Value*>;
  std::unordered_map<const te::BufferNode*, std::map<MemoryKey, llvm::Value*>> knownMemory_;
  int outlinedCount_ = 0;
  GpuLaunch gpuLaunch_; // of the GPU kernel being emitted
  // The addrspace(3) arrays of the kernel being emitted, one per shared buffer: the copies of
  // an unrolled body share them.
  std::unordered_map<const te::BufferNode*, llvm::Value*> sharedBuffers_;
};

} // namespace clustune::codegen
