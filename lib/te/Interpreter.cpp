// See Interpreter.h. Each stage's body is compiled once into a tree of closures over an array
// of loop-variable values (one slot per spatial or reduce axis), so evaluating an element costs
// one indirect call per expression node and no lookups.
#include "te/Interpreter.h"

#include "support/Error.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <unordered_map>

namespace clustune::te {
namespace {

// Evaluates a compiled expression given the current values of the stage's variables.
using Evaluator = std::function<double(double* variables)>;

template <class Integer>
double truncateToInteger(double value) {
  if (std::isnan(value))
    return 0.0;
  // Out-of-range conversions are undefined in ONNX; saturating to int64 and then wrapping to the
  // narrower type keeps the result defined and deterministic.
  constexpr double kInt64Limit = 9223372036854775808.0; // 2^63
  const double truncated = std::trunc(value);
  std::int64_t wide = std::numeric_limits<std::int64_t>::max();
  if (truncated < -kInt64Limit)
    wide = std::numeric_limits<std::int64_t>::min();
  else if (truncated < kInt64Limit)
    wide = static_cast<std::int64_t>(truncated);
  return static_cast<double>(static_cast<Integer>(wide));
}

// The value that a tensor of `dtype` holds for `value` (what a cast or a store produces).
double convertTo(DataType dtype, double value) {
  switch (dtype) {
  case DataType::Float32:
    return static_cast<float>(value);
  case DataType::Float64:
    return value;
  case DataType::Int64:
    return truncateToInteger<std::int64_t>(value);
  case DataType::Int32:
    return truncateToInteger<std::int32_t>(value);
  case DataType::Int8:
    return truncateToInteger<std::int8_t>(value);
  case DataType::UInt8:
    return truncateToInteger<std::uint8_t>(value);
  case DataType::Bool:
    return value != 0.0 ? 1.0 : 0.0;
  case DataType::Float16:
    break;
  }
  throw Error(std::string("the interpreter does not compute in ") + graph::dataTypeName(dtype));
}

template <class Element>
double readElement(const void* data, std::int64_t index) {
  Element element;
  std::memcpy(&element, static_cast<const unsigned char*>(data) + index * sizeof(Element),
              sizeof(Element));
  return static_cast<double>(element);
}

using ElementReader = double (*)(const void* data, std::int64_t index);

ElementReader readerFor(DataType dtype) {
  switch (dtype) {
  case DataType::Float32:
    return readElement<float>;
  case DataType::Float64:
    return readElement<double>;
  case DataType::Int64:
    return readElement<std::int64_t>;
  case DataType::Int32:
    return readElement<std::int32_t>;
  case DataType::Int8:
    return readElement<std::int8_t>;
  case DataType::UInt8:
  case DataType::Bool:
    return readElement<std::uint8_t>;
  case DataType::Float16:
    break;
  }
  throw Error(std::string("the interpreter does not compute in ") + graph::dataTypeName(dtype));
}

[[noreturn]] void failOutOfBounds(const std::string& tensorName, std::size_t dimension,
                                  std::int64_t index, std::int64_t extent) {
  assert(false && "out-of-bounds load: a lowering is wrong");
  throw Error("out-of-bounds load of " + tensorName + ": index " + std::to_string(index) +
              " in dimension " + std::to_string(dimension) + " of extent " +
              std::to_string(extent));
}

template <class Combine>
Evaluator reduceEvaluator(Evaluator source, std::vector<int> slots,
                          std::vector<std::int64_t> extents, double identity, Combine combine) {
  bool empty = false;
  for (std::int64_t extent : extents)
    empty = empty || extent == 0;
  return [source = std::move(source), slots = std::move(slots), extents = std::move(extents),
          identity, empty, combine](double* variables) {
    double accumulator = identity;
    if (empty)
      return accumulator;
    for (int slot : slots)
      variables[slot] = 0.0;
    const int last = static_cast<int>(slots.size()) - 1;
    while (true) {
      accumulator = combine(accumulator, source(variables));
      int axis = last;
      for (; axis >= 0; --axis) {
        if (++variables[slots[axis]] < static_cast<double>(extents[axis]))
          break;
        variables[slots[axis]] = 0.0;
      }
      if (axis < 0)
        return accumulator;
    }
  };
}

template <class Operation>
Evaluator binaryEvaluator(Evaluator left, Evaluator right, Operation operation) {
  return [left = std::move(left), right = std::move(right), operation](double* variables) {
    return operation(left(variables), right(variables));
  };
}

template <class Operation>
Evaluator unaryEvaluator(Evaluator operand, Operation operation) {
  return [operand = std::move(operand), operation](double* variables) {
    return operation(operand(variables));
  };
}

// Compiles the expressions of one stage. Variables get slots as the stage binds them (its axes
// first, then the axes of each Reduce), so a variable the stage does not bind is caught here.
class StageCompiler {
public:
  StageCompiler(const Tensor& stage,
                const std::unordered_map<const TensorNode*, const TensorData*>& values)
      : stage_(stage), values_(values) {}

