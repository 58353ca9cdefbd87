// Shared by the lib/schedule unit tests: small workloads built directly with te::compute (an
// element-wise chain with broadcasting, a matmul, a padded 3x3 convolution, a softmax, a 1-D
// stencil chain, a full reduction), each with an independent reference written as plain C++
// loops, plus helpers to lower a State, run it in the loop interpreter and compare outputs, and
// a FileCheck-like ordered substring matcher for printed loop nests.
#pragma once

#include "schedule/LoopInterpreter.h"
#include "schedule/Lower.h"
#include "schedule/State.h"
#include "schedule/Step.h"
#include "support/Error.h"
#include "support/Random.h"
#include "te/Stmt.h"
#include "te/Tensor.h"
#include "te/TensorData.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace clustune::schedule::testing {

using te::DataType;
using te::Expr;
using te::Tensor;
using te::TensorData;
using te::Workload;
using Indices = std::vector<Expr>;
using Reference = std::function<std::vector<TensorData>(const std::vector<TensorData>&)>;

struct TestWorkload {
  Workload workload;
  Reference reference;
};

inline te::IterVar reduceAxis(const std::string& name, std::int64_t extent) {
  return {te::makeVar(name), extent};
}

inline Expr at(const te::IterVar& axis) {
  return te::varExpr(axis.var);
}

// T1 = A + B (B broadcast along rows), T2 = max(T1, 0), Out = T2 * 2 - A; output Out.
inline TestWorkload elementwiseChain(std::int64_t rows, std::int64_t cols) {
  const Tensor a = te::placeholder("A", {rows, cols});
  const Tensor b = te::placeholder("B", {cols});
  const Tensor sum = te::compute("T1", {rows, cols}, [&](const Indices& i) {
    return te::load(a, {i[0], i[1]}) + te::load(b, {i[1]});
  });
  const Tensor relu = te::compute("T2", {rows, cols}, [&](const Indices& i) {
    return te::maximum(te::load(sum, {i[0], i[1]}), te::floatImm(0.0));
  });
  const Tensor out = te::compute("Out", {rows, cols}, [&](const Indices& i) {
    return te::load(relu, {i[0], i[1]}) * te::floatImm(2.0) - te::load(a, {i[0], i[1]});
  });
  Reference reference = [rows, cols](const std::vector<TensorData>& inputs) {
    TensorData result(DataType::Float32, {rows, cols});
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) {
        const double x = inputs[0].get(i * cols + j);
        result.set(i * cols + j, std::max(x + inputs[1].get(j), 0.0) * 2.0 - x);
      }
    return std::vector<TensorData>{result};
  };
  return {Workload{.key = "chain", .inputs = {a, b}, .stages = {sum, relu, out}, .outputs = {out}},
          reference};
}

// C[i, j] = sum over k of A[i, k] * B[k, j].
inline TestWorkload matmul(std::int64_t m, std::int64_t n, std::int64_t k) {
  const Tensor a = te::placeholder("A", {m, k});
  const Tensor b = te::placeholder("B", {k, n});
  const te::IterVar reduce = reduceAxis("k", k);
  const Tensor c = te::compute("C", {m, n}, [&](const Indices& i) {
    return te::reduce(te::Reducer::Sum,
                      te::load(a, {i[0], at(reduce)}) * te::load(b, {at(reduce), i[1]}), {reduce});
  });
  Reference reference = [m, n, k](const std::vector<TensorData>& inputs) {
    TensorData result(DataType::Float32, {m, n});
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (std::int64_t r = 0; r < k; ++r)
          sum += inputs[0].get(i * k + r) * inputs[1].get(r * n + j);
        result.set(i * n + j, sum);
      }
    return std::vector<TensorData>{result};
  };
  return {Workload{.key = "matmul", .inputs = {a, b}, .stages = {c}, .outputs = {c}}, reference};
}

