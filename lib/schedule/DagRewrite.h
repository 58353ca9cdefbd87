// The tensors behind cache_write, rfactor and cache_read, the steps that change the workload's
// dataflow graph (Ansor's compute-DAG-changing steps). cache_write and rfactor replace one stage
// by a pair of new tensors, a producer and a consumer, and every later stage that read the old
// tensor is rebuilt to read the consumer instead; cache_read adds a copy of a tensor that the
// chosen readers are rebuilt to read. State.cpp checks that a step is legal and calls these;
// they assume it.
#pragma once

#include "schedule/State.h"
#include "te/Tensor.h"

#include <string>
#include <unordered_map>

namespace clustune::schedule {

struct StagePair {
  te::Tensor producer; // takes the replaced stage's index
  te::Tensor consumer; // the next index; keeps the replaced stage's name and shape
};

// "<name>.local" computes the stage's body (a reduction stays a reduction); the consumer copies
// it element by element.
StagePair cacheWriteTensors(const te::Tensor& stage);

// "<name>.rf" holds partial results with the reduce iterator at `loopPosition` as spatial
// dimension `factorAxis`, reduced over the stage's other reduce iterators (its body writes each
// original reduce axis in terms of the current reduce loops, through the stage's splits and
// fuses, with a guard where a split does not divide); the consumer reduces it over that
// dimension. The stage's spatial iterators must be untransformed.
StagePair rfactorTensors(const Stage& stage, int loopPosition, int factorAxis);

// "<name>.<scope>": copy[i...] = read[i...], over the whole shape of `read` (a placeholder or a
// stage's tensor).
te::Tensor cacheReadTensor(const te::Tensor& read, const std::string& scope);

using TensorReplacements = std::unordered_map<const te::TensorNode*, te::Tensor>;

// `tensor` with every Load of a replaced tensor redirected to its replacement (same name,
// shape, axes), or `tensor` itself when it reads none of them.
te::Tensor withReplacedProducers(const te::Tensor& tensor, const TensorReplacements& replacements);

} // namespace clustune::schedule
