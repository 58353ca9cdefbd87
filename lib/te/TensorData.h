// A dense, row-major tensor value in memory: what the interpreter, the generated kernels, the
// graph executor and the conformance tests exchange. The bytes are laid out exactly as a
// kernel reads them (float32 as 4-byte IEEE floats, int64 as 8-byte integers, bool as one
// byte), so generated code can work on data() directly, in memory aligned for it
// (support/AlignedMemory.h).
#pragma once

#include "graph/Graph.h"
#include "support/AlignedMemory.h"

#include <cstring>
#include <vector>

namespace clustune::te {

// A non-owning view of a tensor in memory: what kernels read and write. The graph executor
// points views into one planned arena, so a model runs without allocating.
struct TensorView {
  graph::DataType dtype = graph::DataType::Float32;
  graph::Shape shape;
  void* data = nullptr;
};

class TensorData {
public:
  TensorData() = default;
  TensorData(graph::DataType dtype, graph::Shape shape);

  graph::DataType dtype() const { return dtype_; }
  const graph::Shape& shape() const { return shape_; }
  std::int64_t elements() const { return elements_; }
  std::size_t byteSize() const { return bytes_.size(); }
  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }
  // A view of this tensor; for a const tensor the kernel must only read through it.
  TensorView view() const { return {dtype_, shape_, const_cast<unsigned char*>(bytes_.data())}; }

  // Element access through double, converting to and from the dtype (float32 rounds,
  // integers truncate, bool is 0 or 1). Integers beyond 2^53 lose precision: fine for the
  // indices and masks that occur in models.
  double get(std::int64_t index) const;
  void set(std::int64_t index, double value);

  friend bool operator==(const TensorData& left, const TensorData& right) {
    return left.dtype_ == right.dtype_ && left.shape_ == right.shape_ &&
           left.bytes_ == right.bytes_;
  }

private:
  graph::DataType dtype_ = graph::DataType::Float32;
  graph::Shape shape_;
  std::int64_t elements_ = 0;
  std::vector<unsigned char, KernelAllocator<unsigned char>> bytes_;
};

} // namespace clustune::te
