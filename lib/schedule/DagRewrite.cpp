// See DagRewrite.h: redirecting the loads of later stages to the tensors that replace a stage.
#include "schedule/DagRewrite.h"

#include "schedule/ExprUtil.h"

namespace clustune::schedule {

te::Tensor withReplacedProducers(const te::Tensor& tensor, const TensorReplacements& replacements) {
  if (!tensor->body)
    return tensor;
  const te::Expr body = rewriteBottomUp(tensor->body, [&](const te::Expr& node) {
    if (node->kind != te::ExprKind::Load)
      return node;
    auto found = replacements.find(node->tensor.get());
    return found == replacements.end() ? node : te::load(found->second, node->operands);
  });
  if (body.get() == tensor->body.get()) // te::operator== would build an Equal expression
    return tensor;
  te::TensorNode rebuilt = *tensor;
  rebuilt.body = body;
  return std::make_shared<const te::TensorNode>(std::move(rebuilt));
}

} // namespace clustune::schedule