// A GPU schedule of matmul(64, 64, 64) with shared memory, as Ansor's GPU sketch builds one:
// A and B are copied into shared memory (stages 1 and 0; C is stage 2) at C's outer reduce
// loop; C's 16 x 16 tiles are blocks, each of 64 threads computing 2 x 2 outputs; each copy's
// 16 x 8 (or 8 x 16) tile is fetched by the block's 64 threads together, two elements each.
inline std::vector<Step> sharedMemoryMatmulSteps() {
  return {CacheReadStep{.stage = -1, .input = 0, .scope = "shared", .readers = {0}},
          CacheReadStep{.stage = -1, .input = 1, .scope = "shared", .readers = {1}},
          SplitStep{.stage = 2, .iterator = 0, .factors = {8, 2}},    // i0 i1 i2 j k
          SplitStep{.stage = 2, .iterator = 3, .factors = {8, 2}},    // i0 i1 i2 j0 j1 j2 k
          SplitStep{.stage = 2, .iterator = 6, .factors = {8}},       // ... k0 k1
          ReorderStep{.stage = 2, .order = {0, 3, 1, 4, 6, 7, 2, 5}}, // i0 j0 i1 j1 k0 k1 i2 j2
          FuseStep{.stage = 2, .iterators = {0, 1}},                  // b i1 j1 k0 k1 i2 j2
          FuseStep{.stage = 2, .iterators = {1, 2}},                  // b t k0 k1 i2 j2
          AnnotationStep{.stage = 2, .iterator = 0, .annotation = Annotation::BlockIdxX},
          AnnotationStep{.stage = 2, .iterator = 1, .annotation = Annotation::ThreadIdxX},
          ComputeAtStep{.stage = 1, .targetStage = 2, .targetIterator = 2},
          ComputeAtStep{.stage = 0, .targetStage = 2, .targetIterator = 2},
          FuseStep{.stage = 1, .iterators = {0, 1}},
          SplitStep{.stage = 1, .iterator = 0, .factors = {64}},
          AnnotationStep{.stage = 1, .iterator = 1, .annotation = Annotation::ThreadIdxX},
          FuseStep{.stage = 0, .iterators = {0, 1}},
          SplitStep{.stage = 0, .iterator = 0, .factors = {64}},
          AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::ThreadIdxX}};
}

// Ansor's cross-thread reduction of matmul(m, n, k): the spatial axes fused onto blocks, the
// reduction split by `threads` with the inner part bound to threadIdx.x.
inline std::vector<Step> crossThreadMatmulSteps(std::int64_t threads) {
  return {FuseStep{.stage = 0, .iterators = {0, 1}},
          SplitStep{.stage = 0, .iterator = 1, .factors = {threads}},
          AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::BlockIdxX},
          AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::ThreadIdxX}};
}

// softmax(rows, cols) with a block per row of exponentials, its cols threads first reducing
// the row maximum (computed at the block's loop) across themselves.
inline std::vector<Step> crossThreadSoftmaxSteps() {
  return {AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::ThreadIdxX},
          AnnotationStep{.stage = 1, .iterator = 0, .annotation = Annotation::BlockIdxX},
          AnnotationStep{.stage = 1, .iterator = 1, .annotation = Annotation::ThreadIdxX},
          ComputeAtStep{.stage = 0, .targetStage = 1, .targetIterator = 0}};
}

// Pad (1 pixel of zeros) then a 3x3 convolution: X[1, C, H, W], W[K, C, 3, 3] -> Y[1, K, H, W].
inline TestWorkload paddedConvolution(std::int64_t channels, std::int64_t filters,
                                      std::int64_t height, std::int64_t width) {
  const Tensor x = te::placeholder("X", {1, channels, height, width});
  const Tensor w = te::placeholder("W", {filters, channels, 3, 3});
  const Tensor pad =
      te::compute("pad", {1, channels, height + 2, width + 2}, [&](const Indices& i) {
        const Expr inside = i[2] >= te::intImm(1) && i[2] < te::intImm(height + 1) &&
                            i[3] >= te::intImm(1) && i[3] < te::intImm(width + 1);
        return te::select(inside,
                          te::load(x, {i[0], i[1], i[2] - te::intImm(1), i[3] - te::intImm(1)}),
                          te::floatImm(0.0));
      });
  const te::IterVar rc = reduceAxis("rc", channels), rh = reduceAxis("rh", 3),
                    rw = reduceAxis("rw", 3);
  const Tensor conv = te::compute("conv", {1, filters, height, width}, [&](const Indices& i) {
    return te::reduce(te::Reducer::Sum,
                      te::load(pad, {i[0], at(rc), i[2] + at(rh), i[3] + at(rw)}) *
                          te::load(w, {i[1], at(rc), at(rh), at(rw)}),
                      {rc, rh, rw});
  });
  Reference reference = [=](const std::vector<TensorData>& inputs) {
    TensorData result(DataType::Float32, {1, filters, height, width});
    for (std::int64_t f = 0; f < filters; ++f)
      for (std::int64_t h = 0; h < height; ++h)
        for (std::int64_t v = 0; v < width; ++v) {
          double sum = 0.0;
          for (std::int64_t c = 0; c < channels; ++c)
            for (std::int64_t dh = 0; dh < 3; ++dh)
              for (std::int64_t dw = 0; dw < 3; ++dw) {
                const std::int64_t sh = h + dh - 1, sw = v + dw - 1;
                if (sh < 0 || sh >= height || sw < 0 || sw >= width)
                  continue;
                sum += inputs[0].get((c * height + sh) * width + sw) *
                       inputs[1].get(((f * channels + c) * 3 + dh) * 3 + dw);
              }
          result.set((f * height + h) * width + v, sum);
        }
    return std::vector<TensorData>{result};
  };
  return {Workload{.key = "conv", .inputs = {x, w}, .stages = {pad, conv}, .outputs = {conv}},
          reference};
}

