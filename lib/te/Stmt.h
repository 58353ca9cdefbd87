// The loop-nest IR that schedules lower to and code generators consume (DESIGN §4.4): For
// loops with an execution kind, stores into flat buffers, local allocations, guards and
// sequences. Tensors are flattened into Buffers here (row-major), so expressions inside a Stmt
// use BufferLoad with one flat index, never Load.
#pragma once

#include "te/Expr.h"

namespace clustune::te {

enum class BufferScope {
  Argument, // passed in by the caller: a task input or output
  Local,    // allocated by an Allocate statement
  // Allocated by an Allocate statement inside a GPU kernel, once for its whole thread block:
  // every thread of the block sees the same buffer (CUDA's __shared__), wherever the Allocate
  // stands among the thread loops.
  Shared
};

struct BufferNode {
  std::string name;
  DataType dtype = DataType::Float32;
  std::int64_t elements = 0;
  BufferScope scope = BufferScope::Argument;
};

Buffer makeBuffer(std::string name, DataType dtype, std::int64_t elements, BufferScope scope);

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

// Barrier: every thread of the block waits there until all have arrived (CUDA's
// __syncthreads), so that what some threads wrote to a shared buffer is what all then read.
// Every thread of the block must reach it, so it never stands under a condition that depends on
// the thread index.
enum class StmtKind { For, Store, Allocate, IfThenElse, Sequence, Barrier };
// The thread-bound kinds map a loop onto a CUDA launch dimension (DESIGN §4.4): its variable is
// the block or thread index, and the launch has as many blocks or threads as the loop's extent.
// A virtual thread is a loop that GPU code generation interleaves within one thread. Code that
// ignores bindings (the interpreter) may run any of them as a serial loop.
enum class ForKind {
  Serial,
  Parallel,
  Vectorized,
  Unrolled,
  BlockIdxX,
  BlockIdxY,
  BlockIdxZ,
  VThread,
  ThreadIdxX,
  ThreadIdxY,
  ThreadIdxZ
};

// Whether loops of this kind are bound to a GPU block, thread or virtual thread.
bool isThreadBound(ForKind kind);

struct StmtNode {
  StmtKind kind;
  // For: loopVar runs over [0, extent).
  Var loopVar = {};
  std::int64_t extent = 0;
  ForKind forKind = ForKind::Serial;
  int autoUnrollMaxStep = 0; // pragma on the outermost loop of a stage; 0 = none
  // Store: buffer[index] = value. Allocate: buffer (Local or Shared) is live within body.
  Buffer buffer = {};
  Expr index = {};
  Expr value = {};
  // IfThenElse: condition, thenBody, elseBody (may be null).
  Expr condition = {};
  Stmt body = {}; // For, Allocate, IfThenElse (then)
  Stmt elseBody = {};
  std::vector<Stmt> sequence = {}; // Sequence
};

Stmt makeFor(Var loopVar, std::int64_t extent, ForKind kind, Stmt body, int autoUnrollMaxStep = 0);
Stmt makeStore(Buffer buffer, Expr index, Expr value);
Stmt makeAllocate(Buffer buffer, Stmt body);
Stmt makeIfThenElse(Expr condition, Stmt thenBody, Stmt elseBody = {});
Stmt makeSequence(std::vector<Stmt> statements);
Stmt makeBarrier();

const char* forKindName(ForKind kind);

// A compiled unit: one function per task, taking its argument buffers in this order (task
// inputs, then task outputs) as an array of pointers.
struct LoweredFunction {
  std::string name;
  std::vector<Buffer> arguments;
  Stmt body;
};

// Indented multi-line rendering, e.g. "for i0 in 0..64 parallel:".
std::string toString(const Stmt& stmt, int indent = 0);
std::string toString(const LoweredFunction& function);

} // namespace clustune::te
