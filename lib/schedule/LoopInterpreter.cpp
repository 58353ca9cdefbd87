// See LoopInterpreter.h. Values travel as a small tagged scalar: int64 for integer and bool
// types, double for floating-point types (rounded to the dtype after each operation). Select
// evaluates only the chosen branch, as a guard would, so padding reads never leave a buffer.
#include "schedule/LoopInterpreter.h"

#include "support/Error.h"

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

namespace clustune::schedule {

using namespace te;

namespace {

struct Value {
  double real = 0.0;
  std::int64_t integer = 0;
};

bool isFloat(DataType dtype) {
  return graph::isFloatingPoint(dtype);
}

double roundTo(DataType dtype, double value) {
  return dtype == DataType::Float32 ? static_cast<double>(static_cast<float>(value)) : value;
}

// Wraps an integer to the width of its dtype, as a machine register would.
std::int64_t wrapTo(DataType dtype, std::int64_t value) {
  switch (dtype) {
  case DataType::Int32:
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
  case DataType::Int8:
    return static_cast<std::int8_t>(static_cast<std::uint8_t>(value));
  case DataType::UInt8:
    return static_cast<std::uint8_t>(value);
  case DataType::Bool:
    return value != 0;
  default:
    return value;
  }
}

Value realValue(DataType dtype, double value) {
  return {.real = roundTo(dtype, value)};
}

Value intValue(DataType dtype, std::int64_t value) {
  return {.integer = wrapTo(dtype, value)};
}

// The comparisons, for integer and real operands alike; nullopt for any other kind.
template <class T>
std::optional<bool> compare(ExprKind kind, T a, T b) {
  switch (kind) {
  case ExprKind::Equal:
    return a == b;
  case ExprKind::NotEqual:
    return a != b;
  case ExprKind::Less:
    return a < b;
  case ExprKind::LessEqual:
    return a <= b;
  case ExprKind::Greater:
    return a > b;
  case ExprKind::GreaterEqual:
    return a >= b;
  default:
    return std::nullopt;
  }
}

std::int64_t floorDivide(std::int64_t a, std::int64_t b) {
  std::int64_t quotient = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --quotient;
  return quotient;
}

template <class T>
T readRaw(const TensorData& data, std::int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const unsigned char*>(data.data()) + index * sizeof(T),
              sizeof(T));
  return value;
}

template <class T>
void writeRaw(TensorData& data, std::int64_t index, T value) {
  std::memcpy(static_cast<unsigned char*>(data.data()) + index * sizeof(T), &value, sizeof(T));
}

// Exact element access (TensorData::get goes through double, which loses int64 precision).
Value readElement(const TensorData& data, std::int64_t index) {
  switch (data.dtype()) {
  case DataType::Float32:
    return {.real = readRaw<float>(data, index)};
  case DataType::Float64:
    return {.real = readRaw<double>(data, index)};
  case DataType::Int64:
    return {.integer = readRaw<std::int64_t>(data, index)};
  case DataType::Int32:
    return {.integer = readRaw<std::int32_t>(data, index)};
  case DataType::Int8:
    return {.integer = readRaw<std::int8_t>(data, index)};
  case DataType::UInt8:
  case DataType::Bool:
    return {.integer = readRaw<std::uint8_t>(data, index)};
  case DataType::Float16:
    break;
  }
  throw Error("loop interpreter: float16 buffers are not supported");
}

void writeElement(TensorData& data, std::int64_t index, const Value& value) {
  switch (data.dtype()) {
  case DataType::Float32:
    return writeRaw<float>(data, index, static_cast<float>(value.real));
  case DataType::Float64:
    return writeRaw<double>(data, index, value.real);
  case DataType::Int64:
    return writeRaw<std::int64_t>(data, index, value.integer);
  case DataType::Int32:
    return writeRaw<std::int32_t>(data, index, static_cast<std::int32_t>(value.integer));
  case DataType::Int8:
    return writeRaw<std::int8_t>(data, index, static_cast<std::int8_t>(value.integer));
  case DataType::UInt8:
  case DataType::Bool:
    return writeRaw<std::uint8_t>(data, index, static_cast<std::uint8_t>(value.integer));
  case DataType::Float16:
    break;
  }
  throw Error("loop interpreter: float16 buffers are not supported");
}

double applyFunction(CallFunction function, const std::vector<double>& arguments) {
  const double x = arguments[0];
  switch (function) {
  case CallFunction::Exp:
    return std::exp(x);
  case CallFunction::Log:
    return std::log(x);
  case CallFunction::Sqrt:
    return std::sqrt(x);
  case CallFunction::Tanh:
    return std::tanh(x);
  case CallFunction::Erf:
    return std::erf(x);
  case CallFunction::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case CallFunction::Pow:
    return std::pow(x, arguments.at(1));
  case CallFunction::Abs:
    return std::fabs(x);
  case CallFunction::Neg:
    return -x;
  case CallFunction::Floor:
    return std::floor(x);
  case CallFunction::Ceil:
    return std::ceil(x);
  case CallFunction::Round:
    return std::nearbyint(x); // ties to even, as ONNX Round
  case CallFunction::Fmod:
    return std::fmod(x, arguments.at(1));
  case CallFunction::Sin:
    return std::sin(x);
  case CallFunction::Cos:
    return std::cos(x);
  case CallFunction::Tan:
    return std::tan(x);
  case CallFunction::Asin:
    return std::asin(x);
  case CallFunction::Acos:
    return std::acos(x);
  case CallFunction::Atan:
    return std::atan(x);
  case CallFunction::Sinh:
    return std::sinh(x);
  case CallFunction::Cosh:
    return std::cosh(x);
  case CallFunction::Asinh:
    return std::asinh(x);
  case CallFunction::Acosh:
    return std::acosh(x);
  case CallFunction::Atanh:
    return std::atanh(x);
  }
  return x;
}

bool containsBarrier(const Stmt& stmt) {
  if (!stmt)
    return false;
  switch (stmt->kind) {
  case StmtKind::Barrier:
    return true;
  case StmtKind::For:
  case StmtKind::Allocate:
    return containsBarrier(stmt->body);
  case StmtKind::IfThenElse:
    return containsBarrier(stmt->body) || containsBarrier(stmt->elseBody);
  case StmtKind::Sequence:
    return std::any_of(stmt->sequence.begin(), stmt->sequence.end(), containsBarrier);
  case StmtKind::Store:
    return false;
  }
  return false;
}

bool isThreadIndexLoop(ForKind kind) {
  return kind == ForKind::ThreadIdxX || kind == ForKind::ThreadIdxY || kind == ForKind::ThreadIdxZ;
}

// The threads of one block while the interpreter runs them at once, one OS thread each (a
// thread loop whose body holds a barrier): the barrier they meet at, and the block's shared
// buffers, made by the first thread to reach their Allocate.
struct ThreadBlock {
  explicit ThreadBlock(std::int64_t threads) : barrier(threads) {}
  std::barrier<> barrier;
  std::mutex mutex; // guards `shared`
  std::unordered_map<const BufferNode*, std::unique_ptr<TensorData>> shared;
};

class Interpreter {
public:
  void bind(const Buffer& buffer, TensorData* data) { buffers_[buffer.get()] = data; }