// Softmax over rows: M = max(X), E = exp(X - M), S = sum(E), Y = E / S; output Y.
inline TestWorkload softmax(std::int64_t rows, std::int64_t cols) {
  const Tensor x = te::placeholder("X", {rows, cols});
  const te::IterVar k1 = reduceAxis("k1", cols), k2 = reduceAxis("k2", cols);
  const Tensor maxima = te::compute("M", {rows}, [&](const Indices& i) {
    return te::reduce(te::Reducer::Max, te::load(x, {i[0], at(k1)}), {k1});
  });
  const Tensor exps = te::compute("E", {rows, cols}, [&](const Indices& i) {
    return te::call(te::CallFunction::Exp, {te::load(x, {i[0], i[1]}) - te::load(maxima, {i[0]})});
  });
  const Tensor sums = te::compute("S", {rows}, [&](const Indices& i) {
    return te::reduce(te::Reducer::Sum, te::load(exps, {i[0], at(k2)}), {k2});
  });
  const Tensor y = te::compute("Y", {rows, cols}, [&](const Indices& i) {
    return te::load(exps, {i[0], i[1]}) / te::load(sums, {i[0]});
  });
  Reference reference = [rows, cols](const std::vector<TensorData>& inputs) {
    TensorData result(DataType::Float32, {rows, cols});
    for (std::int64_t r = 0; r < rows; ++r) {
      double largest = -INFINITY, total = 0.0;
      for (std::int64_t c = 0; c < cols; ++c)
        largest = std::max(largest, inputs[0].get(r * cols + c));
      for (std::int64_t c = 0; c < cols; ++c)
        total += std::exp(inputs[0].get(r * cols + c) - largest);
      for (std::int64_t c = 0; c < cols; ++c)
        result.set(r * cols + c, std::exp(inputs[0].get(r * cols + c) - largest) / total);
    }
    return std::vector<TensorData>{result};
  };
  return {
      Workload{.key = "softmax", .inputs = {x}, .stages = {maxima, exps, sums, y}, .outputs = {y}},
      reference};
}

// A 1-D stencil chain: B = 2A over n + 4 points, C[i] = B[i] + B[i+1] + B[i+2] over n + 2,
// D[i] = C[i] + C[i+2] over n; output D. Each stage reads a window of the previous one.
inline TestWorkload stencilChain(std::int64_t n) {
  const Tensor a = te::placeholder("A", {n + 4});
  const Tensor b = te::compute(
      "B", {n + 4}, [&](const Indices& i) { return te::load(a, {i[0]}) * te::floatImm(2.0); });
  const Tensor c = te::compute("C", {n + 2}, [&](const Indices& i) {
    return te::load(b, {i[0]}) + te::load(b, {i[0] + te::intImm(1)}) +
           te::load(b, {i[0] + te::intImm(2)});
  });
  const Tensor d = te::compute("D", {n}, [&](const Indices& i) {
    return te::load(c, {i[0]}) + te::load(c, {i[0] + te::intImm(2)});
  });
  Reference reference = [n](const std::vector<TensorData>& inputs) {
    TensorData result(DataType::Float32, {n});
    auto bAt = [&](std::int64_t i) { return 2.0 * inputs[0].get(i); };
    auto cAt = [&](std::int64_t i) { return bAt(i) + bAt(i + 1) + bAt(i + 2); };
    for (std::int64_t i = 0; i < n; ++i)
      result.set(i, cAt(i) + cAt(i + 2));
    return std::vector<TensorData>{result};
  };
  return {Workload{.key = "stencil", .inputs = {a}, .stages = {b, c, d}, .outputs = {d}},
          reference};
}

// Total[] = sum over i, j of A[i, j]: a rank-0 output.
inline TestWorkload totalSum(std::int64_t rows, std::int64_t cols) {
  const Tensor a = te::placeholder("A", {rows, cols});
  const te::IterVar i = reduceAxis("ri", rows), j = reduceAxis("rj", cols);
  const Tensor total = te::compute("Total", {}, [&](const Indices&) {
    return te::reduce(te::Reducer::Sum, te::load(a, {at(i), at(j)}), {i, j});
  });
  Reference reference = [](const std::vector<TensorData>& inputs) {
    TensorData result(DataType::Float32, {});
    double sum = 0.0;
    for (std::int64_t e = 0; e < inputs[0].elements(); ++e)
      sum += inputs[0].get(e);
    result.set(0, sum);
    return std::vector<TensorData>{result};
  };
  return {Workload{.key = "total", .inputs = {a}, .stages = {total}, .outputs = {total}},
          reference};
}

