// See Simplify.h.
#include "graph/Simplify.h"

#include "graph/ConstantFolding.h"
#include "support/Error.h"

#include <cmath>
#include <spdlog/spdlog.h>

namespace clustune::graph {
namespace {

int removePassThrough(Graph& graph) {
  int removed = 0;
  const auto readers = graph.consumers();
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    Node& node = graph.nodes[id];
    if (node.erased || (node.op != "Identity" && node.op != "Dropout"))
      continue;
    // Dropout is the identity only at inference; in training mode it is random.
    if (node.op == "Dropout" && node.inputs.size() > 2 && node.inputs[2] != kNoValue) {
      const Value& trainingMode = graph.values[node.inputs[2]];
      if (!trainingMode.hasData || trainingMode.intData.empty() || trainingMode.intData[0] != 0)
        throw Error("Dropout in training mode is not supported", {.node = graph.nodeLabel(id)});
    }
    // Dropout's optional mask output has no inference-time meaning; keep the node if read.
    if (node.outputs.size() > 1 &&
        (!readers[node.outputs[1]].empty() || graph.isGraphOutput(node.outputs[1])))
      continue;
    graph.replaceAllUses(node.outputs[0], node.inputs[0]);
    graph.eraseNode(id);
    ++removed;
  }
  return removed;
}

const Value* constantOperand(const Graph& graph, const Node& node, std::size_t index) {
  if (index >= node.inputs.size() || node.inputs[index] == kNoValue)
    return nullptr;
  return &graph.values[node.inputs[index]];
}

std::vector<std::int64_t> requireInts(const Graph& graph, NodeId id, std::size_t index,
                                      const char* what) {
  const Node& node = graph.nodes[id];
  const Value* value = constantOperand(graph, node, index);
  if (!value || value->kind != ValueKind::Constant || !value->hasData ||
      isFloatingPoint(value->dtype))
    throw Error(std::string(node.op) + " with a non-constant " + what + " is not supported",
                {.node = graph.nodeLabel(id)});
  return value->intData;
}

// The one element of a constant operand, whatever its numeric dtype (OneHot's depth may be a
// float).
double requireScalar(const Graph& graph, NodeId id, std::size_t index, const char* what) {
  const Node& node = graph.nodes[id];
  const Value* value = constantOperand(graph, node, index);
  if (!value || value->kind != ValueKind::Constant || !value->hasData || value->elements() != 1)
    throw Error(std::string(node.op) + " with a non-constant " + what + " is not supported",
                {.node = graph.nodeLabel(id)});
  return isFloatingPoint(value->dtype) ? value->floatData.at(0)
                                       : static_cast<double>(value->intData.at(0));
}

// Moves constant operand inputs into attributes, so that a task's description (and its key)
// does not depend on how an exporter happened to pass them.
int operandsToAttributes(Graph& graph) {
  int converted = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    Node& node = graph.nodes[id];
    if (node.erased)
      continue;
    const std::string& op = node.op;
    const Shape& outputShape = graph.values[node.outputs[0]].shape;
    std::size_t keep = node.inputs.size();
    if (op == "Reshape" || op == "Expand") {
      // Shape inference already resolved 0 and -1 entries: record the final shape.
      node.attributes["shape"] = std::vector<std::int64_t>(outputShape.begin(), outputShape.end());
      node.attributes.erase("allowzero");
      keep = 1;
    } else if ((op == "Unsqueeze" || op == "Squeeze" || op.starts_with("Reduce")) &&
               node.inputs.size() > 1) {
      // ReduceSum took its axes as an input from opset 13, the other reductions from 18.
      if (node.inputs[1] != kNoValue)
        node.attributes["axes"] = requireInts(graph, id, 1, "axes");
      keep = 1;
    } else if (op == "Split" && node.inputs.size() > 1) {
      if (node.inputs[1] != kNoValue)
        node.attributes["split"] = requireInts(graph, id, 1, "split");
      keep = 1;
    } else if (op == "Split" && node.attributes.erase("num_outputs")) {
      // Opset 18's even split (the last piece may be smaller), recorded as explicit sizes.
      std::vector<std::int64_t> sizes;
      const auto axis = node.intAttribute("axis", 0);
      const auto rank = static_cast<std::int64_t>(graph.values[node.inputs[0]].shape.size());
      for (ValueId piece : node.outputs)
        sizes.push_back(graph.values[piece].shape.at(axis < 0 ? axis + rank : axis));
      node.attributes["split"] = sizes;
    } else if (op == "Trilu" && node.inputs.size() > 1) {
      if (node.inputs[1] != kNoValue)
        node.attributes["k"] = static_cast<std::int64_t>(requireScalar(graph, id, 1, "k"));
      keep = 1;
    } else if (op == "CumSum") {
      node.attributes["axis"] = static_cast<std::int64_t>(requireScalar(graph, id, 1, "axis"));
      keep = 1;
    } else if (op == "TopK") {
      node.attributes["k"] = static_cast<std::int64_t>(requireScalar(graph, id, 1, "K"));
      keep = 1;
    } else if (op == "OneHot") {
      // Indices and values stay operands; the depth fixes the output shape.
      node.attributes["depth"] = static_cast<std::int64_t>(requireScalar(graph, id, 1, "depth"));
      node.inputs.erase(node.inputs.begin() + 1);
      ++converted;
    } else if (op == "Resize") {
      // Opset 11 on: X, roi, scales, sizes. An empty constant stands for an omitted operand.
      if (node.inputs.size() < 3)
        throw Error("Resize of opset 10 (scales as the second operand) is not supported; opset "
                    "11 or newer is",
                    {.node = graph.nodeLabel(id)});
      auto given = [&](std::size_t index) {
        const Value* value = constantOperand(graph, node, index);
        return value && !(value->hasData && value->elements() == 0);
      };
      const Shape& inputShape = graph.values[node.inputs[0]].shape;
      std::vector<double> scales;
      if (given(3)) {
        for (std::size_t axis = 0; const std::int64_t size : requireInts(graph, id, 3, "sizes"))
          scales.push_back(static_cast<double>(size) / static_cast<double>(inputShape.at(axis++)));
      } else if (given(2)) {
        const Value& value = graph.values[node.inputs[2]];
        if (value.kind != ValueKind::Constant || !value.hasData || !isFloatingPoint(value.dtype))
          throw Error("Resize with non-constant scales is not supported",
                      {.node = graph.nodeLabel(id)});
        scales = value.floatData;
      } else {
        throw Error("Resize needs scales or sizes", {.node = graph.nodeLabel(id)});
      }
      node.attributes["scales"] = scales;
      if (node.stringAttribute("coordinate_transformation_mode", "half_pixel") ==
          "tf_crop_and_resize") {
        const Value* roi = constantOperand(graph, node, 1);
        if (!given(1) || roi->kind != ValueKind::Constant || !roi->hasData ||
            !isFloatingPoint(roi->dtype))
          throw Error("Resize with a non-constant roi is not supported",
                      {.node = graph.nodeLabel(id)});
        node.attributes["roi"] = roi->floatData;
      }
      keep = 1;
    } else if (op == "Tile") {
      node.attributes["repeats"] = requireInts(graph, id, 1, "repeats");
      keep = 1;
    } else if (op == "Slice") {
      auto starts = requireInts(graph, id, 1, "starts");
      auto ends = requireInts(graph, id, 2, "ends");
      std::vector<std::int64_t> axes(starts.size());
      for (std::size_t k = 0; k < axes.size(); ++k)
        axes[k] = static_cast<std::int64_t>(k);
      if (constantOperand(graph, node, 3))
        axes = requireInts(graph, id, 3, "axes");
      std::vector<std::int64_t> steps(starts.size(), 1);
      if (constantOperand(graph, node, 4))
        steps = requireInts(graph, id, 4, "steps");
      // Normalise to non-negative axes and clamped starts/ends of the actual input shape.
      const Shape& inputShape = graph.values[node.inputs[0]].shape;
      const auto rank = static_cast<std::int64_t>(inputShape.size());
      for (std::size_t k = 0; k < axes.size(); ++k) {
        std::int64_t& axis = axes[k];
        if (axis < 0)
          axis += rank;
        const std::int64_t extent = inputShape[axis];
        auto clampIndex = [&](std::int64_t index, std::int64_t low, std::int64_t high) {
          if (index < 0)
            index += extent;
          return std::clamp(index, low, high);
        };
        if (steps[k] > 0) {
          starts[k] = clampIndex(starts[k], 0, extent);
          ends[k] = clampIndex(ends[k], 0, extent);
        } else {
          starts[k] = clampIndex(starts[k], 0, extent - 1);
          ends[k] = clampIndex(ends[k], -1, extent - 1);
        }
      }
      node.attributes["starts"] = starts;
      node.attributes["ends"] = ends;
      node.attributes["axes"] = axes;
      node.attributes["steps"] = steps;
      keep = 1;
    } else if (op == "Pad" && node.inputs.size() > 1) {
      node.attributes["pads"] = requireInts(graph, id, 1, "pads");
      if (const Value* fill = constantOperand(graph, node, 2)) {
        if (!fill->hasData)
          throw Error("Pad with a non-constant value is not supported",
                      {.node = graph.nodeLabel(id)});
        node.attributes["value"] = isFloatingPoint(fill->dtype)
                                       ? fill->floatData.at(0)
                                       : static_cast<double>(fill->intData.at(0));
      }
      if (node.inputs.size() > 3 && node.inputs[3] != kNoValue) {
        // Opset 18's axes: pads for the named axes only, widened to every axis.
        const auto axes = requireInts(graph, id, 3, "axes");
        const auto pads = std::get<std::vector<std::int64_t>>(node.attributes["pads"]);
        const auto rank = static_cast<std::int64_t>(graph.values[node.inputs[0]].shape.size());
        std::vector<std::int64_t> full(2 * rank, 0);
        for (std::size_t k = 0; k < axes.size(); ++k) {
          const std::int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
          full[axis] = pads[k];
          full[axis + rank] = pads[k + axes.size()];
        }
        node.attributes["pads"] = full;
      }
      keep = 1;
    } else if (op == "Clip" && node.inputs.size() > 1) {
      for (std::size_t index = 1; index < node.inputs.size() && index < 3; ++index) {
        const Value* bound = constantOperand(graph, node, index);
        if (!bound)
          continue;
        if (!bound->hasData)
          throw Error("Clip with a non-constant bound is not supported",
                      {.node = graph.nodeLabel(id)});
        node.attributes[index == 1 ? "min" : "max"] =
            isFloatingPoint(bound->dtype) ? bound->floatData.at(0)
                                          : static_cast<double>(bound->intData.at(0));
      }
      keep = 1;
    }
    if (keep < node.inputs.size()) {
      node.inputs.resize(keep);
      ++converted;
    }
  }
  return converted;
}

