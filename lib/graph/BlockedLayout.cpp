// See BlockedLayout.h. The pass rebuilds the node list in one topological sweep. Every original
// value keeps its id for its NCHW form; a value produced in the blocked layout gets that form
// (a LayoutTransform writing the original id) only when some consumer asks for it, so a chain
// of convolutions and element-wise nodes stays blocked from end to end.
#include "graph/BlockedLayout.h"

#include "graph/OpRegistry.h"

#include <algorithm>
#include <cassert>
#include <map>

namespace clustune::graph {

std::optional<std::int64_t> parseChannelLayout(const std::string& layout) {
  if (layout == "NCHW")
    return 0;
  if (layout.size() < 6 || layout.rfind("NCHW", 0) != 0 || layout.back() != 'c')
    return std::nullopt;
  const std::string digits = layout.substr(4, layout.size() - 5);
  if (digits.empty() || digits.size() > 6 || digits.front() == '0' ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(digits);
}

std::string channelLayoutName(std::int64_t block) {
  return block == 0 ? "NCHW" : "NCHW" + std::to_string(block) + "c";
}

std::int64_t layoutAttributeBlock(const Node& node) {
  const AttributeValue* layout = node.attribute("layout");
  if (!layout || !std::holds_alternative<std::string>(*layout))
    return 0;
  return parseChannelLayout(std::get<std::string>(*layout)).value_or(0);
}

Shape blockedActivationShape(const Shape& nchw, std::int64_t block) {
  assert(nchw.size() >= 3 && block > 0 && nchw[1] % block == 0);
  Shape blocked = {nchw[0], nchw[1] / block};
  blocked.insert(blocked.end(), nchw.begin() + 2, nchw.end());
  blocked.push_back(block);
  return blocked;
}

Shape unblockedActivationShape(const Shape& blocked) {
  assert(blocked.size() >= 3);
  Shape plain = {blocked[0], blocked[1] * blocked.back()};
  plain.insert(plain.end(), blocked.begin() + 2, blocked.end() - 1);
  return plain;
}

Shape blockedWeightShape(const Shape& kchw, std::int64_t inBlock, std::int64_t outBlock) {
  assert(kchw.size() >= 3 && kchw[0] % outBlock == 0 && kchw[1] % inBlock == 0);
  Shape blocked = {kchw[0] / outBlock, kchw[1] / inBlock};
  blocked.insert(blocked.end(), kchw.begin() + 2, kchw.end());
  blocked.insert(blocked.end(), {inBlock, outBlock});
  return blocked;
}

bool hasBlockableRank(const Shape& shape) {
  return shape.size() == 4 || shape.size() == 5;
}

std::int64_t outputChannelBlock(std::int64_t channels, std::int64_t block) {
  if (channels % block == 0)
    return block;
  if (block % 2 == 0 && block >= 4 && channels % (block / 2) == 0)
    return block / 2;
  return 0;
}

std::int64_t inputChannelBlock(std::int64_t channels, std::int64_t block) {
  for (std::int64_t candidate = std::min(channels, block); candidate > 1; --candidate)
    if (channels % candidate == 0)
      return candidate;
  return 1;
}

namespace {

std::vector<double> blockWeightData(const Value& weight, std::int64_t inBlock,
                                    std::int64_t outBlock) {
  const Shape& shape = weight.shape; // [K, C, k...]
  std::int64_t taps = 1;
  for (std::size_t axis = 2; axis < shape.size(); ++axis)
    taps *= shape[axis];
  std::vector<double> blocked(weight.floatData.size());
  std::size_t next = 0;
  for (std::int64_t k1 = 0; k1 < shape[0] / outBlock; ++k1)
    for (std::int64_t c1 = 0; c1 < shape[1] / inBlock; ++c1)
      for (std::int64_t tap = 0; tap < taps; ++tap)
        for (std::int64_t c2 = 0; c2 < inBlock; ++c2)
          for (std::int64_t k2 = 0; k2 < outBlock; ++k2) {
            const std::int64_t k = k1 * outBlock + k2, c = c1 * inBlock + c2;
            blocked[next++] = weight.floatData[(k * shape[1] + c) * taps + tap];
          }
  return blocked;
}

class BlockedLayoutRewriter {
public:
  BlockedLayoutRewriter(Graph& graph, std::int64_t block)
      : graph_(graph), block_(block), plainReady_(graph.values.size(), true),
        blockedForms_(graph.values.size()) {}

  BlockedLayoutStatistics run() {
    std::vector<Node> original = std::move(graph_.nodes);
    graph_.nodes.clear();
    for (Node& node : original) {
      if (node.erased)
        continue;
      if (!convertConvolution(node) && !convertElementwise(node) && !convertPooling(node) &&
          !convertConcatenation(node) && !convertBatchNormalization(node))
        keepInNchw(std::move(node));
    }
    for (ValueId output : graph_.outputs)
      plain(output);
    for (NodeId id = 0; id < static_cast<NodeId>(graph_.nodes.size()); ++id)
      for (ValueId output : graph_.nodes[id].outputs)
        graph_.values[output].producer = id;
    graph_.compact();
    graph_.verify();
    return statistics_;
  }

private:
  bool convertConvolution(const Node& node) {
    if (node.op != "Conv" || node.inputs.size() < 2)
      return false;
    const Value& data = graph_.values[node.inputs[0]];
    const Value& weight = graph_.values[node.inputs[1]];
    if (!hasBlockableRank(data.shape) || data.dtype != DataType::Float32 ||
        data.kind == ValueKind::Constant || weight.kind != ValueKind::Constant ||
        weight.dtype != DataType::Float32)
      return false;
    const std::int64_t channels = data.shape[1], outChannels = weight.shape[0];
    const std::int64_t group = node.intAttribute("group", 1);
    const bool depthwise = group > 1 && group == channels && outChannels == channels;
    if (group < 1 || channels % group != 0 || outChannels % group != 0)
      return false;
    // A depthwise convolution keeps its input's block (its lanes are those channels). Another
    // reads whatever block its input already has where that block lies within one group, since
    // the input block is only a reduction; the output blocks of a grouped convolution must lie
    // within one group too (ResNeXt's groups of 8 channels take blocks of 8, those of 4 stay
    // NCHW).
    const std::int64_t groupChannels = channels / group, groupOutChannels = outChannels / group;
    const std::int64_t existing = existingBlock(node.inputs[0]);
    const std::int64_t outBlock = !depthwise      ? outputChannelBlock(groupOutChannels, block_)
                                  : existing != 0 ? existing
                                                  : outputChannelBlock(channels, block_);
    if (outBlock == 0)
      return false;
    const std::int64_t inBlock = depthwise ? 1
                                 : existing != 0 && groupChannels % existing == 0
                                     ? existing
                                     : inputChannelBlock(groupChannels, block_);
    Value blockedWeight = {.name = weight.name + ".OIHW" + std::to_string(inBlock) + "i" +
                                   std::to_string(outBlock) + "o",
                           .dtype = weight.dtype,
                           .shape = blockedWeightShape(weight.shape, inBlock, outBlock),
                           .kind = ValueKind::Constant};
    if (weight.hasData) {
      blockedWeight.hasData = true;
      blockedWeight.floatData = blockWeightData(weight, inBlock, outBlock);
    }
    // Adding values moves graph_.values: `data` and `weight` are not read after this.
    const ValueId weightId = graph_.addValue(std::move(blockedWeight));
    const ValueId blockedData = blocked(node.inputs[0], depthwise ? outBlock : inBlock);

    Node convolution = {.name = node.name,
                        .op = depthwise ? kDepthwiseConvNCHWcOp : kConvNCHWcOp,
                        .pattern = node.pattern};
    for (const char* key : {"kernel_shape", "strides", "pads", "dilations"})
      if (const AttributeValue* value = node.attribute(key))
        convolution.attributes[key] = *value;
    if (group > 1 && !depthwise) // group 1 stays implicit, so that those tasks keep their keys
      convolution.attributes["group"] = group;
    convolution.inputs = {blockedData, weightId};
    if (node.inputs.size() > 2)
      convolution.inputs.push_back(node.inputs[2]);
    convolution.outputs = {blockedOutput(node.outputs[0], outBlock)};
    graph_.nodes.push_back(std::move(convolution));
    ++statistics_.convolutions;
    statistics_.depthwise += depthwise;
    return true;
  }

  // The largest block `original` already exists in, 0 if none.
  std::int64_t existingBlock(ValueId original) const {
    const auto& forms = blockedForms_[original];
    return forms.empty() ? 0 : forms.rbegin()->first;
  }

  // The block of the first input that exists only blocked, 0 if none: a node with such an
  // input stays in the blocked layout where it can, since NCHW would cost a transform.
  std::int64_t onlyBlockedInput(const Node& node) const {
    for (ValueId input : node.inputs)
      if (input != kNoValue && !plainReady_[input] && !blockedForms_[input].empty())
        return blockedForms_[input].begin()->first;
    return 0;
  }

  // Whether every operand slot of `node` is filled with a value that `accept` takes.
  template <class Accept>
  bool everyOperand(const Node& node, Accept accept) const {
    return std::all_of(node.inputs.begin(), node.inputs.end(), [&](ValueId input) {
      return input != kNoValue && accept(graph_.values[input]);
    });
  }

  // An element-wise node stays blocked when one of its inputs exists only blocked. Its other
  // inputs are brought to that block: activations with the output's channels, which may
  // broadcast over N, H or W (the [N, C, 1, 1] scale of a squeeze-and-excitation block), and
  // one-element constants, which broadcast in any layout.
  bool convertElementwise(const Node& node) {
    // Broadcast nodes are element-wise operators whose inputs differ in shape (assignPatterns);
    // BatchNormalization, Broadcast by itself, scales per channel along axis 1.
    const auto info = lookupOp(node.op);
    if (!info || info->pattern != PatternKind::ElemWise || node.outputs.size() != 1)
      return false;
    const Value& output = graph_.values[node.outputs[0]];
    if (!hasBlockableRank(output.shape) || !isFloatingPoint(output.dtype))
      return false;
    const std::int64_t block = onlyBlockedInput(node);
    if (block == 0)
      return false;
    const bool broadcastable = everyOperand(node, [&](const Value& value) {
      if (value.kind == ValueKind::Constant)
        return elementCount(value.shape) == 1;
      if (value.shape.size() != output.shape.size() || value.shape[1] != output.shape[1])
        return false;
      for (std::size_t axis = 0; axis < output.shape.size(); ++axis)
        if (axis != 1 && value.shape[axis] != output.shape[axis] && value.shape[axis] != 1)
          return false;
      return true;
    });
    if (!broadcastable)
      return false;
    emitBlocked(node, block, /*layoutAttribute=*/false, node.inputs.size());
    ++statistics_.elementwise;
    return true;
  }

  // A concatenation along the channels of inputs that the block divides is the concatenation of
  // their blocked forms along the channel-block axis (DenseNet's and Inception's joins).
  bool convertConcatenation(const Node& node) {
    if (node.op != "Concat" || node.intAttribute("axis", -1) != 1 || node.outputs.size() != 1)
      return false;
    const std::int64_t block = onlyBlockedInput(node);
    if (block == 0)
      return false;
    if (!everyOperand(node, [&](const Value& value) {
          return value.kind != ValueKind::Constant && hasBlockableRank(value.shape) &&
                 value.shape[1] % block == 0;
        }))
      return false;
    emitBlocked(node, block, /*layoutAttribute=*/false, node.inputs.size());
    ++statistics_.concatenations;
    return true;
  }

  // An inference BatchNormalization that no convolution absorbed (DenseNet's, before its
  // convolutions) normalises the blocked tensor, its parameters indexed by channel.
  bool convertBatchNormalization(const Node& node) {
    if (node.op != "BatchNormalization" || node.outputs.size() != 1 || node.inputs.size() != 5 ||
        graph_.values[node.inputs[0]].shape.size() != 4)
      return false;
    const std::int64_t block = onlyBlockedInput(node);
    if (block == 0 || graph_.values[node.inputs[0]].shape[1] % block != 0)
      return false;
    emitBlocked(node, block, /*layoutAttribute=*/true, 1); // the parameters stay [C]
    ++statistics_.elementwise;
    return true;
  }

  // A pooling node whose input exists only blocked pools the blocked tensor (layoutAttributeBlock).
  bool convertPooling(const Node& node) {
    if (node.op != "MaxPool" && node.op != "AveragePool" && node.op != "GlobalAveragePool" &&
        node.op != "GlobalMaxPool")
      return false;
    if (node.outputs.size() != 1 || graph_.values[node.inputs[0]].shape.size() != 4)
      return false;
    const std::int64_t block = onlyBlockedInput(node);
    if (block == 0)
      return false;
    emitBlocked(node, block, /*layoutAttribute=*/true, 1);
    ++statistics_.pooling;
    return true;
  }

  // Emits `node` on the blocked forms of its first `operands` operands (one-element constants
  // among them stay as they are) with its output blocked; pooling and BatchNormalization get the
  // `layout` attribute their lowerings read.
  void emitBlocked(const Node& node, std::int64_t block, bool layoutAttribute,
                   std::size_t operands) {
    Node blockedNode = node;
    if (layoutAttribute)
      blockedNode.attributes["layout"] = channelLayoutName(block);
    for (std::size_t operand = 0; operand < operands; ++operand) {
      ValueId& input = blockedNode.inputs[operand];
      if (graph_.values[input].kind != ValueKind::Constant)
        input = blocked(input, block);
    }
    blockedNode.outputs = {blockedOutput(node.outputs[0], block)};
    graph_.nodes.push_back(std::move(blockedNode));
  }

  void keepInNchw(Node node) {
    for (ValueId input : node.inputs)
      if (input != kNoValue)
        plain(input);
    graph_.nodes.push_back(std::move(node));
  }

  // A new value for the blocked form of `original`, which will have no NCHW form until asked.
  ValueId blockedOutput(ValueId original, std::int64_t block) {
    const Value& value = graph_.values[original];
    const ValueId id = graph_.addValue({.name = value.name + "." + channelLayoutName(block),
                                        .dtype = value.dtype,
                                        .shape = blockedActivationShape(value.shape, block)});
    plainReady_[original] = false;
    blockedForms_[original][block] = id;
    return id;
  }

  ValueId plain(ValueId original) {
    if (plainReady_[original])
      return original;
    const auto& [block, form] = *blockedForms_[original].begin();
    addTransform(form, original, block, 0);
    plainReady_[original] = true;
    return original;
  }

  ValueId blocked(ValueId original, std::int64_t block) {
    if (auto found = blockedForms_[original].find(block); found != blockedForms_[original].end())
      return found->second;
    plain(original);
    const Value& value = graph_.values[original];
    const ValueId id = graph_.addValue({.name = value.name + "." + channelLayoutName(block),
                                        .dtype = value.dtype,
                                        .shape = blockedActivationShape(value.shape, block)});
    blockedForms_[original][block] = id;
    addTransform(original, id, 0, block);
    return id;
  }

  void addTransform(ValueId from, ValueId to, std::int64_t fromBlock, std::int64_t toBlock) {
    Node transform = {.op = kLayoutTransformOp,
                      .attributes = {{"src_layout", channelLayoutName(fromBlock)},
                                     {"dst_layout", channelLayoutName(toBlock)}},
                      .inputs = {from},
                      .outputs = {to},
                      .pattern = PatternKind::Injective};
    graph_.nodes.push_back(std::move(transform));
    ++statistics_.transforms;
  }

  Graph& graph_;
  std::int64_t block_;
  std::vector<bool> plainReady_;                              // by original value
  std::vector<std::map<std::int64_t, ValueId>> blockedForms_; // by original value
  BlockedLayoutStatistics statistics_;
};

} // namespace

BlockedLayoutStatistics convertToBlockedLayout(Graph& graph, std::int64_t block) {
  if (block == 0)
    return {};
  assert(block > 0);
  return BlockedLayoutRewriter(graph, block).run();
}

} // namespace clustune::graph
