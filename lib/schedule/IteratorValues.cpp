// See IteratorValues.h.
#include "schedule/IteratorValues.h"

namespace clustune::schedule {

using namespace te;

std::vector<SplitGuard> recombineIteratorValues(const Stage& stage,
                                                const std::vector<std::int64_t>& extents,
                                                std::vector<Expr>& values) {
  std::vector<SplitGuard> guards;
  // Later relations consume the outputs of earlier ones, so in reverse order every relation's
  // outputs already have values.
  for (auto relation = stage.relations.rbegin(); relation != stage.relations.rend(); ++relation) {
    if (relation->kind == IteratorRelation::Kind::Split) {
      const int parent = relation->inputs[0];
      Expr value = intImm(0);
      std::int64_t stride = 1;
      for (std::size_t k = relation->outputs.size(); k-- > 0;) {
        value = values[relation->outputs[k]] * intImm(stride) + value;
        stride *= extents[relation->outputs[k]];
      }
      values[parent] = value;
      std::int64_t product = 1;
      for (std::int64_t factor : relation->factors)
        product *= factor;
      if (extents[parent] % product != 0)
        guards.push_back({value < intImm(extents[parent]), stage.iterators[parent].kind});
    } else {
      const Expr fused = values[relation->outputs[0]];
      std::int64_t stride = 1;
      for (std::size_t k = relation->inputs.size(); k-- > 0;) {
        const int part = relation->inputs[k];
        Expr value = stride == 1 ? fused : floorDiv(fused, intImm(stride));
        if (k > 0)
          value = floorMod(value, intImm(extents[part]));
        values[part] = value;
        stride *= extents[part];
      }
    }
  }
  return guards;
}

} // namespace clustune::schedule