bool allHaveData(std::initializer_list<const Value*> values) {
  for (const Value* value : values)
    if (!value || !value->hasData)
      return false;
  return true;
}

} // namespace

void assignPatterns(Graph& graph) {
  for (Node& node : graph.nodes) {
    if (node.erased)
      continue;
    auto info = lookupOp(node.op);
    node.pattern = info ? info->pattern : PatternKind::Opaque;
    if (node.pattern != PatternKind::ElemWise)
      continue;
    const Shape& outputShape = graph.values[node.outputs[0]].shape;
    for (ValueId input : node.inputs)
      if (input != kNoValue && graph.values[input].shape != outputShape)
        node.pattern = PatternKind::Broadcast;
  }
}

int foldBatchNorms(Graph& graph) {
  int folded = 0;
  const auto readers = graph.consumers();
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    Node& batchNorm = graph.nodes[id];
    if (batchNorm.erased || batchNorm.op != "BatchNormalization" || batchNorm.inputs.size() != 5 ||
        batchNorm.outputs.size() != 1)
      continue;
    const ValueId input = batchNorm.inputs[0];
    const NodeId producerId = graph.values[input].producer;
    if (producerId < 0 || readers[input].size() != 1 || graph.isGraphOutput(input))
      continue;
    Node& producer = graph.nodes[producerId];
    if (producer.op != "Conv" && producer.op != "Gemm")
      continue;
    const bool isGemm = producer.op == "Gemm";
    if (isGemm && producer.floatAttribute("beta", 1.0) != 1.0)
      continue; // the folded bias would have to be rescaled; rare enough to leave alone
    const Value& weight = graph.values[producer.inputs[1]];
    if (weight.kind != ValueKind::Constant)
      continue;
    // Channels are axis 0 of a Conv weight; for Gemm, the output column (weight axis 0 when
    // transB, else axis 1).
    const bool transB = isGemm && producer.intAttribute("transB", 0) != 0;
    const int channelAxis = isGemm && !transB ? 1 : 0;
    const std::int64_t channels = weight.shape.at(channelAxis);
    const Value* scale = &graph.values[batchNorm.inputs[1]];
    const Value* shift = &graph.values[batchNorm.inputs[2]];
    const Value* mean = &graph.values[batchNorm.inputs[3]];
    const Value* variance = &graph.values[batchNorm.inputs[4]];
    if (isGemm && graph.values[input].shape.size() != 2)
      continue;
    const Value* bias = producer.inputs.size() > 2 && producer.inputs[2] != kNoValue
                            ? &graph.values[producer.inputs[2]]
                            : nullptr;
    if (bias && (bias->kind != ValueKind::Constant || bias->elements() != channels))
      continue; // a broadcast Gemm bias of another shape: leave the BatchNormalization
    const double epsilon = batchNorm.floatAttribute("epsilon", 1e-5);

    Value newWeight = weight;
    newWeight.name = weight.name + "_bn_folded";
    newWeight.floatData.clear();
    newWeight.hasData = false;
    Value newBias;
    newBias.name = graph.values[batchNorm.outputs[0]].name + "_bias";
    newBias.kind = ValueKind::Constant;
    newBias.dtype = weight.dtype;
    newBias.shape = {channels};
    if (allHaveData({&weight, scale, shift, mean, variance}) && (!bias || bias->hasData)) {
      std::vector<double> factor(channels);
      for (std::int64_t c = 0; c < channels; ++c) {
        factor[c] = scale->floatData[c] / std::sqrt(variance->floatData[c] + epsilon);
        const double oldBias = bias ? bias->floatData[c] : 0.0;
        newBias.floatData.push_back((oldBias - mean->floatData[c]) * factor[c] +
                                    shift->floatData[c]);
      }
      const std::int64_t total = weight.elements();
      const std::int64_t perChannel = total / weight.shape[0];
      for (std::int64_t i = 0; i < total; ++i) {
        const std::int64_t channel = channelAxis == 0 ? i / perChannel : i % channels;
        newWeight.floatData.push_back(weight.floatData[i] * factor[channel]);
      }
      newWeight.hasData = newBias.hasData = true;
    }
    const ValueId newWeightId = graph.addValue(std::move(newWeight));
    const ValueId newBiasId = graph.addValue(std::move(newBias));
    Node& conv = graph.nodes[producerId]; // addValue does not move nodes, but be explicit
    conv.inputs[1] = newWeightId;
    if (conv.inputs.size() < 3)
      conv.inputs.resize(3, kNoValue);
    conv.inputs[2] = newBiasId;
    if (isGemm)
      conv.attributes["beta"] = 1.0; // the folded bias is added unscaled
    // The Conv now produces the BatchNormalization's output value directly.
    const ValueId output = graph.nodes[id].outputs[0];
    conv.outputs[0] = output;
    graph.values[output].producer = producerId;
    graph.eraseNode(id);
    ++folded;
  }
  return folded;
}

SimplifyStatistics simplify(Graph& graph) {
  SimplifyStatistics statistics;
  statistics.nodesBefore = static_cast<int>(graph.nodes.size());
  statistics.passThroughRemoved = removePassThrough(graph);
  statistics.constantsFolded = foldConstants(graph);
  graph.compact();
  statistics.operandsToAttributes = operandsToAttributes(graph);
  statistics.batchNormsFolded = foldBatchNorms(graph);
  graph.compact();
  normalizeAttributes(graph);
  assignPatterns(graph);
  statistics.nodesAfter = static_cast<int>(graph.nodes.size());
  spdlog::debug("simplify {}: {} -> {} nodes ({} pass-through removed, {} constants folded, "
                "{} operand sets to attributes, {} BatchNormalizations folded)",
                graph.name, statistics.nodesBefore, statistics.nodesAfter,
                statistics.passThroughRemoved, statistics.constantsFolded,
                statistics.operandsToAttributes, statistics.batchNormsFolded);
  return statistics;
}

} // namespace clustune::graph