  int bind(const Var& var) {
    const int slot = slotCount_++;
    slots_[var.get()] = slot;
    return slot;
  }
  int slotCount() const { return slotCount_; }

  Evaluator compile(const Expr& expr) {
    switch (expr->kind) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm: {
      const double value = convertTo(expr->dtype, expr->kind == ExprKind::IntImm
                                                      ? static_cast<double>(expr->intValue)
                                                      : expr->floatValue);
      return [value](double*) { return value; };
    }
    case ExprKind::Variable: {
      auto found = slots_.find(expr->var.get());
      if (found == slots_.end())
        throw Error("stage " + stage_->name + " uses variable '" + expr->var->name +
                    "' that none of its axes binds");
      const int slot = found->second;
      return [slot](double* variables) { return variables[slot]; };
    }
    case ExprKind::Add:
      return binary(expr, [](double a, double b) { return a + b; });
    case ExprKind::Sub:
      return binary(expr, [](double a, double b) { return a - b; });
    case ExprKind::Mul:
      return binary(expr, [](double a, double b) { return a * b; });
    case ExprKind::Div:
      if (graph::isFloatingPoint(expr->dtype))
        return binary(expr, [](double a, double b) { return a / b; });
      return binary(expr, [](double a, double b) { return std::trunc(a / b); });
    case ExprKind::FloorDiv:
      return binary(expr, [](double a, double b) { return std::floor(a / b); });
    case ExprKind::FloorMod:
      return binary(expr, [](double a, double b) { return a - std::floor(a / b) * b; });
    case ExprKind::Min:
      return binary(expr, [](double a, double b) { return std::fmin(a, b); });
    case ExprKind::Max:
      return binary(expr, [](double a, double b) { return std::fmax(a, b); });
    case ExprKind::Equal:
      return binary(expr, [](double a, double b) { return a == b ? 1.0 : 0.0; });
    case ExprKind::NotEqual:
      return binary(expr, [](double a, double b) { return a != b ? 1.0 : 0.0; });
    case ExprKind::Less:
      return binary(expr, [](double a, double b) { return a < b ? 1.0 : 0.0; });
    case ExprKind::LessEqual:
      return binary(expr, [](double a, double b) { return a <= b ? 1.0 : 0.0; });
    case ExprKind::Greater:
      return binary(expr, [](double a, double b) { return a > b ? 1.0 : 0.0; });
    case ExprKind::GreaterEqual:
      return binary(expr, [](double a, double b) { return a >= b ? 1.0 : 0.0; });
    case ExprKind::And:
      return [left = operand(expr, 0), right = operand(expr, 1)](double* variables) {
        return left(variables) != 0.0 && right(variables) != 0.0 ? 1.0 : 0.0;
      };
    case ExprKind::Or:
      return [left = operand(expr, 0), right = operand(expr, 1)](double* variables) {
        return left(variables) != 0.0 || right(variables) != 0.0 ? 1.0 : 0.0;
      };
    case ExprKind::Not:
      return unaryEvaluator(operand(expr, 0), [](double a) { return a == 0.0 ? 1.0 : 0.0; });
    case ExprKind::Select:
      return [condition = operand(expr, 0), whenTrue = operand(expr, 1),
              whenFalse = operand(expr, 2)](double* variables) {
        return condition(variables) != 0.0 ? whenTrue(variables) : whenFalse(variables);
      };
    case ExprKind::Cast:
      return unaryEvaluator(operand(expr, 0),
                            [dtype = expr->dtype](double a) { return convertTo(dtype, a); });
    case ExprKind::Call:
      return compileCall(expr);
    case ExprKind::Load:
      return compileLoad(expr);
    case ExprKind::Reduce:
      return compileReduce(expr);
    case ExprKind::BufferLoad:
      break;
    }
    throw Error("stage " + stage_->name + " contains a " + exprKindName(expr->kind) +
                ", which only lowered loop nests may use");
  }

private:
  Evaluator operand(const Expr& expr, std::size_t index) { return compile(expr->operands[index]); }