  void execute(const Stmt& stmt) {
    switch (stmt->kind) {
    case StmtKind::For: {
      if (isThreadIndexLoop(stmt->forKind)) {
        if (block_ && stmt->forKind == blockKind_) {
          // The same threads again (a cooperative fetch inside the compute's thread loop): this
          // thread runs the body once, with its own index, if the loop reaches it.
          if (threadIndex_ < stmt->extent) {
            variables_[stmt->loopVar.get()] = threadIndex_;
            execute(stmt->body);
            variables_.erase(stmt->loopVar.get());
          }
          break;
        }
        if (!block_ && containsBarrier(stmt->body)) {
          runThreads(*stmt);
          break;
        }
      }
      const VarNode* var = stmt->loopVar.get();
      for (std::int64_t i = 0; i < stmt->extent; ++i) {
        variables_[var] = i;
        execute(stmt->body);
      }
      variables_.erase(var);
      break;
    }
    case StmtKind::Store: {
      TensorData& data = buffer(stmt->buffer);
      const std::int64_t index = checkedIndex(stmt->buffer, evaluate(stmt->index).integer);
      Value value = evaluate(stmt->value);
      writeElement(data, index, value);
      break;
    }
    case StmtKind::Allocate: {
      const Buffer& allocated = stmt->buffer;
      if (block_ && allocated->scope == BufferScope::Shared) {
        TensorData* shared = nullptr;
        {
          const std::lock_guard lock(block_->mutex);
          auto& slot = block_->shared[allocated.get()];
          if (!slot)
            slot =
                std::make_unique<TensorData>(allocated->dtype, graph::Shape{allocated->elements});
          shared = slot.get();
        }
        executeWith(allocated.get(), shared, stmt->body);
        break;
      }
      auto storage =
          std::make_unique<TensorData>(allocated->dtype, graph::Shape{allocated->elements});
      executeWith(allocated.get(), storage.get(), stmt->body);
      break;
    }
    case StmtKind::IfThenElse:
      if (evaluate(stmt->condition).integer)
        execute(stmt->body);
      else if (stmt->elseBody)
        execute(stmt->elseBody);
      break;
    case StmtKind::Sequence:
      for (const Stmt& child : stmt->sequence)
        execute(child);
      break;
    case StmtKind::Barrier:
      // Outside a block run on OS threads, the thread loops run one after another, which
      // already orders every write before every later read.
      if (block_)
        block_->barrier.arrive_and_wait();
      break;
    }
  }

private:
  // Runs `body` with `buffer` bound to `data`, then restores what it was bound to.
  void executeWith(const BufferNode* buffer, TensorData* data, const Stmt& body) {
    auto found = buffers_.find(buffer);
    TensorData* previous = found == buffers_.end() ? nullptr : found->second;
    buffers_[buffer] = data;
    execute(body);
    if (previous)
      buffers_[buffer] = previous;
    else
      buffers_.erase(buffer);
  }

