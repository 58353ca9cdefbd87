// See OnnxInference.h.
#include "onnx/OnnxInference.h"

#include "support/Error.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace clustune::onnx_import {
namespace {

// Whether a node's required inputs all have types. A required input without one is the output
// of a node whose own inference failed.
template <class Context>
bool requiredInputsTyped(const onnx::OpSchema& schema, const Context& context) {
  const auto& formals = schema.inputs();
  for (std::size_t i = 0; i < context.getNumInputs(); ++i) {
    const auto& formal = formals.empty() ? nullptr : &formals[std::min(i, formals.size() - 1)];
    if (formal && formal->GetOption() != onnx::OpSchema::Optional && !context.getInputType(i))
      return false;
  }
  return true;
}

// Conv's and ConvTranspose's inference in ONNX 1.12 index the weight's shape by the input's
// rank unchecked (a ConvTranspose given a BatchNormalization's 1-D scale as its weight crashed;
// found by fuzz-onnx_import).
void checkConvolutionRanks(const onnx::OpSchema& schema, const onnx::InferenceContext& context) {
  if ((schema.Name() != "Conv" && schema.Name() != "ConvTranspose") || context.getNumInputs() < 2)
    return;
  const onnx::TypeProto* input = context.getInputType(0);
  const onnx::TypeProto* weight = context.getInputType(1);
  if (!input || !weight || !input->tensor_type().has_shape() || !weight->tensor_type().has_shape())
    return;
  const int inputRank = input->tensor_type().shape().dim_size();
  const int weightRank = weight->tensor_type().shape().dim_size();
  if (inputRank < 3 || weightRank != inputRank)
    fail_shape_inference("the input has rank ", inputRank, " and the weight rank ", weightRank,
                         "; both must be the same, at least 3");
}

// Product of dims as "AxBxC".
std::string extentText(const std::vector<std::int64_t>& dims) {
  std::string text;
  for (auto dim : dims)
    text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text;
}

std::vector<std::int64_t> intsAttribute(const onnx::InferenceContext& context, const char* name) {
  const onnx::AttributeProto* attribute = context.getAttribute(name);
  if (!attribute)
    return {};
  return {attribute->ints().begin(), attribute->ints().end()};
}

// A Conv kernel or a pooling window larger than its padded input: ONNX 1.12 computes an output
// extent below 1 and lets a consumer fail with a message about that one ("Incompatible
// dimensions" at an Add), so the user looked in the wrong place.
void checkWindowFits(const onnx::OpSchema& schema, const onnx::InferenceContext& context) {
  const std::string& op = schema.Name();
  const bool convolution = op == "Conv";
  if (!convolution && op != "MaxPool" && op != "AveragePool" && op != "LpPool")
    return;
  const onnx::TypeProto* input = context.getNumInputs() > 0 ? context.getInputType(0) : nullptr;
  if (!input || !input->tensor_type().has_shape())
    return;
  const auto& inputShape = input->tensor_type().shape();
  const int spatialRank = inputShape.dim_size() - 2;
  if (spatialRank < 1)
    return;
  std::vector<std::int64_t> kernel = intsAttribute(context, "kernel_shape");
  if (convolution && context.getNumInputs() > 1)
    if (const onnx::TypeProto* weight = context.getInputType(1);
        weight && weight->tensor_type().has_shape() &&
        weight->tensor_type().shape().dim_size() == spatialRank + 2) {
      std::vector<std::int64_t> weightKernel;
      for (int axis = 0; axis < spatialRank; ++axis) {
        const auto& dim = weight->tensor_type().shape().dim(axis + 2);
        if (!dim.has_dim_value())
          return;
        weightKernel.push_back(dim.dim_value());
      }
      if (!kernel.empty() && kernel != weightKernel)
        fail_shape_inference("attribute kernel_shape ", extentText(kernel),
                             " disagrees with the weight's kernel ", extentText(weightKernel));
      kernel = weightKernel;
    }
  if (kernel.size() != static_cast<std::size_t>(spatialRank))
    return;
  const onnx::AttributeProto* autoPad = context.getAttribute("auto_pad");
  const std::string padding = autoPad ? autoPad->s() : "NOTSET";
  if (padding == "SAME_UPPER" || padding == "SAME_LOWER")
    return; // the output has ceil(input / stride) elements on every axis, at least one
  std::vector<std::int64_t> pads =
      padding == "VALID" ? std::vector<std::int64_t>{} : intsAttribute(context, "pads");
  pads.resize(2 * static_cast<std::size_t>(spatialRank), 0);
  std::vector<std::int64_t> dilations = intsAttribute(context, "dilations");
  dilations.resize(static_cast<std::size_t>(spatialRank), 1);
  std::vector<std::int64_t> padded, span;
  bool fits = true;
  for (int axis = 0; axis < spatialRank; ++axis) {
    const auto& dim = inputShape.dim(axis + 2);
    if (!dim.has_dim_value())
      return;
    const auto at = static_cast<std::size_t>(axis);
    padded.push_back(dim.dim_value() + pads[at] + pads[at + static_cast<std::size_t>(spatialRank)]);
    span.push_back(dilations[at] * (kernel[at] - 1) + 1);
    fits = fits && span.back() <= padded.back();
  }
  if (fits)
    return;
  const std::string what = convolution ? "kernel" : "window";
  if (span == kernel)
    fail_shape_inference(op, " ", what, " ", extentText(kernel),
                         " is larger than its padded input ", extentText(padded));
  fail_shape_inference(op, " ", what, " ", extentText(kernel), " dilated by ",
                       extentText(dilations), " spans ", extentText(span),
                       ", more than its padded input ", extentText(padded));
}

// The schema registry that shape inference gets. ONNX 1.12's inference functions dereference
// their inputs' types unchecked, and inference collects errors and goes on past a node that
// failed, so the consumers of that node crashed (found by fuzz-onnx_import: a Conv whose kernel
// outgrew its input, then an Add). The registry hands out copies of the schemas whose
// functions first check that the required inputs have types.
class GuardedSchemaRegistry final : public onnx::ISchemaRegistry {
public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int maxInclusiveVersion,
                                  const std::string& domain) const override {
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(key, maxInclusiveVersion, domain);
    if (!schema)
      return nullptr;
    auto [entry, inserted] = guarded_.try_emplace(schema);
    if (inserted)
      entry->second = guard(*schema);
    return entry->second.get();
  }

private:
  static std::unique_ptr<onnx::OpSchema> guard(const onnx::OpSchema& schema) {
    auto guarded = std::make_unique<onnx::OpSchema>(schema);
    // An operator defined by its function body alone (GreaterOrEqual and LessOrEqual of opset
    // 16) is inferred node by node through that body, whose nodes this registry guards; setting
    // an inference function here would replace that with ONNX's dummy, which infers nothing.
    if (schema.has_type_and_shape_inference_function())
      guarded->TypeAndShapeInferenceFunction(
          [&schema,
           infer = schema.GetTypeAndShapeInferenceFunction()](onnx::InferenceContext& context) {
            if (!requiredInputsTyped(schema, context))
              fail_type_inference("an input has no type, since inference failed where it is made");
            checkConvolutionRanks(schema, context);
            checkWindowFits(schema, context);
            infer(context);
          });
    guarded->PartialDataPropagationFunction(
        [&schema,
         propagate = schema.GetDataPropagationFunction()](onnx::DataPropagationContext& context) {
          if (requiredInputsTyped(schema, context))
            propagate(context);
        });
    return guarded;
  }

