// See DagRewrite.h: the copy tensor of cache_read. It gets fresh axis variables so that its
// loops print as "<name>.<scope>.i0" and no variable is shared with the tensor it copies.
#include "schedule/DagRewrite.h"

namespace clustune::schedule {

te::Tensor cacheReadTensor(const te::Tensor& read, const std::string& scope) {
  const std::string copyName = read->name + "." + scope;
  std::vector<te::IterVar> axes;
  std::vector<te::Expr> indices;
  for (std::size_t d = 0; d < read->shape.size(); ++d) {
    axes.push_back({te::makeVar(copyName + ".i" + std::to_string(d)), read->shape[d]});
    indices.push_back(te::varExpr(axes.back().var));
  }
  return std::make_shared<const te::TensorNode>(te::TensorNode{.name = copyName,
                                                               .shape = read->shape,
                                                               .dtype = read->dtype,
                                                               .kind = te::TensorKind::Compute,
                                                               .axes = axes,
                                                               .body = te::load(read, indices)});
}

} // namespace clustune::schedule