  // Runs the thread loop's iterations at once, one OS thread each, so that they meet at the
  // barriers in its body as a GPU block's threads do. The first error of any thread is thrown
  // once all have stopped; a thread that fails leaves the barrier, so the others finish.
  void runThreads(const StmtNode& loop) {
    ThreadBlock block(loop.extent);
    std::mutex errorMutex;
    std::exception_ptr error;
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(loop.extent));
    for (std::int64_t t = 0; t < loop.extent; ++t)
      threads.emplace_back([&, t] {
        Interpreter thread(*this);
        thread.block_ = &block;
        thread.blockKind_ = loop.forKind;
        thread.threadIndex_ = t;
        thread.variables_[loop.loopVar.get()] = t;
        try {
          thread.execute(loop.body);
        } catch (...) {
          {
            const std::lock_guard lock(errorMutex);
            if (!error)
              error = std::current_exception();
          }
          block.barrier.arrive_and_drop();
        }
      });
    for (std::thread& thread : threads)
      thread.join();
    if (error)
      std::rethrow_exception(error);
  }

  TensorData& buffer(const Buffer& buffer) {
    auto found = buffers_.find(buffer.get());
    if (found == buffers_.end())
      throw Error("loop interpreter: buffer '" + buffer->name + "' is used outside its allocation");
    return *found->second;
  }

  std::int64_t checkedIndex(const Buffer& buffer, std::int64_t index) const {
    if (index < 0 || index >= buffer->elements)
      throw Error("loop interpreter: buffer '" + buffer->name + "': index " +
                  std::to_string(index) + " is out of bounds [0, " +
                  std::to_string(buffer->elements) + ")");
    return index;
  }

  Value evaluate(const Expr& expr) {
    const DataType dtype = expr->dtype;
    switch (expr->kind) {
    case ExprKind::IntImm:
      return isFloat(dtype) ? realValue(dtype, static_cast<double>(expr->intValue))
                            : intValue(dtype, expr->intValue);
    case ExprKind::FloatImm:
      return realValue(dtype, expr->floatValue);
    case ExprKind::Variable: {
      auto found = variables_.find(expr->var.get());
      if (found == variables_.end())
        throw Error("loop interpreter: variable '" + expr->var->name + "' is not bound");
      return {.integer = found->second};
    }
    case ExprKind::And:
      return {.integer =
                  evaluate(expr->operands[0]).integer && evaluate(expr->operands[1]).integer};
    case ExprKind::Or:
      return {.integer =
                  evaluate(expr->operands[0]).integer || evaluate(expr->operands[1]).integer};
    case ExprKind::Not:
      return {.integer = !evaluate(expr->operands[0]).integer};
    case ExprKind::Select:
      return evaluate(expr->operands[0]).integer ? evaluate(expr->operands[1])
                                                 : evaluate(expr->operands[2]);
    case ExprKind::Cast:
      return convert(evaluate(expr->operands[0]), expr->operands[0]->dtype, dtype);
    case ExprKind::Call: {
      std::vector<double> arguments;
      for (const Expr& operand : expr->operands) {
        const Value value = evaluate(operand);
        arguments.push_back(isFloat(operand->dtype) ? value.real
                                                    : static_cast<double>(value.integer));
      }
      const double result = applyFunction(expr->function, arguments);
      return isFloat(dtype) ? realValue(dtype, result)
                            : intValue(dtype, static_cast<std::int64_t>(result));
    }
    case ExprKind::BufferLoad: {
      const TensorData& data = buffer(expr->buffer);
      return readElement(data, checkedIndex(expr->buffer, evaluate(expr->operands[0]).integer));
    }
    case ExprKind::Load:
    case ExprKind::Reduce:
      throw Error(std::string("loop interpreter: ") + exprKindName(expr->kind) +
                  " must not survive lowering");
    default:
      return binaryOperation(expr);
    }
  }

