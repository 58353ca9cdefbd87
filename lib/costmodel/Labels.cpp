#include "costmodel/Labels.h"

#include <cassert>

namespace clustune::costmodel {

double normalisedThroughput(double cost, double fastest) {
  assert(cost > 0 && fastest > 0 && fastest <= cost);
  return fastest / cost;
}

} // namespace clustune::costmodel
