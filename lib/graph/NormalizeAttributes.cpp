// Attribute normalisation, part of graph simplification (Simplify.h): every attribute that ONNX
// lets an exporter omit or spell in several ways (defaults, negative axes, auto_pad) is made
// explicit and canonical. Two exporters that describe the same convolution differently must
// produce the same task, and so the same workload key.
#include "graph/BlockedLayout.h"
#include "graph/Simplify.h"
#include "support/Error.h"

#include <algorithm>
#include <numeric>

namespace clustune::graph {
namespace {

void setDefault(Node& node, const std::string& key, AttributeValue value) {
  node.attributes.try_emplace(key, std::move(value));
}

std::int64_t positiveAxis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

void makeAxisPositive(Node& node, const std::string& key, std::size_t rank, std::int64_t fallback) {
  node.attributes[key] = positiveAxis(node.intAttribute(key, fallback), rank);
}

// Resolves auto_pad SAME_UPPER/SAME_LOWER/VALID into explicit pads from the known shapes.
void resolveAutoPad(Node& node, const Shape& input, const Shape& output, NodeId id,
                    const Graph& graph) {
  const std::string mode = node.stringAttribute("auto_pad", "NOTSET");
  node.attributes.erase("auto_pad");
  if (mode == "NOTSET")
    return;
  const auto kernel = node.intsAttribute("kernel_shape");
  const std::size_t spatial = kernel.size();
  std::vector<std::int64_t> pads(2 * spatial, 0);
  if (mode != "VALID") {
    if (mode != "SAME_UPPER" && mode != "SAME_LOWER")
      throw Error("unknown auto_pad '" + mode + "'", {.node = graph.nodeLabel(id)});
    const auto strides = node.intsAttribute("strides", std::vector<std::int64_t>(spatial, 1));
    const auto dilations = node.intsAttribute("dilations", std::vector<std::int64_t>(spatial, 1));
    for (std::size_t axis = 0; axis < spatial; ++axis) {
      const std::int64_t inputExtent = input[2 + axis];
      const std::int64_t outputExtent = output[2 + axis];
      const std::int64_t total =
          std::max<std::int64_t>((outputExtent - 1) * strides[axis] +
                                     (kernel[axis] - 1) * dilations[axis] + 1 - inputExtent,
                                 0);
      const std::int64_t smaller = total / 2;
      pads[axis] = mode == "SAME_UPPER" ? smaller : total - smaller;
      pads[axis + spatial] = total - pads[axis];
    }
  }
  node.attributes["pads"] = pads;
}

void normalizeWindowed(Node& node, std::size_t spatial) {
  setDefault(node, "strides", std::vector<std::int64_t>(spatial, 1));
  setDefault(node, "dilations", std::vector<std::int64_t>(spatial, 1));
  setDefault(node, "pads", std::vector<std::int64_t>(2 * spatial, 0));
}

} // namespace

void normalizeAttributes(Graph& graph) {
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes.size()); ++id) {
    Node& node = graph.nodes[id];
    if (node.erased)
      continue;
    const std::string& op = node.op;
    const Shape& input = node.inputs.empty() || node.inputs[0] == kNoValue
                             ? Shape{}
                             : graph.values[node.inputs[0]].shape;
    const Shape& output = graph.values[node.outputs[0]].shape;
    const std::size_t rank = input.size();
    if (op == "Conv" || op == "ConvTranspose") {
      const Shape& weight = graph.values[node.inputs[1]].shape;
      setDefault(node, "kernel_shape", std::vector<std::int64_t>(weight.begin() + 2, weight.end()));
      const std::size_t spatial = weight.size() - 2;
      if (op == "Conv")
        resolveAutoPad(node, input, output, id, graph);
      normalizeWindowed(node, spatial);
      setDefault(node, "group", std::int64_t{1});
      if (op == "ConvTranspose")
        setDefault(node, "output_padding", std::vector<std::int64_t>(spatial, 0));
    } else if (op == "MaxPool" || op == "AveragePool") {
      const std::size_t spatial = rank - 2 - (layoutAttributeBlock(node) != 0 ? 1 : 0);
      resolveAutoPad(node, input, output, id, graph);
      normalizeWindowed(node, spatial);
      setDefault(node, "ceil_mode", std::int64_t{0});
      if (op == "MaxPool")
        setDefault(node, "storage_order", std::int64_t{0});
      else
        setDefault(node, "count_include_pad", std::int64_t{0});
    } else if (op == "BatchNormalization") {
      // training_mode arrived in opset 14; exporters for 13 leave it out, later ones write 0.
      setDefault(node, "training_mode", std::int64_t{0});
    } else if (op == "Gemm") {
      setDefault(node, "alpha", 1.0);
      setDefault(node, "beta", 1.0);
      setDefault(node, "transA", std::int64_t{0});
      setDefault(node, "transB", std::int64_t{0});
    } else if (op == "Softmax" || op == "LogSoftmax") {
      makeAxisPositive(node, "axis", rank, -1);
    } else if (op == "LayerNormalization") {
      makeAxisPositive(node, "axis", rank, -1);
      setDefault(node, "epsilon", 1e-5);
      setDefault(node, "stash_type", std::int64_t{1});
    } else if (op == "Hardmax") {
      makeAxisPositive(node, "axis", rank, -1);
    } else if (op == "ArgMax" || op == "ArgMin") {
      makeAxisPositive(node, "axis", rank, 0);
      setDefault(node, "keepdims", std::int64_t{1});
      setDefault(node, "select_last_index", std::int64_t{0});
    } else if (op == "CumSum") {
      makeAxisPositive(node, "axis", rank, 0);
      setDefault(node, "exclusive", std::int64_t{0});
      setDefault(node, "reverse", std::int64_t{0});
    } else if (op == "TopK") {
      makeAxisPositive(node, "axis", rank, -1);
      setDefault(node, "largest", std::int64_t{1});
      setDefault(node, "sorted", std::int64_t{1});
    } else if (op == "InstanceNormalization") {
      setDefault(node, "epsilon", 1e-5);
    } else if (op == "OneHot") {
      makeAxisPositive(node, "axis", output.size(), -1);
    } else if (op == "Trilu") {
      setDefault(node, "upper", std::int64_t{1});
      setDefault(node, "k", std::int64_t{0});
    } else if (op == "DepthToSpace") {
      setDefault(node, "mode", std::string("DCR"));
    } else if (op == "Concat" || op == "Gather" || op == "Split" || op == "GatherElements") {
      makeAxisPositive(node, "axis", op == "Concat" ? output.size() : rank, 0);
    } else if (op == "Flatten") {
      makeAxisPositive(node, "axis", rank, 1);
    } else if (op == "Transpose") {
      std::vector<std::int64_t> reversed(rank);
      std::iota(reversed.rbegin(), reversed.rend(), 0);
      setDefault(node, "perm", reversed);
    } else if (op.starts_with("Reduce")) {
      // Axes given as an input (ReduceSum from opset 13, the others from 18) are an attribute
      // by now. Absent axes mean all of them, unless noop_with_empty_axes asks for none.
      std::vector<std::int64_t> all(rank);
      std::iota(all.begin(), all.end(), 0);
      auto axes = node.intsAttribute("axes");
      if (axes.empty() && node.intAttribute("noop_with_empty_axes", 0) == 0)
        axes = all;
      for (auto& axis : axes)
        axis = positiveAxis(axis, rank);
      std::sort(axes.begin(), axes.end());
      node.attributes["axes"] = axes;
      setDefault(node, "keepdims", std::int64_t{1});
    } else if (op == "Squeeze" || op == "Unsqueeze") {
      if (auto axes = node.intsAttribute("axes"); !axes.empty()) {
        for (auto& axis : axes)
          axis = positiveAxis(axis, op == "Unsqueeze" ? output.size() : rank);
        std::sort(axes.begin(), axes.end());
        node.attributes["axes"] = axes;
      }
    } else if (op == "LeakyRelu") {
      setDefault(node, "alpha", 0.01);
    } else if (op == "HardSigmoid") {
      setDefault(node, "alpha", 0.2);
      setDefault(node, "beta", 0.5);
    } else if (op == "Elu" || op == "Celu" || op == "ThresholdedRelu") {
      setDefault(node, "alpha", 1.0);
    } else if (op == "Selu") {
      setDefault(node, "alpha", 1.67326319217681884765625);
      setDefault(node, "gamma", 1.05070102214813232421875);
    } else if (op == "Shrink") {
      setDefault(node, "lambd", 0.5);
      setDefault(node, "bias", 0.0);
    } else if (op == "Resize") {
      setDefault(node, "mode", std::string("nearest"));
      setDefault(node, "coordinate_transformation_mode", std::string("half_pixel"));
      setDefault(node, "nearest_mode", std::string("round_prefer_floor"));
      setDefault(node, "extrapolation_value", 0.0);
      if (node.stringAttribute("mode") == "cubic") {
        setDefault(node, "cubic_coeff_a", -0.75);
        setDefault(node, "exclude_outside", std::int64_t{0});
      } else { // cubic interpolation's parameters mean nothing to the other modes
        node.attributes.erase("cubic_coeff_a");
        node.attributes.erase("exclude_outside");
      }
    } else if (op == "GatherND") {
      setDefault(node, "batch_dims", std::int64_t{0});
    } else if (op == "ScatterND") {
      setDefault(node, "reduction", std::string("none"));
    } else if (op == "ReverseSequence") {
      setDefault(node, "batch_axis", std::int64_t{1});
      setDefault(node, "time_axis", std::int64_t{0});
    } else if (op == "ScatterElements" || op == "Scatter") {
      makeAxisPositive(node, "axis", rank, 0);
      setDefault(node, "reduction", std::string("none"));
    } else if (op == "IsInf") {
      setDefault(node, "detect_positive", std::int64_t{1});
      setDefault(node, "detect_negative", std::int64_t{1});
    } else if (op == "EyeLike") {
      setDefault(node, "k", std::int64_t{0});
      node.attributes.erase("dtype"); // the output's dtype, which the task records
    } else if (op == "LRN") {
      setDefault(node, "alpha", 1e-4);
      setDefault(node, "beta", 0.75);
      setDefault(node, "bias", 1.0);
    } else if (op == "MeanVarianceNormalization") {
      auto axes = node.intsAttribute("axes", {0, 2, 3});
      for (auto& axis : axes)
        axis = positiveAxis(axis, rank);
      std::sort(axes.begin(), axes.end());
      node.attributes["axes"] = axes;
    } else if (op == "Mod") {
      setDefault(node, "fmod", std::int64_t{0});
    }
  }
}

} // namespace clustune::graph