inline std::vector<TensorData> randomInputs(const Workload& workload, std::uint64_t seed = 7) {
  Rng rng(seed);
  std::vector<TensorData> inputs;
  for (const Tensor& input : workload.inputs) {
    TensorData data(input->dtype, input->shape);
    for (std::int64_t e = 0; e < data.elements(); ++e)
      data.set(e, rng.uniform(-1.0, 1.0));
    inputs.push_back(std::move(data));
  }
  return inputs;
}

// Lowers and interprets; outputs in workload order.
inline std::vector<TensorData> runState(const Workload& workload, const State& state,
                                        std::vector<TensorData> inputs) {
  const te::LoweredFunction function = lower(workload, state, "f");
  std::vector<TensorData> outputs;
  for (const Tensor& output : workload.outputs)
    outputs.emplace_back(output->dtype, output->shape);
  std::vector<TensorData*> arguments;
  for (TensorData& input : inputs)
    arguments.push_back(&input);
  for (TensorData& output : outputs)
    arguments.push_back(&output);
  runLoweredFunction(function, arguments);
  return outputs;
}

// Float32 results of different summation orders differ by a few ulps of the partial sums.
inline ::testing::AssertionResult allClose(const TensorData& actual, const TensorData& expected,
                                           double tolerance = 1e-5) {
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure() << "shapes differ";
  for (std::int64_t e = 0; e < actual.elements(); ++e) {
    const double a = actual.get(e), b = expected.get(e);
    if (!(std::fabs(a - b) <= tolerance * (1.0 + std::fabs(b))))
      return ::testing::AssertionFailure() << "element " << e << ": " << a << " vs " << b;
  }
  return ::testing::AssertionSuccess();
}

// Lowers `state`, runs it on random inputs and compares every output with the reference.
inline ::testing::AssertionResult matchesReference(const TestWorkload& test, const State& state) {
  const std::vector<TensorData> inputs = randomInputs(test.workload);
  const std::vector<TensorData> actual = runState(test.workload, state, inputs);
  const std::vector<TensorData> expected = test.reference(inputs);
  for (std::size_t k = 0; k < actual.size(); ++k)
    if (auto result = allClose(actual[k], expected[k]); !result)
      return result << " (output " << k << ")\n" << te::toString(lower(test.workload, state, "f"));
  return ::testing::AssertionSuccess();
}

// FileCheck's CHECK lines: each pattern must occur after the end of the previous match.
inline ::testing::AssertionResult containsInOrder(const std::string& text,
                                                  const std::vector<std::string>& patterns) {
  std::size_t position = 0;
  for (const std::string& pattern : patterns) {
    const std::size_t found = text.find(pattern, position);
    if (found == std::string::npos)
      return ::testing::AssertionFailure()
             << "pattern '" << pattern << "' not found after offset " << position << " in:\n"
             << text;
    position = found + pattern.size();
  }
  return ::testing::AssertionSuccess();
}

// The reason of the InvalidScheduleError that `step` raises after `before`, or "(accepted)".
inline std::string rejectionReason(const Workload& workload, const std::vector<Step>& before,
                                   const Step& step) {
  const State state = replay(workload, before);
  try {
    applyStep(state, step);
  } catch (const InvalidScheduleError& error) {
    return error.reason();
  }
  return "(accepted)";
}

// The error stepFromJson raises for `text`, or "(accepted)".
inline std::string stepJsonError(const std::string& text) {
  try {
    stepFromJson(nlohmann::json::parse(text));
  } catch (const Error& error) {
    return error.what();
  }
  return "(accepted)";
}

// Store statements in a loop nest: program features give one vector per store.
inline std::size_t countStores(const te::Stmt& stmt) {
  switch (stmt->kind) {
  case te::StmtKind::Store:
    return 1;
  case te::StmtKind::Sequence: {
    std::size_t stores = 0;
    for (const te::Stmt& statement : stmt->sequence)
      stores += countStores(statement);
    return stores;
  }
  case te::StmtKind::IfThenElse:
    return countStores(stmt->body) + (stmt->elseBody ? countStores(stmt->elseBody) : 0);
  default:
    return countStores(stmt->body);
  }
}

} // namespace clustune::schedule::testing