  static Value convert(const Value& value, DataType from, DataType to) {
    if (isFloat(to))
      return realValue(to, isFloat(from) ? value.real : static_cast<double>(value.integer));
    if (!isFloat(from))
      return intValue(to, value.integer);
    if (to == DataType::Bool)
      return {.integer = value.real != 0.0};
    if (!std::isfinite(value.real))
      throw Error("loop interpreter: cannot convert a non-finite value to an integer");
    return intValue(to, static_cast<std::int64_t>(std::trunc(value.real)));
  }

  Value binaryOperation(const Expr& expr) {
    const Value left = evaluate(expr->operands[0]);
    const Value right = evaluate(expr->operands[1]);
    const DataType operandType = expr->operands[0]->dtype;
    const DataType dtype = expr->dtype;
    if (isFloat(operandType)) {
      const double a = left.real, b = right.real;
      switch (expr->kind) {
      case ExprKind::Add:
        return realValue(dtype, a + b);
      case ExprKind::Sub:
        return realValue(dtype, a - b);
      case ExprKind::Mul:
        return realValue(dtype, a * b);
      case ExprKind::Div:
        return realValue(dtype, a / b);
      case ExprKind::FloorDiv:
        return realValue(dtype, std::floor(a / b));
      case ExprKind::FloorMod:
        return realValue(dtype, a - std::floor(a / b) * b);
      case ExprKind::Min:
        return realValue(dtype, a < b ? a : b);
      case ExprKind::Max:
        return realValue(dtype, a > b ? a : b);
      default:
        if (const auto comparison = compare(expr->kind, a, b))
          return {.integer = *comparison};
        break;
      }
    } else {
      const std::int64_t a = left.integer, b = right.integer;
      const bool divides = expr->kind == ExprKind::Div || expr->kind == ExprKind::FloorDiv ||
                           expr->kind == ExprKind::FloorMod;
      if (divides && b == 0)
        throw Error("loop interpreter: integer division by zero in " + toString(expr));
      // Unsigned arithmetic wraps instead of overflowing, like the machine.
      const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
      switch (expr->kind) {
      case ExprKind::Add:
        return intValue(dtype, static_cast<std::int64_t>(ua + ub));
      case ExprKind::Sub:
        return intValue(dtype, static_cast<std::int64_t>(ua - ub));
      case ExprKind::Mul:
        return intValue(dtype, static_cast<std::int64_t>(ua * ub));
      case ExprKind::Div:
        return intValue(dtype, a / b);
      case ExprKind::FloorDiv:
        return intValue(dtype, floorDivide(a, b));
      case ExprKind::FloorMod:
        return intValue(dtype, a - floorDivide(a, b) * b);
      case ExprKind::Min:
        return intValue(dtype, a < b ? a : b);
      case ExprKind::Max:
        return intValue(dtype, a > b ? a : b);
      default:
        if (const auto comparison = compare(expr->kind, a, b))
          return {.integer = *comparison};
        break;
      }
    }
    throw Error(std::string("loop interpreter: unexpected expression ") + exprKindName(expr->kind));
  }

  std::unordered_map<const VarNode*, std::int64_t> variables_;
  std::unordered_map<const BufferNode*, TensorData*> buffers_;
  // Set while this interpreter is one thread of a block run on OS threads.
  ThreadBlock* block_ = nullptr;
  ForKind blockKind_ = ForKind::Serial;
  std::int64_t threadIndex_ = 0;
};

} // namespace

void runLoweredFunction(const LoweredFunction& function, std::vector<TensorData*> arguments) {
  if (arguments.size() != function.arguments.size())
    throw Error("function '" + function.name + "' takes " +
                std::to_string(function.arguments.size()) + " arguments, got " +
                std::to_string(arguments.size()));
  Interpreter interpreter;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const Buffer& buffer = function.arguments[i];
    TensorData* data = arguments[i];
    if (!data || data->dtype() != buffer->dtype || data->elements() != buffer->elements)
      throw Error("function '" + function.name + "': argument " + std::to_string(i) + " ('" +
                  buffer->name + "') must be " + graph::dataTypeName(buffer->dtype) + "[" +
                  std::to_string(buffer->elements) + "]" +
                  (data ? std::string(", got ") + graph::dataTypeName(data->dtype()) + "[" +
                              std::to_string(data->elements()) + "]"
                        : std::string(", got none")));
    interpreter.bind(buffer, data);
  }
  interpreter.execute(function.body);
}

} // namespace clustune::schedule
