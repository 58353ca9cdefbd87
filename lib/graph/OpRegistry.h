// Which ONNX operators clustune can import, and the fusion pattern kind of each (as TVM's
// OpPatternKind: the order matters, lower kinds fuse more freely). An operator missing here has
// no import rule and is reported as an error naming the node.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace clustune::graph {

enum class PatternKind {
  ElemWise = 0,        // out[i] = f(in[i])
  Broadcast = 1,       // out[i] = f(in[broadcast(i)])
  Injective = 2,       // out[i] = in[g(i)]: layout and indexing ops
  CommReduce = 3,      // commutative reductions: pooling, Softmax, ReduceMean, ...
  OutEWiseFusable = 4, // complex ops whose output can absorb element-wise ops: Conv, MatMul
  Opaque = 8           // fuses with nothing
};

const char* patternKindName(PatternKind kind);

struct OpInfo {
  const char* op;
  PatternKind pattern;
  // An operator of clustune's own passes (graph/BlockedLayout.h), never imported from a model.
  bool internal = false;
};

// nullopt when the operator has no import rule.
std::optional<OpInfo> lookupOp(const std::string& op);
std::vector<std::string> supportedOps();

} // namespace clustune::graph
