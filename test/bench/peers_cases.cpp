// The cases of bench-peers (see peers.cpp): GEMMs built as the partitioner builds an ONNX
// MatMul, and the resnet50 convolutions of a tasks.jsonl.
#include "peers_cases.h"

#include "support/Jsonl.h"

namespace clustune::bench {
namespace {

graph::TaskNode node(const std::string& op, std::vector<graph::TaskValueRef> inputs,
                     graph::Shape shape, graph::PatternKind pattern) {
  return graph::TaskNode{.op = op,
                         .attributes = {},
                         .inputs = std::move(inputs),
                         .outputShapes = {std::move(shape)},
                         .outputTypes = {graph::DataType::Float32},
                         .pattern = pattern};
}

} // namespace

// Y = MatMul(A[n, n], B[n, n]), as the partitioner makes it from an ONNX MatMul.
Case gemmCase(std::int64_t n) {
  Case gemm{.name = "gemm" + std::to_string(n), .task = {}, .m = n, .n = n, .k = n, .conv = {}};
  gemm.task.inputs = {{.shape = {n, n}}, {.shape = {n, n}, .kind = graph::TaskInput::Kind::Weight}};
  gemm.task.nodes = {node("MatMul", {graph::TaskValueRef::input(0), graph::TaskValueRef::input(1)},
                          {n, n}, graph::PatternKind::OutEWiseFusable)};
  gemm.task.outputs = {graph::TaskValueRef::node(0, 0)};
  gemm.task.weights = {{"bench", 1}};
  graph::canonicalizeTask(gemm.task);
  gemm.flops = 2.0 * n * n * n;
  return gemm;
}

namespace {

std::int64_t intsAttribute(const graph::TaskNode& conv, const char* name, std::size_t index,
                           std::int64_t otherwise) {
  const auto found = conv.attributes.find(name);
  if (found == conv.attributes.end())
    return otherwise;
  if (const auto* scalar = std::get_if<std::int64_t>(&found->second))
    return *scalar;
  const auto& values = std::get<std::vector<std::int64_t>>(found->second);
  return index < values.size() ? values[index] : otherwise;
}

} // namespace

// The resnet50 Conv tasks of a tasks.jsonl: the 3x3 and 1x1 convolutions with square kernels,
// stride and padding, one case per distinct key.
std::vector<Case> convCases(const std::string& path) {
  std::vector<Case> cases;
  JsonlReader reader(path);
  nlohmann::json entry;
  while (reader.next(entry)) {
    graph::Task task = graph::taskFromJson(entry, reader.context());
    if (task.anchor != "Conv")
      continue;
    const graph::TaskNode& conv = task.nodes.front();
    if (conv.op != "Conv" || intsAttribute(conv, "group", 0, 1) != 1)
      continue;
    const graph::Shape& x = task.inputs[conv.inputs[0].index].shape;
    const graph::Shape& w = task.inputs[conv.inputs[1].index].shape;
    const graph::Shape& y = conv.outputShapes.front();
    ConvShape shape{.channels = x[1],
                    .filters = w[0],
                    .height = x[2],
                    .width = x[3],
                    .kernel = w[2],
                    .stride = intsAttribute(conv, "strides", 0, 1),
                    .pad = intsAttribute(conv, "pads", 0, 0),
                    .outHeight = y[2],
                    .outWidth = y[3]};
    if (x[0] != 1 || w[2] != w[3] || (shape.kernel != 1 && shape.kernel != 3))
      continue;
    shape.bias = conv.inputs.size() > 2 && conv.inputs[2].kind == graph::TaskValueRef::Kind::Input;
    for (const graph::TaskNode& other : task.nodes) {
      shape.relu |= other.op == "Relu";
      shape.residual |= other.op == "Add";
    }
    Case c{.name = "conv" + std::to_string(shape.kernel) + "x" + std::to_string(shape.kernel) +
                   "_c" + std::to_string(shape.channels) + "_k" + std::to_string(shape.filters) +
                   "_" + std::to_string(shape.height) +
                   (shape.stride > 1 ? "_s" + std::to_string(shape.stride) : "") +
                   (shape.residual ? "_add" : "") + (shape.relu ? "_relu" : ""),
           .task = std::move(task),
           .isConv = true,
           .m = shape.filters,
           .n = shape.outHeight * shape.outWidth,
           .k = shape.channels * shape.kernel * shape.kernel,
           .conv = shape};
    c.flops = 2.0 * c.m * c.n * c.k;
    cases.push_back(std::move(c));
  }
  return cases;
}

} // namespace clustune::bench
