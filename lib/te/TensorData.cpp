// See TensorData.h.
#include "te/TensorData.h"

#include <cassert>
#include <cmath>

namespace clustune::te {
namespace {

template <class T>
T read(const unsigned char* bytes, std::int64_t index) {
  T value;
  std::memcpy(&value, bytes + index * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return value;
}

template <class T>
void write(unsigned char* bytes, std::int64_t index, T value) {
  std::memcpy(bytes + index * static_cast<std::int64_t>(sizeof(T)), &value, sizeof(T));
}

} // namespace

TensorData::TensorData(graph::DataType dtype, graph::Shape shape)
    : dtype_(dtype), shape_(std::move(shape)), elements_(graph::elementCount(shape_)),
      bytes_(static_cast<std::size_t>(elements_ * graph::dataTypeBytes(dtype))) {}

double TensorData::get(std::int64_t index) const {
  assert(index >= 0 && index < elements_);
  const unsigned char* bytes = bytes_.data();
  switch (dtype_) {
  case graph::DataType::Float32:
    return read<float>(bytes, index);
  case graph::DataType::Float64:
    return read<double>(bytes, index);
  case graph::DataType::Int64:
    return static_cast<double>(read<std::int64_t>(bytes, index));
  case graph::DataType::Int32:
    return read<std::int32_t>(bytes, index);
  case graph::DataType::Int8:
    return read<std::int8_t>(bytes, index);
  case graph::DataType::UInt8:
  case graph::DataType::Bool:
    return read<std::uint8_t>(bytes, index);
  case graph::DataType::Float16:
    break; // not a compute type: converted on import
  }
  assert(false && "unsupported dtype");
  return 0.0;
}

void TensorData::set(std::int64_t index, double value) {
  assert(index >= 0 && index < elements_);
  unsigned char* bytes = bytes_.data();
  switch (dtype_) {
  case graph::DataType::Float32:
    return write<float>(bytes, index, static_cast<float>(value));
  case graph::DataType::Float64:
    return write<double>(bytes, index, value);
  case graph::DataType::Int64:
    return write<std::int64_t>(bytes, index, static_cast<std::int64_t>(value));
  case graph::DataType::Int32:
    return write<std::int32_t>(bytes, index, static_cast<std::int32_t>(value));
  case graph::DataType::Int8:
    return write<std::int8_t>(bytes, index, static_cast<std::int8_t>(value));
  case graph::DataType::UInt8:
    return write<std::uint8_t>(bytes, index, static_cast<std::uint8_t>(value));
  case graph::DataType::Bool:
    return write<std::uint8_t>(bytes, index, value != 0.0 ? 1 : 0);
  case graph::DataType::Float16:
    break;
  }
  assert(false && "unsupported dtype");
}

} // namespace clustune::te