  template <class Operation>
  Evaluator binary(const Expr& expr, Operation operation) {
    return binaryEvaluator(operand(expr, 0), operand(expr, 1), operation);
  }

  Evaluator compileCall(const Expr& expr) {
    auto unary = [&](double (*function)(double)) {
      return unaryEvaluator(operand(expr, 0), function);
    };
    switch (expr->function) {
    case CallFunction::Exp:
      return unary([](double a) { return std::exp(a); });
    case CallFunction::Log:
      return unary([](double a) { return std::log(a); });
    case CallFunction::Sqrt:
      return unary([](double a) { return std::sqrt(a); });
    case CallFunction::Tanh:
      return unary([](double a) { return std::tanh(a); });
    case CallFunction::Erf:
      return unary([](double a) { return std::erf(a); });
    case CallFunction::Sigmoid:
      return unary([](double a) { return 1.0 / (1.0 + std::exp(-a)); });
    case CallFunction::Pow:
      return binary(expr, [](double a, double b) { return std::pow(a, b); });
    case CallFunction::Abs:
      return unary([](double a) { return std::fabs(a); });
    case CallFunction::Neg:
      return unary([](double a) { return -a; });
    case CallFunction::Floor:
      return unary([](double a) { return std::floor(a); });
    case CallFunction::Ceil:
      return unary([](double a) { return std::ceil(a); });
    case CallFunction::Round:
      // nearbyint rounds half to even in the default rounding mode, as ONNX Round does.
      return unary([](double a) { return std::nearbyint(a); });
    case CallFunction::Fmod:
      return binary(expr, [](double a, double b) { return std::fmod(a, b); });
    case CallFunction::Sin:
      return unary([](double a) { return std::sin(a); });
    case CallFunction::Cos:
      return unary([](double a) { return std::cos(a); });
    case CallFunction::Tan:
      return unary([](double a) { return std::tan(a); });
    case CallFunction::Asin:
      return unary([](double a) { return std::asin(a); });
    case CallFunction::Acos:
      return unary([](double a) { return std::acos(a); });
    case CallFunction::Atan:
      return unary([](double a) { return std::atan(a); });
    case CallFunction::Sinh:
      return unary([](double a) { return std::sinh(a); });
    case CallFunction::Cosh:
      return unary([](double a) { return std::cosh(a); });
    case CallFunction::Asinh:
      return unary([](double a) { return std::asinh(a); });
    case CallFunction::Acosh:
      return unary([](double a) { return std::acosh(a); });
    case CallFunction::Atanh:
      return unary([](double a) { return std::atanh(a); });
    }
    throw Error(std::string("unknown function ") + callFunctionName(expr->function));
  }

  Evaluator compileLoad(const Expr& expr) {
    const Tensor& tensor = expr->tensor;
    auto found = values_.find(tensor.get());
    if (found == values_.end())
      throw Error("stage " + stage_->name + " reads " + tensor->name +
                  ", which is neither a workload input nor an earlier stage");
    std::vector<Evaluator> indices;
    for (const Expr& index : expr->operands)
      indices.push_back(compile(index));
    const Shape& extents = tensor->shape;
    std::vector<std::int64_t> strides(extents.size(), 1);
    for (std::size_t axis = extents.size(); axis-- > 1;)
      strides[axis - 1] = strides[axis] * extents[axis];
    return [indices = std::move(indices), extents, strides = std::move(strides),
            data = found->second->data(), read = readerFor(tensor->dtype),
            name = tensor->name](double* variables) {
      std::int64_t offset = 0;
      for (std::size_t axis = 0; axis < indices.size(); ++axis) {
        const auto index = static_cast<std::int64_t>(indices[axis](variables));
        if (index < 0 || index >= extents[axis])
          failOutOfBounds(name, axis, index, extents[axis]);
        offset += index * strides[axis];
      }
      return read(data, offset);
    };
  }

