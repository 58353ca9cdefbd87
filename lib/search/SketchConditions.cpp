// See SketchConditions.h: what the sketch rules read from a workload's stages and loads.
#include "search/SketchConditions.h"

#include "schedule/ExprUtil.h"

namespace clustune::search {

using schedule::Stage;
using schedule::State;

namespace {

bool mentions(const te::Expr& expr, const te::VarNode* var) {
  return !schedule::allVariables(expr, [var](const te::VarNode* other) { return other != var; });
}

bool isVariable(const te::Expr& expr, const te::VarNode* var) {
  return expr->kind == te::ExprKind::Variable && expr->var.get() == var;
}

} // namespace

int fusibleConsumer(const State& state, int stage) {
  const std::vector<int> consumers = schedule::effectiveConsumers(state, stage);
  if (consumers.size() != 1)
    return -1;
  const Stage& producer = state.stages()[stage];
  const Stage& consumer = state.stages()[consumers[0]];
  if (!consumer.isOutput() || consumer.tensor->isReduction() ||
      consumer.tensor->shape != producer.tensor->shape || producer.spatialAxisCount() == 0)
    return -1;
  return consumers[0];
}

bool needsRfactor(const Stage& stage) {
  std::int64_t space = 1, reduce = 1;
  for (std::size_t position = 0; position < stage.loops.size(); ++position)
    (stage.loop(position).kind == schedule::IteratorKind::Spatial ? space : reduce) *=
        stage.loop(position).extent;
  return space < reduce;
}

namespace {

// Calls `visit` on the index list of every load of the reduction's body that reads a reduce axis.
template <typename Visit>
void forEachReducingLoad(const te::TensorNode& tensor, Visit visit) {
  schedule::forEachLoad(tensor.body, [&](const te::Expr& load) {
    for (const te::IterVar& axis : tensor.body->reduceAxes)
      for (const te::Expr& index : load->operands)
        if (mentions(index, axis.var.get())) {
          visit(load->operands);
          return;
        }
  });
}

} // namespace

bool reducesAlongRows(const Stage& stage) {
  const te::TensorNode& tensor = *stage.tensor;
  if (!tensor.isReduction())
    return false;
  const te::VarNode* innermost = tensor.body->reduceAxes.back().var.get();
  bool alongRows = true, reads = false;
  forEachReducingLoad(tensor, [&](const std::vector<te::Expr>& indices) {
    reads = true;
    alongRows = alongRows && isVariable(indices.back(), innermost);
  });
  return reads && alongRows;
}

bool reusesNoOperand(const Stage& stage) {
  const te::TensorNode& tensor = *stage.tensor;
  if (!tensor.isReduction())
    return false;
  bool readOnce = true;
  forEachReducingLoad(tensor, [&](const std::vector<te::Expr>& indices) {
    for (const te::IterVar& axis : tensor.axes) {
      bool read = axis.extent == 1; // a kept dimension: one element, nothing to reuse across
      for (const te::Expr& index : indices)
        read = read || mentions(index, axis.var.get());
      readOnce = readOnce && read;
    }
  });
  return readOnce;
}

bool isPadding(const Stage& stage) {
  const te::Expr& body = stage.tensor->body;
  return !stage.isOutput() && body && body->kind == te::ExprKind::Select &&
         body->operands[1]->kind == te::ExprKind::Load &&
         (body->operands[2]->kind == te::ExprKind::FloatImm ||
          body->operands[2]->kind == te::ExprKind::IntImm);
}

std::vector<int> paddingProducers(const State& state, int reduction) {
  std::vector<int> pads;
  for (int stage = 0; stage < reduction; ++stage)
    if (isPadding(state.stages()[stage]) &&
        schedule::effectiveConsumers(state, stage) == std::vector<int>{reduction})
      pads.push_back(stage);
  return pads;
}

bool flattensContiguously(const Stage& stage) {
  const te::TensorNode& tensor = *stage.tensor;
  const std::size_t axes = tensor.axes.size();
  if (!tensor.isReduction() || axes < 2)
    return false;
  const te::VarNode* row = tensor.axes[axes - 2].var.get();
  const te::VarNode* column = tensor.axes[axes - 1].var.get();
  const std::int64_t rowLength = tensor.axes[axes - 1].extent;
  bool contiguous = true;
  schedule::forEachLoad(tensor.body, [&](const te::Expr& load) {
    const std::vector<te::Expr>& indices = load->operands;
    const std::size_t rank = indices.size();
    bool used = false;
    for (const te::Expr& index : indices)
      used = used || mentions(index, row) || mentions(index, column);
    if (!used)
      return;
    if (rank < 2 || !isVariable(indices[rank - 2], row) || !isVariable(indices[rank - 1], column) ||
        load->tensor->shape[rank - 1] != rowLength) {
      contiguous = false;
      return;
    }
    for (std::size_t dim = 0; dim + 2 < rank; ++dim)
      contiguous = contiguous && !mentions(indices[dim], row) && !mentions(indices[dim], column);
  });
  return contiguous;
}

std::vector<int> packableInputs(const State& state, int stageIndex) {
  const Stage& stage = state.stages()[stageIndex];
  const te::TensorNode& tensor = *stage.tensor;
  if (!tensor.isReduction() || tensor.axes.empty())
    return {};
  const te::VarNode* column = tensor.axes.back().var.get();
  std::vector<int> packable;
  for (std::size_t input = 0; input < state.inputs().size(); ++input) {
    const te::Tensor& read = state.inputs()[input];
    bool direct = false, walksColumns = true, reusable = false;
    schedule::forEachLoad(tensor.body, [&](const te::Expr& load) {
      if (load->tensor != read)
        return;
      direct = true;
      const std::vector<te::Expr>& indices = load->operands;
      walksColumns = walksColumns && !indices.empty() && isVariable(indices.back(), column);
      for (const te::IterVar& axis : tensor.body->reduceAxes)
        for (const te::Expr& index : indices)
          reusable = reusable || mentions(index, axis.var.get());
    });
    if (direct && walksColumns && reusable)
      packable.push_back(static_cast<int>(input));
  }
  return packable;
}

} // namespace clustune::search
