// See Stmt.h.
#include "te/Stmt.h"

#include <sstream>

namespace clustune::te {

Buffer makeBuffer(std::string name, DataType dtype, std::int64_t elements, BufferScope scope) {
  return std::make_shared<const BufferNode>(
      BufferNode{.name = std::move(name), .dtype = dtype, .elements = elements, .scope = scope});
}

Stmt makeFor(Var loopVar, std::int64_t extent, ForKind kind, Stmt body, int autoUnrollMaxStep) {
  return std::make_shared<const StmtNode>(StmtNode{.kind = StmtKind::For,
                                                   .loopVar = std::move(loopVar),
                                                   .extent = extent,
                                                   .forKind = kind,
                                                   .autoUnrollMaxStep = autoUnrollMaxStep,
                                                   .body = std::move(body)});
}

Stmt makeStore(Buffer buffer, Expr index, Expr value) {
  return std::make_shared<const StmtNode>(StmtNode{.kind = StmtKind::Store,
                                                   .buffer = std::move(buffer),
                                                   .index = std::move(index),
                                                   .value = std::move(value)});
}

Stmt makeAllocate(Buffer buffer, Stmt body) {
  return std::make_shared<const StmtNode>(
      StmtNode{.kind = StmtKind::Allocate, .buffer = std::move(buffer), .body = std::move(body)});
}

Stmt makeIfThenElse(Expr condition, Stmt thenBody, Stmt elseBody) {
  return std::make_shared<const StmtNode>(StmtNode{.kind = StmtKind::IfThenElse,
                                                   .condition = std::move(condition),
                                                   .body = std::move(thenBody),
                                                   .elseBody = std::move(elseBody)});
}

Stmt makeSequence(std::vector<Stmt> statements) {
  if (statements.size() == 1)
    return statements.front();
  return std::make_shared<const StmtNode>(
      StmtNode{.kind = StmtKind::Sequence, .sequence = std::move(statements)});
}

Stmt makeBarrier() {
  return std::make_shared<const StmtNode>(StmtNode{.kind = StmtKind::Barrier});
}

bool isThreadBound(ForKind kind) {
  switch (kind) {
  case ForKind::Serial:
  case ForKind::Parallel:
  case ForKind::Vectorized:
  case ForKind::Unrolled:
    return false;
  case ForKind::BlockIdxX:
  case ForKind::BlockIdxY:
  case ForKind::BlockIdxZ:
  case ForKind::VThread:
  case ForKind::ThreadIdxX:
  case ForKind::ThreadIdxY:
  case ForKind::ThreadIdxZ:
    return true;
  }
  return false;
}

const char* forKindName(ForKind kind) {
  switch (kind) {
  case ForKind::Serial:
    return "serial";
  case ForKind::Parallel:
    return "parallel";
  case ForKind::Vectorized:
    return "vectorized";
  case ForKind::Unrolled:
    return "unrolled";
  case ForKind::BlockIdxX:
    return "blockIdx.x";
  case ForKind::BlockIdxY:
    return "blockIdx.y";
  case ForKind::BlockIdxZ:
    return "blockIdx.z";
  case ForKind::VThread:
    return "vthread";
  case ForKind::ThreadIdxX:
    return "threadIdx.x";
  case ForKind::ThreadIdxY:
    return "threadIdx.y";
  case ForKind::ThreadIdxZ:
    return "threadIdx.z";
  }
  return "serial";
}

std::string toString(const Stmt& stmt, int indent) {
  const std::string pad(2 * indent, ' ');
  std::ostringstream text;
  switch (stmt->kind) {
  case StmtKind::For:
    text << pad << "for " << stmt->loopVar->name << " in 0.." << stmt->extent;
    if (stmt->forKind != ForKind::Serial)
      text << ' ' << forKindName(stmt->forKind);
    if (stmt->autoUnrollMaxStep)
      text << " auto_unroll_max_step=" << stmt->autoUnrollMaxStep;
    text << ":\n" << toString(stmt->body, indent + 1);
    break;
  case StmtKind::Store:
    text << pad << stmt->buffer->name << '[' << toString(stmt->index)
         << "] = " << toString(stmt->value) << '\n';
    break;
  case StmtKind::Allocate:
    text << pad << "allocate " << stmt->buffer->name
         << (stmt->buffer->scope == BufferScope::Shared ? " shared: " : ": ")
         << graph::dataTypeName(stmt->buffer->dtype) << '[' << stmt->buffer->elements << "]\n"
         << toString(stmt->body, indent);
    break;
  case StmtKind::IfThenElse:
    text << pad << "if " << toString(stmt->condition) << ":\n" << toString(stmt->body, indent + 1);
    if (stmt->elseBody)
      text << pad << "else:\n" << toString(stmt->elseBody, indent + 1);
    break;
  case StmtKind::Sequence:
    for (const Stmt& child : stmt->sequence)
      text << toString(child, indent);
    break;
  case StmtKind::Barrier:
    text << pad << "barrier\n";
    break;
  }
  return text.str();
}

std::string toString(const LoweredFunction& function) {
  std::ostringstream text;
  text << "function " << function.name << '(';
  for (std::size_t i = 0; i < function.arguments.size(); ++i)
    text << (i ? ", " : "") << function.arguments[i]->name << ": "
         << graph::dataTypeName(function.arguments[i]->dtype) << '['
         << function.arguments[i]->elements << ']';
  text << "):\n" << toString(function.body, 1);
  return text.str();
}

} // namespace clustune::te