  Evaluator compileReduce(const Expr& expr) {
    std::vector<int> slots;
    std::vector<std::int64_t> extents;
    for (const IterVar& axis : expr->reduceAxes) {
      slots.push_back(bind(axis.var));
      extents.push_back(axis.extent);
    }
    Evaluator source = operand(expr, 0);
    const Expr identityExpr = reducerIdentity(expr->reducer, expr->dtype);
    const double identity = identityExpr->kind == ExprKind::IntImm
                                ? static_cast<double>(identityExpr->intValue)
                                : identityExpr->floatValue;
    switch (expr->reducer) {
    case Reducer::Sum:
      return reduceEvaluator(std::move(source), std::move(slots), std::move(extents), identity,
                             [](double a, double b) { return a + b; });
    case Reducer::Max:
      return reduceEvaluator(std::move(source), std::move(slots), std::move(extents), identity,
                             [](double a, double b) { return std::fmax(a, b); });
    case Reducer::Min:
      return reduceEvaluator(std::move(source), std::move(slots), std::move(extents), identity,
                             [](double a, double b) { return std::fmin(a, b); });
    case Reducer::Prod:
      return reduceEvaluator(std::move(source), std::move(slots), std::move(extents), identity,
                             [](double a, double b) { return a * b; });
    }
    throw Error(std::string("unknown reducer ") + reducerName(expr->reducer));
  }

  const Tensor& stage_;
  const std::unordered_map<const TensorNode*, const TensorData*>& values_;
  std::unordered_map<const VarNode*, int> slots_;
  int slotCount_ = 0;
};

void evaluateStage(const Tensor& stage,
                   const std::unordered_map<const TensorNode*, const TensorData*>& values,
                   TensorData& result) {
  StageCompiler compiler(stage, values);
  std::vector<int> axisSlots;
  for (const IterVar& axis : stage->axes)
    axisSlots.push_back(compiler.bind(axis.var));
  const Evaluator body = compiler.compile(stage->body);
  std::vector<double> variables(static_cast<std::size_t>(compiler.slotCount()), 0.0);
  const int last = static_cast<int>(axisSlots.size()) - 1;
  for (std::int64_t element = 0; element < result.elements(); ++element) {
    result.set(element, convertTo(stage->dtype, body(variables.data())));
    for (int axis = last; axis >= 0; --axis) {
      if (++variables[axisSlots[axis]] < static_cast<double>(stage->shape[axis]))
        break;
      variables[axisSlots[axis]] = 0.0;
    }
  }
}

std::string describe(DataType dtype, const Shape& shape) {
  return std::string(graph::dataTypeName(dtype)) + "[" + graph::shapeToString(shape) + "]";
}

} // namespace

std::vector<TensorData> evaluateWorkload(const Workload& workload,
                                         const std::vector<TensorData>& inputs) {
  if (inputs.size() != workload.inputs.size())
    throw Error("workload " + workload.key + " takes " + std::to_string(workload.inputs.size()) +
                " inputs, given " + std::to_string(inputs.size()));
  std::unordered_map<const TensorNode*, const TensorData*> values;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& placeholder = workload.inputs[i];
    if (inputs[i].dtype() != placeholder->dtype || inputs[i].shape() != placeholder->shape)
      throw Error("input " + std::to_string(i) + " (" + placeholder->name + "): expected " +
                  describe(placeholder->dtype, placeholder->shape) + ", given " +
                  describe(inputs[i].dtype(), inputs[i].shape()));
    values[placeholder.get()] = &inputs[i];
  }
  // Sized up front: the compiled loads keep pointers into earlier stages' results.
  std::vector<TensorData> stageResults(workload.stages.size());
  for (std::size_t i = 0; i < workload.stages.size(); ++i) {
    const Tensor& stage = workload.stages[i];
    stageResults[i] = TensorData(stage->dtype, stage->shape);
    evaluateStage(stage, values, stageResults[i]);
    values[stage.get()] = &stageResults[i];
  }
  std::vector<TensorData> outputs;
  for (const Tensor& output : workload.outputs) {
    auto found = values.find(output.get());
    if (found == values.end())
      throw Error("workload " + workload.key + ": output " + output->name +
                  " is not one of its stages");
    outputs.push_back(*found->second);
  }
  return outputs;
}

} // namespace clustune::te
