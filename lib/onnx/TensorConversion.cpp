// See TensorConversion.h.
#include "onnx/TensorConversion.h"

#include "support/Error.h"

#include <bit>
#include <cstring>
#include <onnx/onnx_pb.h>

namespace clustune::onnx_import {
namespace {

using graph::DataType;

float halfToFloat(std::uint16_t half) {
  const std::uint32_t sign = (half & 0x8000u) << 16;
  std::uint32_t exponent = (half >> 10) & 0x1f;
  std::uint32_t mantissa = half & 0x3ff;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else { // subnormal: normalise
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        --exponent;
      }
      bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

template <class T>
void appendRaw(const std::string& raw, std::vector<double>* floats,
               std::vector<std::int64_t>* ints) {
  const std::size_t count = raw.size() / sizeof(T);
  for (std::size_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, raw.data() + i * sizeof(T), sizeof(T));
    if (floats)
      floats->push_back(static_cast<double>(value));
    else
      ints->push_back(static_cast<std::int64_t>(value));
  }
}

// Copies a tensor's inline data into `value`; leaves hasData false for external data.
void readTensorData(const onnx::TensorProto& tensor, graph::Value& value) {
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return;
  const bool floating = graph::isFloatingPoint(value.dtype);
  auto* floats = floating ? &value.floatData : nullptr;
  auto* ints = floating ? nullptr : &value.intData;
  const std::string& raw = tensor.raw_data();
  if (!raw.empty()) {
    switch (value.dtype) {
    case DataType::Float32:
      appendRaw<float>(raw, floats, ints);
      break;
    case DataType::Float64:
      appendRaw<double>(raw, floats, ints);
      break;
    case DataType::Float16:
      for (std::size_t i = 0; i + 1 < raw.size(); i += 2) {
        std::uint16_t half;
        std::memcpy(&half, raw.data() + i, 2);
        value.floatData.push_back(halfToFloat(half));
      }
      break;
    case DataType::Int8:
      appendRaw<std::int8_t>(raw, floats, ints);
      break;
    case DataType::UInt8:
    case DataType::Bool:
      appendRaw<std::uint8_t>(raw, floats, ints);
      break;
    case DataType::Int32:
      appendRaw<std::int32_t>(raw, floats, ints);
      break;
    case DataType::Int64:
      appendRaw<std::int64_t>(raw, floats, ints);
      break;
    }
  } else {
    for (float x : tensor.float_data())
      value.floatData.push_back(x);
    for (double x : tensor.double_data())
      value.floatData.push_back(x);
    for (std::int64_t x : tensor.int64_data())
      value.intData.push_back(x);
    for (std::int32_t x : tensor.int32_data()) {
      if (value.dtype == DataType::Float16)
        value.floatData.push_back(halfToFloat(static_cast<std::uint16_t>(x)));
      else
        value.intData.push_back(x);
    }
  }
  const auto stored =
      static_cast<std::int64_t>(floating ? value.floatData.size() : value.intData.size());
  if (stored == 0 && value.elements() > 0)
    return; // a tensor without payload: shapes only
  if (stored != value.elements())
    throw Error("tensor '" + tensor.name() + "' holds " + std::to_string(stored) +
                " elements but its shape " + graph::shapeToString(value.shape) + " needs " +
                std::to_string(value.elements()));
  value.hasData = true;
}

} // namespace

std::optional<graph::DataType> dataTypeFromOnnx(int type) {
  static_assert(onnx::TensorProto::FLOAT == 1 && onnx::TensorProto::UINT8 == 2 &&
                onnx::TensorProto::INT8 == 3 && onnx::TensorProto::INT32 == 6 &&
                onnx::TensorProto::INT64 == 7 && onnx::TensorProto::BOOL == 9 &&
                onnx::TensorProto::FLOAT16 == 10 && onnx::TensorProto::DOUBLE == 11);
  return graph::dataTypeFromOnnxCode(type);
}

graph::Value decodeTensor(const onnx::TensorProto& tensor, const std::string& name) {
  graph::Value value;
  value.name = name;
  value.kind = graph::ValueKind::Constant;
  auto dtype = dataTypeFromOnnx(tensor.data_type());
  if (!dtype)
    throw Error("tensor '" + name + "' has unsupported element type " +
                onnx::TensorProto::DataType_Name(
                    static_cast<onnx::TensorProto::DataType>(tensor.data_type())));
  value.dtype = *dtype;
  for (auto extent : tensor.dims()) {
    if (extent < 0)
      throw Error("tensor '" + name + "' has a negative dimension");
    value.shape.push_back(extent);
  }
  // Found by fuzz-onnx_import: 232 dimensions whose product overflowed.
  if (!graph::checkedElementCount(value.shape))
    throw Error("tensor '" + name + "' has more elements than fit in 64 bits");
  readTensorData(tensor, value);
  return value;
}

void fillTensorProto(const te::TensorData& data, const std::string& name,
                     onnx::TensorProto& tensor) {
  const std::string tensorName = name; // `name` may be the tensor's own, which Clear() empties
  tensor.Clear();
  tensor.set_name(tensorName);
  for (auto extent : data.shape())
    tensor.add_dims(extent);
  int type = onnx::TensorProto::FLOAT;
  switch (data.dtype()) {
  case DataType::Float32:
    type = onnx::TensorProto::FLOAT;
    break;
  case DataType::Float16:
    type = onnx::TensorProto::FLOAT16;
    break;
  case DataType::Float64:
    type = onnx::TensorProto::DOUBLE;
    break;
  case DataType::Int8:
    type = onnx::TensorProto::INT8;
    break;
  case DataType::UInt8:
    type = onnx::TensorProto::UINT8;
    break;
  case DataType::Int32:
    type = onnx::TensorProto::INT32;
    break;
  case DataType::Int64:
    type = onnx::TensorProto::INT64;
    break;
  case DataType::Bool:
    type = onnx::TensorProto::BOOL;
    break;
  }
  tensor.set_data_type(type);
  // TensorData's bytes are the little-endian layout ONNX's raw_data uses.
  tensor.set_raw_data(std::string(static_cast<const char*>(data.data()), data.byteSize()));
}

te::TensorData tensorDataFromProto(const onnx::TensorProto& tensor) {
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error("tensor '" + tensor.name() + "' keeps its data in an external file");
  const graph::Value value = decodeTensor(tensor, tensor.name());
  if (value.dtype == DataType::Float16)
    throw Error("tensor '" + tensor.name() + "' is float16, which clustune does not compute in");
  if (!value.hasData && value.elements() > 0)
    throw Error("tensor '" + tensor.name() + "' has no data");
  te::TensorData data(value.dtype, value.shape);
  const bool floating = graph::isFloatingPoint(value.dtype);
  for (std::int64_t i = 0; i < value.elements(); ++i)
    data.set(i, floating ? value.floatData[i] : static_cast<double>(value.intData[i]));
  return data;
}

} // namespace clustune::onnx_import
