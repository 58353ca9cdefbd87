// See Tensor.h.
#include "te/Tensor.h"

#include <functional>
#include <sstream>
#include <unordered_set>

namespace clustune::te {

Tensor placeholder(std::string name, Shape shape, DataType dtype) {
  return std::make_shared<const TensorNode>(TensorNode{.name = std::move(name),
                                                       .shape = std::move(shape),
                                                       .dtype = dtype,
                                                       .kind = TensorKind::Placeholder});
}

Tensor compute(std::string name, Shape shape,
               const std::function<Expr(const std::vector<Expr>& indices)>& body) {
  std::vector<IterVar> axes;
  std::vector<Expr> indices;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    axes.push_back({makeVar(name + ".i" + std::to_string(i)), shape[i]});
    indices.push_back(varExpr(axes.back().var));
  }
  Expr value = body(indices);
  const DataType dtype = value->dtype;
  return std::make_shared<const TensorNode>(TensorNode{.name = std::move(name),
                                                       .shape = std::move(shape),
                                                       .dtype = dtype,
                                                       .kind = TensorKind::Compute,
                                                       .axes = std::move(axes),
                                                       .body = std::move(value)});
}

std::vector<Tensor> producersOf(const Tensor& stage) {
  std::vector<Tensor> producers;
  std::unordered_set<const TensorNode*> seen;
  std::function<void(const Expr&)> visit = [&](const Expr& expr) {
    if (expr->kind == ExprKind::Load && seen.insert(expr->tensor.get()).second)
      producers.push_back(expr->tensor);
    for (const Expr& operand : expr->operands)
      visit(operand);
  };
  if (stage->body)
    visit(stage->body);
  return producers;
}

std::string toString(const Workload& workload) {
  std::ostringstream text;
  text << "workload " << workload.key << '\n';
  for (const Tensor& input : workload.inputs)
    text << "  input " << input->name << ": " << graph::dataTypeName(input->dtype) << '['
         << graph::shapeToString(input->shape) << "]\n";
  for (const Tensor& stage : workload.stages) {
    text << "  " << stage->name << '[';
    for (std::size_t i = 0; i < stage->axes.size(); ++i)
      text << (i ? ", " : "") << stage->axes[i].var->name;
    text << "] = " << toString(stage->body) << '\n';
  }
  text << "  outputs:";
  for (const Tensor& output : workload.outputs)
    text << ' ' << output->name;
  text << '\n';
  return text.str();
}

} // namespace clustune::te
