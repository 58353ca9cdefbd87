// The reference interpreter on hand-built workloads: the arithmetic semantics that generated code
// must share (integer and floor division, casts, half-to-even rounding, float32 rounding on
// store), lazy Select, reductions over several axes against plain loops, multi-stage workloads,
// and the errors for bad inputs and out-of-bounds loads.
#include "te/Interpreter.h"

#include "support/Error.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace clustune::te;
using clustune::Error;

namespace {

TensorData tensorOf(DataType dtype, Shape shape, const std::vector<double>& values) {
  TensorData data(dtype, std::move(shape));
  EXPECT_EQ(data.elements(), static_cast<std::int64_t>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i)
    data.set(static_cast<std::int64_t>(i), values[i]);
  return data;
}

std::vector<double> valuesOf(const TensorData& data) {
  std::vector<double> values;
  for (std::int64_t i = 0; i < data.elements(); ++i)
    values.push_back(data.get(i));
  return values;
}

// A workload whose stages are all outputs, in order.
Workload workloadOf(std::vector<Tensor> inputs, std::vector<Tensor> stages) {
  return Workload{.key = "test", .inputs = std::move(inputs), .stages = stages, .outputs = stages};
}

using Indices = std::vector<Expr>;

TEST(Interpreter, IntegerDivisionTruncatesAndFloorOperationsRoundDown) {
  const Tensor a = placeholder("a", {4}, DataType::Int64);
  const Tensor b = placeholder("b", {4}, DataType::Int64);
  auto elementwise = [&](const char* name, ExprKind kind) {
    return compute(name, {4}, [&](const Indices& i) {
      return binary(kind, load(a, {i[0]}), load(b, {i[0]}));
    });
  };
  const auto outputs =
      evaluateWorkload(workloadOf({a, b}, {elementwise("div", ExprKind::Div),
                                           elementwise("fdiv", ExprKind::FloorDiv),
                                           elementwise("fmod", ExprKind::FloorMod)}),
                       {tensorOf(DataType::Int64, {4}, {-7, 7, -7, 7}),
                        tensorOf(DataType::Int64, {4}, {2, 2, -2, -2})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{-3, 3, 3, -3}));
  EXPECT_EQ(valuesOf(outputs[1]), (std::vector<double>{-4, 3, 3, -4}));
  EXPECT_EQ(valuesOf(outputs[2]), (std::vector<double>{1, 1, -1, -1}));
}

TEST(Interpreter, FloatDivisionIsTrueDivision) {
  const Tensor a = placeholder("a", {2});
  const Tensor quotient =
      compute("q", {2}, [&](const Indices& i) { return load(a, {i[0]}) / floatImm(4.0); });
  const auto outputs =
      evaluateWorkload(workloadOf({a}, {quotient}), {tensorOf(DataType::Float32, {2}, {-7, 1})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{-1.75, 0.25}));
}

TEST(Interpreter, CastsTruncateTestAgainstZeroAndRound) {
  const Tensor x = placeholder("x", {6});
  auto castStage = [&](const char* name, DataType dtype) {
    return compute(name, {6}, [&](const Indices& i) { return cast(dtype, load(x, {i[0]})); });
  };
  const Tensor rounded = compute(
      "round", {6}, [&](const Indices& i) { return call(CallFunction::Round, {load(x, {i[0]})}); });
  const auto outputs =
      evaluateWorkload(workloadOf({x}, {castStage("int", DataType::Int32),
                                        castStage("bool", DataType::Bool), rounded}),
                       {tensorOf(DataType::Float32, {6}, {2.7, -2.7, 0.5, 1.5, 2.5, -0.5})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{2, -2, 0, 1, 2, 0}));
  EXPECT_EQ(valuesOf(outputs[1]), (std::vector<double>{1, 1, 1, 1, 1, 1}));
  // Half to even, as ONNX Round: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0.
  EXPECT_EQ(valuesOf(outputs[2]), (std::vector<double>{3, -3, 0, 2, 2, 0}));
  EXPECT_TRUE(std::signbit(outputs[2].get(5)));
}

TEST(Interpreter, CastOfZeroToBoolIsFalse) {
  const Tensor x = placeholder("x", {3}, DataType::Int64);
  const Tensor flags =
      compute("b", {3}, [&](const Indices& i) { return cast(DataType::Bool, load(x, {i[0]})); });
  const auto outputs =
      evaluateWorkload(workloadOf({x}, {flags}), {tensorOf(DataType::Int64, {3}, {0, -3, 5})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{0, 1, 1}));
}

TEST(Interpreter, Float32StagesRoundOnStore) {
  const Tensor x = placeholder("x", {2}, DataType::Float64);
  const Tensor narrow = compute(
      "narrow", {2}, [&](const Indices& i) { return cast(DataType::Float32, load(x, {i[0]})); });
  // The float64 sum keeps the tiny addend; the float32 stage that reads it cannot.
  const Tensor wide = compute("wide", {2}, [&](const Indices& i) {
    return load(x, {i[0]}) + floatImm(std::ldexp(1.0, -30), DataType::Float64);
  });
  const auto outputs = evaluateWorkload(workloadOf({x}, {narrow, wide}),
                                        {tensorOf(DataType::Float64, {2}, {0.1, 1.0})});
  EXPECT_EQ(outputs[0].get(0), static_cast<double>(0.1f));
  EXPECT_NE(outputs[0].get(0), 0.1);
  EXPECT_EQ(outputs[1].get(1), 1.0 + std::ldexp(1.0, -30));
}

TEST(Interpreter, Float32ImmediatesAreRoundedToFloat32) {
  // The float64 input 0.1 cast to float32 equals the float32 immediate 0.1 only if the
  // immediate is rounded like a kernel's float constant.
  const Tensor x = placeholder("x", {1}, DataType::Float64);
  const Tensor same = compute("same", {1}, [&](const Indices& i) {
    return cast(DataType::Float32, load(x, {i[0]})) == floatImm(0.1, DataType::Float32);
  });
  const auto outputs =
      evaluateWorkload(workloadOf({x}, {same}), {tensorOf(DataType::Float64, {1}, {0.1})});
  EXPECT_EQ(outputs[0].get(0), 1.0);
}

TEST(Interpreter, CallsMatchTheirDefinitions) {
  const Tensor x = placeholder("x", {3}, DataType::Float64);
  const std::vector<double> inputs{-1.25, 0.0, 0.5};
  const std::vector<CallFunction> functions{
      CallFunction::Exp, CallFunction::Tanh, CallFunction::Erf,   CallFunction::Sigmoid,
      CallFunction::Abs, CallFunction::Neg,  CallFunction::Floor, CallFunction::Ceil};
  std::vector<Tensor> stages;
  for (CallFunction function : functions)
    stages.push_back(compute(callFunctionName(function), {3},
                             [&](const Indices& i) { return call(function, {load(x, {i[0]})}); }));
  const auto outputs =
      evaluateWorkload(workloadOf({x}, stages), {tensorOf(DataType::Float64, {3}, inputs)});
  const std::vector<double (*)(double)> references{
      [](double v) { return std::exp(v); },   [](double v) { return std::tanh(v); },
      [](double v) { return std::erf(v); },   [](double v) { return 1 / (1 + std::exp(-v)); },
      [](double v) { return std::fabs(v); },  [](double v) { return -v; },
      [](double v) { return std::floor(v); }, [](double v) { return std::ceil(v); }};
  for (std::size_t f = 0; f < functions.size(); ++f)
    for (std::size_t i = 0; i < inputs.size(); ++i)
      EXPECT_DOUBLE_EQ(outputs[f].get(static_cast<std::int64_t>(i)), references[f](inputs[i]))
          << callFunctionName(functions[f]) << "(" << inputs[i] << ")";
  EXPECT_NEAR(outputs[2].get(2), 0.5204998778130465, 1e-15); // erf(0.5)
  EXPECT_DOUBLE_EQ(outputs[3].get(1), 0.5);                  // sigmoid(0)
}

TEST(Interpreter, TrigonometricHyperbolicAndFmodMatchCmath) {
  const Tensor x = placeholder("x", {3}, DataType::Float64);
  const std::vector<double> inputs{-0.75, 0.0, 0.5};
  const std::vector<CallFunction> functions{
      CallFunction::Sin,   CallFunction::Cos,  CallFunction::Tan,  CallFunction::Asin,
      CallFunction::Acos,  CallFunction::Atan, CallFunction::Sinh, CallFunction::Cosh,
      CallFunction::Asinh, CallFunction::Atanh};
  std::vector<Tensor> stages;
  for (CallFunction function : functions)
    stages.push_back(compute(callFunctionName(function), {3},
                             [&](const Indices& i) { return call(function, {load(x, {i[0]})}); }));
  stages.push_back(compute("acosh", {3}, [&](const Indices& i) {
    return call(CallFunction::Acosh, {load(x, {i[0]}) + floatImm(2.0, DataType::Float64)});
  }));
  stages.push_back(compute("fmod", {3}, [&](const Indices& i) {
    return call(CallFunction::Fmod, {load(x, {i[0]}) * floatImm(5.0, DataType::Float64),
                                     floatImm(-2.0, DataType::Float64)});
  }));
  const auto outputs =
      evaluateWorkload(workloadOf({x}, stages), {tensorOf(DataType::Float64, {3}, inputs)});
  const std::vector<double (*)(double)> references{
      [](double v) { return std::sin(v); },      [](double v) { return std::cos(v); },
      [](double v) { return std::tan(v); },      [](double v) { return std::asin(v); },
      [](double v) { return std::acos(v); },     [](double v) { return std::atan(v); },
      [](double v) { return std::sinh(v); },     [](double v) { return std::cosh(v); },
      [](double v) { return std::asinh(v); },    [](double v) { return std::atanh(v); },
      [](double v) { return std::acosh(v + 2); }};
  for (std::size_t f = 0; f < references.size(); ++f)
    for (std::size_t i = 0; i < inputs.size(); ++i)
      EXPECT_DOUBLE_EQ(outputs[f].get(static_cast<std::int64_t>(i)), references[f](inputs[i]))
          << stages[f]->name << "(" << inputs[i] << ")";
  // fmod keeps the dividend's sign: -3.75 % -2 is -1.75, 2.5 % -2 is 0.5.
  EXPECT_EQ(valuesOf(outputs.back()), (std::vector<double>{-1.75, 0.0, 0.5}));
}

TEST(Interpreter, PowLogAndSqrt) {
  const Tensor x = placeholder("x", {2}, DataType::Float64);
  const Tensor power = compute("pow", {2}, [&](const Indices& i) {
    return call(CallFunction::Pow, {load(x, {i[0]}), floatImm(10.0, DataType::Float64)});
  });
  const Tensor logSqrt = compute("logsqrt", {2}, [&](const Indices& i) {
    return call(CallFunction::Log, {call(CallFunction::Sqrt, {load(x, {i[0]})})});
  });
  const auto outputs = evaluateWorkload(workloadOf({x}, {power, logSqrt}),
                                        {tensorOf(DataType::Float64, {2}, {2.0, 0.5})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{1024.0, 1.0 / 1024}));
  EXPECT_DOUBLE_EQ(outputs[1].get(0), 0.5 * std::log(2.0));
}

TEST(Interpreter, ComparisonsAndLogicGiveZeroOrOne) {
  const Tensor a = placeholder("a", {3}, DataType::Int64);
  const Tensor result = compute("logic", {3}, [&](const Indices& i) {
    const Expr value = load(a, {i[0]});
    // (value >= 1 && value != 2) || !(value < 3)
    return cast(DataType::Int64,
                ((value >= intImm(1)) && (value != intImm(2))) || logicalNot(value < intImm(3)));
  });
  const Tensor equal = compute("eq", {3}, [&](const Indices& i) {
    return cast(DataType::Int64, load(a, {i[0]}) == intImm(2));
  });
  const auto outputs = evaluateWorkload(workloadOf({a}, {result, equal}),
                                        {tensorOf(DataType::Int64, {3}, {1, 2, 5})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(valuesOf(outputs[1]), (std::vector<double>{0, 1, 0}));
}

TEST(Interpreter, SelectEvaluatesOnlyTheChosenOperand) {
  // A pad: positions 3 and 4 would load outside `a` if Select evaluated both operands.
  const Tensor a = placeholder("a", {3});
  const Tensor padded = compute("pad", {5}, [&](const Indices& i) {
    return select(i[0] < intImm(3), load(a, {i[0]}), floatImm(-1.0));
  });
  const auto outputs =
      evaluateWorkload(workloadOf({a}, {padded}), {tensorOf(DataType::Float32, {3}, {4, 5, 6})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{4, 5, 6, -1, -1}));
}

TEST(Interpreter, MinimumAndMaximum) {
  const Tensor a = placeholder("a", {3});
  const Tensor clipped = compute("clip", {3}, [&](const Indices& i) {
    return minimum(maximum(load(a, {i[0]}), floatImm(0.0)), floatImm(6.0));
  });
  const auto outputs = evaluateWorkload(workloadOf({a}, {clipped}),
                                        {tensorOf(DataType::Float32, {3}, {-1, 2.5, 9})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{0, 2.5, 6}));
}

TEST(Interpreter, ReductionsOverSeveralAxesMatchPlainLoops) {
  // A 2-D convolution without padding: out[f, y, x] = sum over c, ry, rx.
  const std::int64_t channels = 3, filters = 2, size = 5, kernel = 3, out = size - kernel + 1;
  const Tensor image = placeholder("image", {channels, size, size});
  const Tensor weights = placeholder("weights", {filters, channels, kernel, kernel});
  const Var c = makeVar("c"), ry = makeVar("ry"), rx = makeVar("rx");
  const Tensor conv = compute("conv", {filters, out, out}, [&](const Indices& i) {
    return reduce(Reducer::Sum,
                  load(image, {varExpr(c), i[1] + varExpr(ry), i[2] + varExpr(rx)}) *
                      load(weights, {i[0], varExpr(c), varExpr(ry), varExpr(rx)}),
                  {{c, channels}, {ry, kernel}, {rx, kernel}});
  });
  TensorData imageData(DataType::Float32, image->shape);
  TensorData weightData(DataType::Float32, weights->shape);
  for (std::int64_t i = 0; i < imageData.elements(); ++i)
    imageData.set(i, static_cast<double>((i * 7) % 11) - 5);
  for (std::int64_t i = 0; i < weightData.elements(); ++i)
    weightData.set(i, static_cast<double>((i * 5) % 7) - 3);
  const auto outputs =
      evaluateWorkload(workloadOf({image, weights}, {conv}), {imageData, weightData});
  for (std::int64_t f = 0; f < filters; ++f)
    for (std::int64_t y = 0; y < out; ++y)
      for (std::int64_t x = 0; x < out; ++x) {
        double expected = 0;
        for (std::int64_t k = 0; k < channels; ++k)
          for (std::int64_t dy = 0; dy < kernel; ++dy)
            for (std::int64_t dx = 0; dx < kernel; ++dx)
              expected += imageData.get((k * size + y + dy) * size + x + dx) *
                          weightData.get(((f * channels + k) * kernel + dy) * kernel + dx);
        EXPECT_EQ(outputs[0].get((f * out + y) * out + x), expected) << f << ',' << y << ',' << x;
      }
}

TEST(Interpreter, MaxAndMinReductionsAndEmptyReductionGiveIdentity) {
  const Tensor a = placeholder("a", {2, 3});
  auto rowReduction = [&](const char* name, Reducer reducer, std::int64_t extent) {
    const Var k = makeVar("k");
    return compute(name, {2}, [&](const Indices& i) {
      return reduce(reducer, load(a, {i[0], varExpr(k)}), {{k, extent}});
    });
  };
  const auto outputs = evaluateWorkload(
      workloadOf({a}, {rowReduction("max", Reducer::Max, 3), rowReduction("min", Reducer::Min, 3),
                       rowReduction("empty", Reducer::Max, 0)}),
      {tensorOf(DataType::Float32, {2, 3}, {1, -4, 3, -2, -8, -5})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{3, -2}));
  EXPECT_EQ(valuesOf(outputs[1]), (std::vector<double>{-4, -8}));
  EXPECT_EQ(outputs[2].get(0), -INFINITY);
}

TEST(Interpreter, LaterStagesReadEarlierOnes) {
  // Row sums of squares, then each square divided by its row's sum.
  const Tensor a = placeholder("a", {2, 2});
  const Tensor squares = compute("squares", {2, 2}, [&](const Indices& i) {
    const Expr value = load(a, {i[0], i[1]});
    return value * value;
  });
  const Var k = makeVar("k");
  const Tensor sums = compute("sums", {2}, [&](const Indices& i) {
    return reduce(Reducer::Sum, load(squares, {i[0], varExpr(k)}), {{k, 2}});
  });
  const Tensor shares = compute("shares", {2, 2}, [&](const Indices& i) {
    return load(squares, {i[0], i[1]}) / load(sums, {i[0]});
  });
  const Workload workload{
      .key = "test", .inputs = {a}, .stages = {squares, sums, shares}, .outputs = {shares, sums}};
  const auto outputs =
      evaluateWorkload(workload, {tensorOf(DataType::Float32, {2, 2}, {1, 3, 2, -2})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{0.1f, 0.9f, 0.5, 0.5}));
  EXPECT_EQ(valuesOf(outputs[1]), (std::vector<double>{10, 8}));
}

TEST(Interpreter, ScalarStages) {
  const Tensor a = placeholder("a", {});
  const Tensor doubled =
      compute("doubled", {}, [&](const Indices&) { return load(a, {}) * floatImm(2.0); });
  const auto outputs =
      evaluateWorkload(workloadOf({a}, {doubled}), {tensorOf(DataType::Float32, {}, {1.5})});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{3.0}));
}

TEST(Interpreter, RejectsWrongInputs) {
  const Tensor a = placeholder("a", {2, 3});
  const Tensor copy = compute("copy", {2, 3}, [&](const Indices& i) { return load(a, i); });
  const Workload workload = workloadOf({a}, {copy});
  try {
    evaluateWorkload(workload, {});
    FAIL() << "no error for a missing input";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("takes 1 inputs, given 0"), std::string::npos)
        << error.what();
  }
  try {
    evaluateWorkload(workload, {TensorData(DataType::Float32, {3, 2})});
    FAIL() << "no error for a wrong shape";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("input 0 (a): expected float32[2x3], given "
                        "float32[3x2]"),
              std::string::npos)
        << error.what();
  }
  try {
    evaluateWorkload(workload, {TensorData(DataType::Int64, {2, 3})});
    FAIL() << "no error for a wrong dtype";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("given int64[2x3]"), std::string::npos)
        << error.what();
  }
}

