// The element-wise operator lowerings (te/topi/Elementwise.cpp), through the public path: a
// hand-built one-node task, te::lowerTask and the reference interpreter, against values computed
// by hand or with <cmath> formulas written independently here. Covers every activation, Cast,
// broadcasting in every direction, variadic Max/Min/Sum/Mean, PRelu, Mod, the trigonometric and
// hyperbolic functions, Where, BatchNormalization and the errors.
#include "support/Error.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"
#include "te/topi/Operator.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace clustune;
using graph::DataType;
using graph::Shape;
using te::TensorData;

#include "TopiTestSupport.h"

using namespace clustune::topi_test;

namespace {

// One output of `op` on `inputs`, with the first input's shape unless given.
TensorData runOne(const std::string& op, const std::vector<TensorData>& inputs,
                  graph::Attributes attributes = {}, std::optional<OutputSpec> output = {}) {
  const OutputSpec spec = output.value_or(OutputSpec{inputs.at(0).shape(), inputs.at(0).dtype()});
  auto outputs = run(oneNodeTask(op, std::move(attributes), inputs, {spec}), inputs);
  EXPECT_EQ(outputs.size(), 1u);
  return outputs.at(0);
}

const std::vector<double> kSamples{-3.0, -0.5, 0.0, 0.25, 2.0, 7.5};

// Applies `reference` to every sample, in double, then rounds to float32 as the stage does.
std::vector<double> expected(double (*reference)(double)) {
  std::vector<double> values;
  for (double sample : kSamples)
    values.push_back(static_cast<float>(reference(sample)));
  return values;
}

TEST(TopiElementwise, UnaryActivationsMatchTheirFormulas) {
  const TensorData x = tensorOf({2, 3}, kSamples);
  struct Case {
    const char* op;
    graph::Attributes attributes;
    double (*reference)(double);
  };
  const std::vector<Case> cases{
      {"Relu", {}, [](double v) { return v > 0 ? v : 0.0; }},
      {"Sigmoid", {}, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"Tanh", {}, [](double v) { return std::tanh(v); }},
      {"Erf", {}, [](double v) { return std::erf(v); }},
      {"Exp", {}, [](double v) { return std::exp(v); }},
      {"Neg", {}, [](double v) { return -v; }},
      {"Abs", {}, [](double v) { return v < 0 ? -v : v; }},
      {"Floor", {}, [](double v) { return std::floor(v); }},
      {"Ceil", {}, [](double v) { return std::ceil(v); }},
      {"Sign", {}, [](double v) { return v > 0   ? 1.0
                                         : v < 0 ? -1.0
                                                 : 0.0; }},
      {"LeakyRelu", {{"alpha", 0.1}}, [](double v) { return v < 0 ? 0.1 * v : v; }},
      {"Elu", {{"alpha", 2.0}}, [](double v) { return v < 0 ? 2.0 * (std::exp(v) - 1) : v; }},
      {"HardSigmoid",
       {{"alpha", 0.2}, {"beta", 0.5}},
       [](double v) { return std::fmax(0.0, std::fmin(1.0, 0.2 * v + 0.5)); }},
      {"HardSwish", {}, [](double v) { return v * std::fmax(0.0, std::fmin(1.0, v / 6 + 0.5)); }},
      {"Gelu", {}, [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }},
      {"Gelu",
       {{"approximate", std::string("tanh")}},
       [](double v) {
         const double pi = std::acos(-1.0);
         return 0.5 * v * (1 + std::tanh(std::sqrt(2 / pi) * (v + 0.044715 * v * v * v)));
       }},
      {"Softplus", {}, [](double v) { return std::log(std::exp(v) + 1); }},
      {"Selu",
       {},
       [](double v) {
         // The exact self-normalising constants; ONNX's defaults are their float32 roundings.
         const double alpha = 1.6732632423543772, gamma = 1.0507009873554805;
         return v > 0 ? gamma * v : gamma * alpha * (std::exp(v) - 1);
       }},
      {"Selu",
       {{"alpha", 2.0}, {"gamma", 3.0}},
       [](double v) { return v > 0 ? 3 * v : 3 * 2 * (std::exp(v) - 1); }},
      {"Celu",
       {{"alpha", 2.0}},
       [](double v) { return std::fmax(0.0, v) + std::fmin(0.0, 2 * (std::exp(v / 2) - 1)); }},
      {"Celu", {}, [](double v) { return v > 0 ? v : std::exp(v) - 1; }},
      {"ThresholdedRelu", {{"alpha", 0.25}}, [](double v) { return v > 0.25 ? v : 0.0; }},
      {"ThresholdedRelu", {}, [](double v) { return v > 1 ? v : 0.0; }},
      {"Softsign", {}, [](double v) { return v / (1 + std::fabs(v)); }},
      {"Shrink",
       {{"lambd", 0.5}, {"bias", 0.25}},
       [](double v) { return v < -0.5  ? v + 0.25
                             : v > 0.5 ? v - 0.25
                                       : 0.0; }},
      {"Shrink", {}, [](double v) { return std::fabs(v) > 0.5 ? v : 0.0; }},
      {"Clip",
       {{"min", -0.5}, {"max", 2.0}},
       [](double v) { return std::fmin(std::fmax(v, -0.5), 2.0); }},
      {"Clip", {{"max", 0.0}}, [](double v) { return std::fmin(v, 0.0); }},
      {"Clip", {}, [](double v) { return v; }},
      {"Identity", {}, [](double v) { return v; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    expectNear(runOne(c.op, {x}, c.attributes), expected(c.reference), 1e-6);
  }
}

TEST(TopiElementwise, FunctionsOfPositiveValues) {
  const TensorData x = tensorOf({3}, {0.25, 1.0, 16.0});
  expectNear(runOne("Log", {x}), {std::log(0.25), 0.0, std::log(16.0)});
  expectNear(runOne("Sqrt", {x}), {0.5, 1.0, 4.0});
  expectNear(runOne("Reciprocal", {x}), {4.0, 1.0, 0.0625});
}

TEST(TopiElementwise, RoundIsHalfToEven) {
  const TensorData x = tensorOf({6}, {0.5, 1.5, 2.5, -0.5, -1.5, 2.6});
  expectNear(runOne("Round", {x}), {0, 2, 2, 0, -2, 3}, 0);
}

TEST(TopiElementwise, SoftplusDoesNotOverflow) {
  const TensorData x = tensorOf({2}, {100.0, -100.0});
  expectNear(runOne("Softplus", {x}), {100.0, std::exp(-100.0)}, 1e-12);
}

TEST(TopiElementwise, NotNegatesBools) {
  const TensorData x = tensorOf({3}, {1, 0, 1}, DataType::Bool);
  EXPECT_EQ(valuesOf(runOne("Not", {x})), (std::vector<double>{0, 1, 0}));
}

TEST(TopiElementwise, CastConvertsToTheRecordedType) {
  const TensorData x = tensorOf({4}, {2.7, -2.7, 0.0, 0.4});
  const TensorData toInt = runOne("Cast", {x}, {{"to", std::int64_t{6}}}, {{{4}, DataType::Int32}});
  EXPECT_EQ(toInt.dtype(), DataType::Int32);
  EXPECT_EQ(valuesOf(toInt), (std::vector<double>{2, -2, 0, 0}));
  const TensorData toBool = runOne("Cast", {x}, {{"to", std::int64_t{9}}}, {{{4}, DataType::Bool}});
  EXPECT_EQ(valuesOf(toBool), (std::vector<double>{1, 1, 0, 1}));
  const TensorData integers = tensorOf({2}, {-5, 3}, DataType::Int64);
  const TensorData toFloat =
      runOne("Cast", {integers}, {{"to", std::int64_t{1}}}, {{{2}, DataType::Float32}});
  EXPECT_EQ(valuesOf(toFloat), (std::vector<double>{-5, 3}));
}

TEST(TopiElementwise, CastRejectsATargetThatDisagreesWithTheTask) {
  const TensorData x = tensorOf({1}, {1});
  const std::string error =
      errorOf(oneNodeTask("Cast", {{"to", std::int64_t{7}}}, {x}, {{{1}, DataType::Int32}}));
  EXPECT_NE(error.find("to=int64 but the task records int32"), std::string::npos) << error;
}

TEST(TopiElementwise, DropoutIsIdentityWithAnAllTrueMask) {
  const TensorData x = tensorOf({2, 2}, {1, -2, 3, -4});
  const auto outputs =
      run(oneNodeTask("Dropout", {}, {x}, {{{2, 2}}, {{2, 2}, DataType::Bool}}), {x});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{1, -2, 3, -4}));
  EXPECT_EQ(outputs[1].dtype(), DataType::Bool);
  EXPECT_EQ(valuesOf(outputs[1]), (std::vector<double>{1, 1, 1, 1}));
}

TEST(TopiElementwise, BinaryOperatorsBroadcastATrailingVector) {
  const TensorData a = tensorOf({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorData b = tensorOf({3}, {10, 20, 40});
  const OutputSpec out{{2, 3}};
  expectNear(runOne("Add", {a, b}, {}, out), {11, 22, 43, 14, 25, 46});
  expectNear(runOne("Sub", {a, b}, {}, out), {-9, -18, -37, -6, -15, -34});
  expectNear(runOne("Mul", {a, b}, {}, out), {10, 40, 120, 40, 100, 240});
  expectNear(runOne("Div", {a, b}, {}, out), {0.1, 0.1, 0.075, 0.4, 0.25, 0.15});
  // Broadcasting the first operand instead.
  expectNear(runOne("Sub", {b, a}, {}, out), {9, 18, 37, 6, 15, 34});
}

TEST(TopiElementwise, BroadcastingInBothDirectionsAndFromScalars) {
  const TensorData column = tensorOf({2, 1}, {1, 2});
  const TensorData row = tensorOf({1, 3}, {10, 20, 30});
  expectNear(runOne("Mul", {column, row}, {}, OutputSpec{{2, 3}}), {10, 20, 30, 20, 40, 60});
  const TensorData scalar = tensorOf({}, {0.5});
  expectNear(runOne("Add", {scalar, row}, {}, OutputSpec{{1, 3}}), {10.5, 20.5, 30.5});
  // Rank 3 against rank 2 with units in the middle: [2,1,2] + [3,1] -> [2,3,2].
  const TensorData cube = tensorOf({2, 1, 2}, {1, 2, 3, 4});
  const TensorData tall = tensorOf({3, 1}, {100, 200, 300});
  expectNear(runOne("Add", {cube, tall}, {}, OutputSpec{{2, 3, 2}}),
             {101, 102, 201, 202, 301, 302, 103, 104, 203, 204, 303, 304});
}

TEST(TopiElementwise, IntegerDivisionTruncates) {
  const TensorData a = tensorOf({3}, {7, -7, 6}, DataType::Int64);
  const TensorData b = tensorOf({3}, {2, 2, -4}, DataType::Int64);
  EXPECT_EQ(valuesOf(runOne("Div", {a, b})), (std::vector<double>{3, -3, -1}));
}

TEST(TopiElementwise, PowTakesAnExponentOfAnotherType) {
  const TensorData base = tensorOf({3}, {2, 3, 4});
  const TensorData exponent = tensorOf({3}, {3, 2, -1}, DataType::Int64);
  expectNear(runOne("Pow", {base, exponent}), {8, 9, 0.25});
}

TEST(TopiElementwise, SingleElementConstantOperandsAreInlined) {
  // The task carries the exponent 2; whatever is fed to that input, the kernel squares.
  const TensorData x = tensorOf({3}, {-3, 0.5, 4});
  const TensorData fed = tensorOf({}, {7});
  graph::Task task = oneNodeTask("Pow", {}, {x, fed}, {{{3}}});
  task.inputs[1].kind = graph::TaskInput::Kind::Weight;
  task.inputs[1].hasData = true;
  task.inputs[1].floatData = {2.0};
  expectNear(run(task, {x, fed}).at(0), {9, 0.25, 16});
}

TEST(TopiElementwise, VariadicMaxAndMinBroadcast) {
  const TensorData a = tensorOf({2, 2}, {1, 8, -3, 4});
  const TensorData b = tensorOf({2}, {2, 5});
  const TensorData c = tensorOf({2, 1}, {0, 6});
  const OutputSpec out{{2, 2}};
  expectNear(runOne("Max", {a, b, c}, {}, out), {2, 8, 6, 6});
  expectNear(runOne("Min", {a, b, c}, {}, out), {0, 0, -3, 4});
  expectNear(runOne("Max", {a}), {1, 8, -3, 4});
}

TEST(TopiElementwise, TrigonometricAndHyperbolicFunctions) {
  // Samples inside every function's domain: |x| < 1 for asin, acos and atanh, x >= 1 for acosh.
  const std::vector<double> inside{-0.9, -0.25, 0.0, 0.5, 0.75, 0.95};
  const std::vector<double> aboveOne{1.0, 1.5, 2.0, 4.0, 10.0, 100.0};
  struct Case {
    const char* op;
    const std::vector<double>& samples;
    double (*reference)(double);
  };
  const std::vector<Case> cases{{"Sin", kSamples, [](double v) { return std::sin(v); }},
                                {"Cos", kSamples, [](double v) { return std::cos(v); }},
                                {"Tan", inside, [](double v) { return std::tan(v); }},
                                {"Asin", inside, [](double v) { return std::asin(v); }},
                                {"Acos", inside, [](double v) { return std::acos(v); }},
                                {"Atan", kSamples, [](double v) { return std::atan(v); }},
                                {"Sinh", kSamples, [](double v) { return std::sinh(v); }},
                                {"Cosh", kSamples, [](double v) { return std::cosh(v); }},
                                {"Asinh", kSamples, [](double v) { return std::asinh(v); }},
                                {"Acosh", aboveOne, [](double v) { return std::acosh(v); }},
                                {"Atanh", inside, [](double v) { return std::atanh(v); }}};
  for (const Case& test : cases) {
    SCOPED_TRACE(test.op);
    std::vector<double> values;
    for (double sample : test.samples)
      values.push_back(test.reference(static_cast<float>(sample)));
    expectNear(runOne(test.op, {tensorOf({2, 3}, test.samples)}), values,
               1e-6 * 1000); // cosh(7.5) is ~904
  }
  EXPECT_NE(errorOf(oneNodeTask("Sin", {}, {tensorOf({1}, {1}, DataType::Int64)},
                                {{{1}, DataType::Int64}}))
                .find("needs a floating-point operand"),
            std::string::npos);
}

TEST(TopiElementwise, ModFloorsIntegersAndTruncatesWithFmod) {
  const TensorData a = tensorOf({4}, {7, -7, 7, -7}, DataType::Int32);
  const TensorData b = tensorOf({4}, {3, 3, -3, -3}, DataType::Int32);
  // fmod=0: the divisor's sign (Python's %); fmod=1: the dividend's (C's fmod).
  EXPECT_EQ(valuesOf(runOne("Mod", {a, b}, {{"fmod", std::int64_t{0}}})),
            (std::vector<double>{1, 2, -2, -1}));
  EXPECT_EQ(valuesOf(runOne("Mod", {a, b}, {{"fmod", std::int64_t{1}}})),
            (std::vector<double>{1, -1, 1, -1}));
  const TensorData x = tensorOf({4}, {5.5, -5.5, 5.5, -5.5});
  const TensorData y = tensorOf({}, {-2});
  expectNear(runOne("Mod", {x, y}, {{"fmod", std::int64_t{1}}}), {1.5, -1.5, 1.5, -1.5});
  EXPECT_NE(errorOf(oneNodeTask("Mod", {{"fmod", std::int64_t{0}}}, {x, y}, {{{4}}}))
                .find("fmod=0 on floating-point operands is undefined"),
            std::string::npos);
}

TEST(TopiElementwise, IsNaNIsInfAndCastLike) {
  const double inf = std::numeric_limits<double>::infinity();
  const TensorData x = tensorOf({4}, {1, std::nan(""), inf, -inf});
  EXPECT_EQ(valuesOf(runOne("IsNaN", {x}, {}, OutputSpec{{4}, DataType::Bool})),
            (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(valuesOf(runOne("IsInf", {x}, {}, OutputSpec{{4}, DataType::Bool})),
            (std::vector<double>{0, 0, 1, 1}));
  EXPECT_EQ(valuesOf(runOne("IsInf", {x}, {{"detect_negative", std::int64_t{0}}},
                            OutputSpec{{4}, DataType::Bool})),
            (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(valuesOf(runOne("IsInf", {x}, {{"detect_positive", std::int64_t{0}}},
                            OutputSpec{{4}, DataType::Bool})),
            (std::vector<double>{0, 0, 0, 1}));
  const TensorData y = tensorOf({2}, {1.5, -2.25});
  const TensorData like = tensorOf({1}, {0}, DataType::Float64);
  const TensorData converted =
      runOne("CastLike", {y, like}, {}, OutputSpec{{2}, DataType::Float64});
  EXPECT_EQ(converted.dtype(), DataType::Float64);
  EXPECT_EQ(valuesOf(converted), (std::vector<double>{1.5, -2.25}));
}

TEST(TopiElementwise, VariadicSumAndMeanBroadcast) {
  const TensorData a = tensorOf({2, 2}, {1, 8, -3, 4});
  const TensorData b = tensorOf({2}, {2, 5});
  const TensorData c = tensorOf({2, 1}, {0, 6});
  const OutputSpec out{{2, 2}};
  expectNear(runOne("Sum", {a, b, c}, {}, out), {3, 13, 5, 15});
  expectNear(runOne("Mean", {a, b, c}, {}, out), {1, 13.0 / 3, 5.0 / 3, 5});
  expectNear(runOne("Mean", {a}), {1, 8, -3, 4});
  const TensorData integer = tensorOf({2}, {1, 2}, DataType::Int64);
  EXPECT_EQ(valuesOf(runOne("Sum", {integer, integer})), (std::vector<double>{2, 4}));
  EXPECT_NE(errorOf(oneNodeTask("Mean", {}, {integer, integer}, {{{2}, DataType::Int64}}))
                .find("needs floating-point operands"),
            std::string::npos);
}

TEST(TopiElementwise, PReluScalesNegativeInputsByABroadcastSlope) {
  const TensorData x = tensorOf({2, 3}, {-2, -1, 0, 1, 2, -4});
  expectNear(runOne("PRelu", {x, tensorOf({3}, {0.5, 2, 3})}), {-1, -2, 0, 1, 2, -12});
  expectNear(runOne("PRelu", {x, tensorOf({1}, {0.25})}), {-0.5, -0.25, 0, 1, 2, -1});
}

TEST(TopiElementwise, ComparisonsAndLogicGiveBools) {
  const TensorData a = tensorOf({3}, {1, 2, 3});
  const TensorData b = tensorOf({}, {2});
  const OutputSpec out{{3}, DataType::Bool};
  EXPECT_EQ(valuesOf(runOne("Equal", {a, b}, {}, out)), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(valuesOf(runOne("Less", {a, b}, {}, out)), (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(valuesOf(runOne("Greater", {a, b}, {}, out)), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(valuesOf(runOne("LessOrEqual", {a, b}, {}, out)), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(valuesOf(runOne("GreaterOrEqual", {a, b}, {}, out)), (std::vector<double>{0, 1, 1}));
  const TensorData p = tensorOf({4}, {0, 0, 1, 1}, DataType::Bool);
  const TensorData q = tensorOf({4}, {0, 1, 0, 1}, DataType::Bool);
  EXPECT_EQ(valuesOf(runOne("And", {p, q})), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(valuesOf(runOne("Or", {p, q})), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(valuesOf(runOne("Xor", {p, q})), (std::vector<double>{0, 1, 1, 0}));
}

TEST(TopiElementwise, WhereBroadcastsItsCondition) {
  const TensorData condition = tensorOf({2}, {1, 0}, DataType::Bool);
  const TensorData x = tensorOf({2, 2}, {1, 2, 3, 4});
  const TensorData y = tensorOf({}, {-1});
  expectNear(runOne("Where", {condition, x, y}, {}, OutputSpec{{2, 2}}), {1, -1, 3, -1});
}

TEST(TopiElementwise, BatchNormalizationUsesPerChannelStatistics) {
  // x: N=1, C=2, 2 elements per channel.
  const TensorData x = tensorOf({1, 2, 2}, {1, 3, 10, 20});
  const TensorData scale = tensorOf({2}, {2, 0.5});
  const TensorData bias = tensorOf({2}, {1, -1});
  const TensorData mean = tensorOf({2}, {2, 10});
  const TensorData variance = tensorOf({2}, {4, 100});
  const double epsilon = 1e-3;
  auto normalised = [&](double value, double m, double v, double s, double b) {
    return (value - m) / std::sqrt(v + epsilon) * s + b;
  };
  expectNear(runOne("BatchNormalization", {x, scale, bias, mean, variance}, {{"epsilon", epsilon}}),
             {normalised(1, 2, 4, 2, 1), normalised(3, 2, 4, 2, 1),
              normalised(10, 10, 100, 0.5, -1), normalised(20, 10, 100, 0.5, -1)});
}

TEST(TopiElementwise, ChainedNodesFeedEachOther) {
  // relu(a + b) as one task of two nodes.
  const TensorData a = tensorOf({4}, {-1, 2, -3, 4});
  const TensorData b = tensorOf({4}, {0.5, 0.5, 5, -5});
  graph::Task task = oneNodeTask("Add", {}, {a, b}, {{{4}}});
  graph::TaskNode relu;
  relu.op = "Relu";
  relu.inputs = {graph::TaskValueRef::node(0, 0)};
  relu.outputShapes = {{4}};
  relu.outputTypes = {DataType::Float32};
  task.nodes.push_back(relu);
  task.outputs = {graph::TaskValueRef::node(1, 0)};
  expectNear(run(task, {a, b}).at(0), {0, 2.5, 2, 0});
}

TEST(TopiElementwise, RejectsShapesThatDoNotBroadcast) {
  const TensorData a = tensorOf({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorData b = tensorOf({2}, {1, 2});
  const std::string error = errorOf(oneNodeTask("Add", {}, {a, b}, {{{2, 3}}}));
  EXPECT_NE(error.find("Add: cannot broadcast 2 to 2x3"), std::string::npos) << error;
}

TEST(TopiElementwise, RejectsWrongOperandTypes) {
  const TensorData x = tensorOf({1}, {1});
  EXPECT_NE(errorOf(oneNodeTask("Not", {}, {x}, {{{1}, DataType::Bool}})).find("bool"),
            std::string::npos);
  const TensorData integer = tensorOf({1}, {1}, DataType::Int64);
  EXPECT_NE(errorOf(oneNodeTask("Add", {}, {x, integer}, {{{1}}})).find("one dtype"),
            std::string::npos);
  EXPECT_NE(errorOf(oneNodeTask("Relu", {}, {x, x}, {{{1}}})).find("expects 1 operands"),
            std::string::npos);
}

} // namespace

// Every operator that can reach a task has a lowering: those without one (Shape, Size,
// Constant) are always folded or turned into constants by the importer and simplifier.
TEST(TopiRegistry, EveryImportableOperatorThatCanFormATaskHasALowering) {
  const auto& lowerings = clustune::te::topi::operatorRegistry();
  for (const std::string& op : clustune::graph::supportedOps()) {
    if (op != "Shape" && op != "Size" && op != "Constant") {
      EXPECT_TRUE(lowerings.count(op)) << op;
    }
  }
}

TEST(TopiGenerator, ConstantOfShapeFillsTheRecordedShape) {
  const auto shape = tensorOf({2}, {2, 3}, DataType::Int64);
  auto task = oneNodeTask("ConstantOfShape", {{"value", 1.5}}, {shape}, {{{2, 3}}});
  const auto outputs = te::evaluateWorkload(te::lowerTask(task), {shape});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>(6, 1.5)));
}

TEST(TopiGenerator, RangeFromConstantStartAndDelta) {
  const auto start = tensorOf({}, {2}, DataType::Int64);
  const auto limit = tensorOf({}, {11}, DataType::Int64);
  const auto delta = tensorOf({}, {3}, DataType::Int64);
  auto task = oneNodeTask("Range", {}, {start, limit, delta}, {{{3}, DataType::Int64}});
  for (std::size_t i = 0; i < 3; ++i) { // the task carries its single-element constants
    task.inputs[i].kind = graph::TaskInput::Kind::Weight;
    task.inputs[i].hasData = true;
  }
  task.inputs[0].intData = {2};
  task.inputs[1].intData = {11};
  task.inputs[2].intData = {3};
  const auto outputs = te::evaluateWorkload(te::lowerTask(task), {start, limit, delta});
  EXPECT_EQ(valuesOf(outputs[0]), (std::vector<double>{2, 5, 8}));
  task.inputs[0].hasData = false; // a start not known at compile time
  EXPECT_THROW(te::lowerTask(task), Error);
}