  mutable std::unordered_map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> guarded_;
};

} // namespace

void inferShapesGuarded(onnx::ModelProto& model, const std::string& file) {
  const onnx::ShapeInferenceOptions options(/*check_type=*/false, /*strict_mode=*/1,
                                            /*data_prop=*/true);
  try {
    const GuardedSchemaRegistry registry;
    onnx::shape_inference::InferShapes(model, &registry, options);
  } catch (const std::exception& error) {
    // ONNX lists every node that failed, a line each, the first being the cause:
    // "(op_type:Conv, node name: conv1): [ShapeInferenceError] <message>". Report that one.
    std::string reason = error.what();
    std::string node;
    if (const auto entry = reason.find("(op_type:"); entry != std::string::npos) {
      reason.erase(0, entry);
      reason.resize(std::min(reason.find('\n'), reason.size()));
      constexpr std::string_view kOpType = "(op_type:", kNodeName = ", node name: ";
      const auto name = reason.find(kNodeName);
      const auto end = reason.find("): ");
      if (name != std::string::npos && end != std::string::npos && name < end) {
        node = reason.substr(name + kNodeName.size(), end - name - kNodeName.size());
        if (node.empty()) // an unnamed node: its operator
          node = reason.substr(kOpType.size(), name - kOpType.size());
        reason.erase(0, end + std::strlen("): "));
      }
      if (reason.starts_with('['))
        if (const auto kind = reason.find("] "); kind != std::string::npos)
          reason.erase(0, kind + 2);
    }
    throw Error("shape inference failed: " + reason, {.file = file, .node = node});
  }
}

} // namespace clustune::onnx_import