TEST(Interpreter, RejectsVariablesThatNoAxisBinds) {
  const Tensor a = placeholder("a", {2});
  const Var stray = makeVar("stray");
  const Tensor wrong =
      compute("wrong", {2}, [&](const Indices&) { return load(a, {varExpr(stray)}); });
  EXPECT_THROW(evaluateWorkload(workloadOf({a}, {wrong}), {TensorData(DataType::Float32, {2})}),
               Error);
}

Workload outOfBoundsWorkload() {
  const Tensor a = placeholder("a", {3});
  const Tensor shifted =
      compute("shifted", {3}, [&](const Indices& i) { return load(a, {i[0] + intImm(1)}); });
  return workloadOf({a}, {shifted});
}

#ifdef NDEBUG
TEST(Interpreter, OutOfBoundsLoadThrowsInRelease) {
  try {
    evaluateWorkload(outOfBoundsWorkload(), {TensorData(DataType::Float32, {3})});
    FAIL() << "no error for an out-of-bounds load";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("out-of-bounds load of a"), std::string::npos)
        << error.what();
  }
}
#else
TEST(Interpreter, OutOfBoundsLoadAssertsInDebug) {
  EXPECT_DEATH(evaluateWorkload(outOfBoundsWorkload(), {TensorData(DataType::Float32, {3})}),
               "out-of-bounds");
}
#endif

} // namespace
