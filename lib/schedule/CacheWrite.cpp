// See DagRewrite.h: the tensors of cache_write. The cache stage gets fresh axis variables so
// that its loops print as "<name>.local.i0"; its reduce axes stay those of the original body,
// which no other stage uses once the original tensor is replaced.
#include "schedule/DagRewrite.h"
#include "schedule/ExprUtil.h"

namespace clustune::schedule {

StagePair cacheWriteTensors(const te::Tensor& stage) {
  const std::string cacheName = stage->name + ".local";
  te::TensorNode cache = *stage;
  cache.name = cacheName;
  VarMap fresh;
  std::vector<te::Expr> indices;
  for (std::size_t d = 0; d < stage->axes.size(); ++d) {
    const te::Var var = te::makeVar(cacheName + ".i" + std::to_string(d));
    cache.axes[d].var = var;
    fresh[stage->axes[d].var.get()] = te::varExpr(var);
    indices.push_back(te::varExpr(stage->axes[d].var));
  }
  cache.body = substitute(stage->body, fresh);
  const te::Tensor producer = std::make_shared<const te::TensorNode>(std::move(cache));

  te::TensorNode copy = *stage;
  copy.body = te::load(producer, indices);
  return {producer, std::make_shared<const te::TensorNode>(std::move(copy))};
}

} // namespace clustune::schedule
