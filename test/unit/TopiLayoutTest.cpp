// The layout and indexing operator lowerings (te/topi/Layout.cpp), through the public path: a
// hand-built one-node task, te::lowerTask and the reference interpreter, against hand-computed
// element lists (inputs are 0, 1, 2, ... so that every output names the input element it read).
#include "support/Error.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <gtest/gtest.h>
#include <numeric>

using namespace clustune;
using graph::DataType;
using graph::Shape;
using te::TensorData;

#include "TopiTestSupport.h"

using namespace clustune::topi_test;

namespace {

// The values and shape of the single output of `op`.
struct Result {
  Shape shape;
  std::vector<double> values;
};

Result runOne(const std::string& op, const std::vector<TensorData>& inputs,
              graph::Attributes attributes, const Shape& output) {
  const auto outputs =
      run(oneNodeTaskOfShapes(op, std::move(attributes), inputs, {output}), inputs);
  EXPECT_EQ(outputs.size(), 1u);
  return {outputs.at(0).shape(), valuesOf(outputs.at(0))};
}

using Values = std::vector<double>;
using Ints = std::vector<std::int64_t>;

TEST(TopiLayout, ReshapeFamilyKeepsRowMajorOrder) {
  const TensorData x = iota({2, 3, 4});
  const Values all = valuesOf(x);
  EXPECT_EQ(runOne("Reshape", {x}, {{"shape", Ints{4, 6}}}, {4, 6}).values, all);
  EXPECT_EQ(runOne("Reshape", {x}, {{"shape", Ints{3, 8}}}, {3, 8}).values, all);
  EXPECT_EQ(runOne("Flatten", {x}, {{"axis", std::int64_t{2}}}, {6, 4}).values, all);
  EXPECT_EQ(runOne("Unsqueeze", {x}, {{"axes", Ints{0, 3}}}, {1, 2, 3, 1, 4}).values, all);
  const TensorData column = iota({3, 1});
  EXPECT_EQ(runOne("Squeeze", {column}, {{"axes", Ints{1}}}, {3}).values, (Values{0, 1, 2}));
  // Unit dimensions moving across non-unit ones: [1,2,1,3] -> [2,3,1].
  EXPECT_EQ(runOne("Reshape", {iota({1, 2, 1, 3})}, {}, {2, 3, 1}).values,
            (Values{0, 1, 2, 3, 4, 5}));
}

TEST(TopiLayout, ReshapeRejectsAnotherElementCount) {
  const std::string error = errorOf(oneNodeTaskOfShapes("Reshape", {}, {iota({2, 3})}, {{4, 2}}));
  EXPECT_NE(error.find("Reshape: cannot reshape 2x3 to 4x2"), std::string::npos) << error;
}

TEST(TopiLayout, TransposePermutesAxes) {
  // out[i, j, k] = x[k, i, j] for perm [1, 2, 0] of x: [2, 3, 4] -> out: [3, 4, 2].
  const TensorData x = iota({2, 3, 4});
  const Result result = runOne("Transpose", {x}, {{"perm", Ints{1, 2, 0}}}, {3, 4, 2});
  ASSERT_EQ(result.shape, (Shape{3, 4, 2}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(result.values[(i * 4 + j) * 2 + k], (k * 3 + i) * 4 + j);
  EXPECT_EQ(runOne("Transpose", {iota({2, 3})}, {{"perm", Ints{1, 0}}}, {3, 2}).values,
            (Values{0, 3, 1, 4, 2, 5}));
}

TEST(TopiLayout, TransposeRejectsABadPermutation) {
  const std::string error =
      errorOf(oneNodeTaskOfShapes("Transpose", {{"perm", Ints{0, 0}}}, {iota({2, 3})}, {{2, 2}}));
  EXPECT_NE(error.find("not a permutation"), std::string::npos) << error;
}

TEST(TopiLayout, ConcatOfThreeAlongTheMiddleAxis) {
  const TensorData a = tensorOf({2, 1}, {0, 1});
  const TensorData b = tensorOf({2, 2}, {10, 11, 12, 13});
  const TensorData c = tensorOf({2, 3}, {20, 21, 22, 23, 24, 25});
  EXPECT_EQ(runOne("Concat", {a, b, c}, {{"axis", std::int64_t{1}}}, {2, 6}).values,
            (Values{0, 10, 11, 20, 21, 22, 1, 12, 13, 23, 24, 25}));
  EXPECT_EQ(
      runOne("Concat", {a, tensorOf({2, 0}, {}), a}, {{"axis", std::int64_t{1}}}, {2, 2}).values,
      (Values{0, 0, 1, 1}));
  EXPECT_EQ(runOne("Concat", {b, b}, {{"axis", std::int64_t{0}}}, {4, 2}).values,
            (Values{10, 11, 12, 13, 10, 11, 12, 13}));
}

TEST(TopiLayout, ConcatRejectsMismatchedOperands) {
  const std::string error = errorOf(oneNodeTaskOfShapes("Concat", {{"axis", std::int64_t{1}}},
                                                        {iota({2, 1}), iota({3, 1})}, {{2, 2}}));
  EXPECT_NE(error.find("does not fit output"), std::string::npos) << error;
}

TEST(TopiLayout, SliceWithPositiveAndNegativeSteps) {
  const TensorData x = iota({3, 5});
  // Rows 1..2, every second column from 0: [[5, 7, 9], [10, 12, 14]].
  EXPECT_EQ(runOne("Slice", {x},
                   {{"starts", Ints{1, 0}},
                    {"ends", Ints{3, 5}},
                    {"axes", Ints{0, 1}},
                    {"steps", Ints{1, 2}}},
                   {2, 3})
                .values,
            (Values{5, 7, 9, 10, 12, 14}));
  // Columns backwards from 4 through 0 in steps of -2 (end -1 is "through index 0"), and the
  // last row only: [14, 12, 10].
  EXPECT_EQ(runOne("Slice", {x},
                   {{"starts", Ints{4, 2}},
                    {"ends", Ints{-1, 3}},
                    {"axes", Ints{1, 0}},
                    {"steps", Ints{-2, 1}}},
                   {1, 3})
                .values,
            (Values{14, 12, 10}));
  // Reversing with step -1 and a stop before the start: columns 3, 2.
  EXPECT_EQ(runOne("Slice", {iota({5})},
                   {{"starts", Ints{3}}, {"ends", Ints{1}}, {"axes", Ints{0}}, {"steps", Ints{-1}}},
                   {2})
                .values,
            (Values{3, 2}));
}

TEST(TopiLayout, SplitIntoUnequalParts) {
  const TensorData x = iota({2, 4});
  const auto outputs =
      run(oneNodeTaskOfShapes("Split", {{"axis", std::int64_t{1}}, {"split", Ints{1, 3}}}, {x},
                              {{2, 1}, {2, 3}}),
          {x});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(valuesOf(outputs[0]), (Values{0, 4}));
  EXPECT_EQ(valuesOf(outputs[1]), (Values{1, 2, 3, 5, 6, 7}));
  // Equal parts along axis 0, with no split attribute.
  const auto rows =
      run(oneNodeTaskOfShapes("Split", {{"axis", std::int64_t{0}}}, {x}, {{1, 4}, {1, 4}}), {x});
  EXPECT_EQ(valuesOf(rows[1]), (Values{4, 5, 6, 7}));
}

TEST(TopiLayout, SplitRejectsSizesThatDisagree) {
  const std::string error =
      errorOf(oneNodeTaskOfShapes("Split", {{"axis", std::int64_t{1}}, {"split", Ints{2, 2}}},
                                  {iota({2, 4})}, {{2, 1}, {2, 3}}));
  EXPECT_NE(error.find("split sizes disagree"), std::string::npos) << error;
}

TEST(TopiLayout, GatherWrapsNegativeIndices) {
  const TensorData data = iota({3, 2});
  const TensorData indices = tensorOf({2}, {-1, 0}, DataType::Int64);
  EXPECT_EQ(runOne("Gather", {data, indices}, {{"axis", std::int64_t{0}}}, {2, 2}).values,
            (Values{4, 5, 0, 1}));
  // Along axis 1 with 2-D int32 indices: out[i, j, k] = data[i, indices[j, k]].
  const TensorData grid = tensorOf({2, 2}, {1, 0, -2, 1}, DataType::Int32);
  EXPECT_EQ(runOne("Gather", {data, grid}, {{"axis", std::int64_t{1}}}, {3, 2, 2}).values,
            (Values{1, 0, 0, 1, 3, 2, 2, 3, 5, 4, 4, 5}));
}

TEST(TopiLayout, GatherClampsIndicesStillOutOfRange) {
  // Undefined in ONNX; kernels fed random indices must not read outside the tensor.
  const TensorData data = iota({3});
  const TensorData indices = tensorOf({2}, {5, -7}, DataType::Int64);
  EXPECT_EQ(runOne("Gather", {data, indices}, {{"axis", std::int64_t{0}}}, {2}).values,
            (Values{2, 0}));
}

TEST(TopiLayout, GatherWithAScalarIndexRemovesTheAxis) {
  const TensorData data = iota({2, 3});
  const TensorData index = tensorOf({}, {2}, DataType::Int64);
  EXPECT_EQ(runOne("Gather", {data, index}, {{"axis", std::int64_t{1}}}, {2}).values,
            (Values{2, 5}));
  // A constant index the task carries (-1) is inlined and wrapped at lowering time, whatever
  // is fed to that input (0 here).
  const TensorData fed = tensorOf({}, {0}, DataType::Int64);
  graph::Task task = oneNodeTaskOfShapes("Gather", {{"axis", std::int64_t{0}}}, {data, fed}, {{3}});
  task.inputs[1].kind = graph::TaskInput::Kind::Weight;
  task.inputs[1].hasData = true;
  task.inputs[1].intData = {-1};
  EXPECT_EQ(valuesOf(run(task, {data, fed}).at(0)), (Values{3, 4, 5}));
}

TEST(TopiLayout, ExpandBroadcasts) {
  const TensorData x = tensorOf({3, 1}, {1, 2, 3});
  EXPECT_EQ(runOne("Expand", {x}, {{"shape", Ints{2, 3, 2}}}, {2, 3, 2}).values,
            (Values{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(TopiLayout, PadModes) {
  const TensorData x = tensorOf({3}, {1, 2, 3});
  const graph::Attributes pads{{"pads", Ints{2, 1}}};
  auto withMode = [&](const char* mode) {
    graph::Attributes attributes = pads;
    attributes["mode"] = std::string(mode);
    return attributes;
  };
  EXPECT_EQ(runOne("Pad", {x}, pads, {6}).values, (Values{0, 0, 1, 2, 3, 0}));
  graph::Attributes filled = pads;
  filled["value"] = 9.5;
  EXPECT_EQ(runOne("Pad", {x}, filled, {6}).values, (Values{9.5, 9.5, 1, 2, 3, 9.5}));
  EXPECT_EQ(runOne("Pad", {x}, withMode("edge"), {6}).values, (Values{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(runOne("Pad", {x}, withMode("reflect"), {6}).values, (Values{3, 2, 1, 2, 3, 2}));
}

TEST(TopiLayout, PadInTwoDimensionsAndCrop) {
  const TensorData x = iota({2, 2});
  // One row of zeros above, one column on the right.
  EXPECT_EQ(runOne("Pad", {x}, {{"pads", Ints{1, 0, 0, 1}}}, {3, 3}).values,
            (Values{0, 0, 0, 0, 1, 0, 2, 3, 0}));
  // A negative pad crops: drop the first column, pad one row below.
  EXPECT_EQ(runOne("Pad", {x}, {{"pads", Ints{0, -1, 1, 0}}}, {3, 1}).values, (Values{1, 3, 0}));
}

TEST(TopiLayout, PadRejectsReflectWiderThanTheInput) {
  const std::string error = errorOf(oneNodeTaskOfShapes(
      "Pad", {{"pads", Ints{3, 0}}, {"mode", std::string("reflect")}}, {iota({3})}, {{6}}));
  EXPECT_NE(error.find("reflect pads must be smaller"), std::string::npos) << error;
}

TEST(TopiLayout, TileRepeats) {
  const TensorData x = iota({2, 2});
  EXPECT_EQ(runOne("Tile", {x}, {{"repeats", Ints{2, 1}}}, {4, 2}).values,
            (Values{0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(runOne("Tile", {x}, {{"repeats", Ints{1, 3}}}, {2, 6}).values,
            (Values{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3}));
}

TEST(TopiLayout, IntegerTensorsKeepTheirType) {
  const TensorData x = tensorOf({2, 2}, {7, -8, 9, -10}, DataType::Int64);
  const auto outputs =
      run(oneNodeTaskOfShapes("Transpose", {{"perm", Ints{1, 0}}}, {x}, {{2, 2}}), {x});
  EXPECT_EQ(outputs.at(0).dtype(), DataType::Int64);
  EXPECT_EQ(valuesOf(outputs.at(0)), (Values{7, 9, -8, -10}));
}

TEST(TopiLayout, GatherElementsReadsAlongTheAxis) {
  const TensorData data = iota({2, 3});
  const TensorData indices = tensorOf({2, 2}, {2, 0, -1, 1}, DataType::Int64);
  // axis 1: out[i, j] = data[i, indices[i, j]] (-1 counts from the end).
  EXPECT_EQ(runOne("GatherElements", {data, indices}, {{"axis", std::int64_t{1}}}, {2, 2}).values,
            (Values{2, 0, 5, 4}));
  const TensorData rows = tensorOf({1, 3}, {1, 0, 1}, DataType::Int32);
  EXPECT_EQ(runOne("GatherElements", {data, rows}, {{"axis", std::int64_t{0}}}, {1, 3}).values,
            (Values{3, 1, 5}));
  const std::string error =
      errorOf(oneNodeTaskOfShapes("GatherElements", {{"axis", std::int64_t{0}}},
                                  {data, tensorOf({2}, {0, 1}, DataType::Int64)}, {{2}}));
  EXPECT_NE(error.find("indices must have the data's rank 2"), std::string::npos) << error;
}

TEST(TopiLayout, TriluKeepsATriangleOfTheLastTwoAxes) {
  const TensorData x = tensorOf({2, 3}, {1, 2, 3, 4, 5, 6});
  auto trilu = [&](std::int64_t upper, std::int64_t k) {
    return runOne("Trilu", {x}, {{"upper", upper}, {"k", k}}, {2, 3}).values;
  };
  EXPECT_EQ(trilu(1, 0), (Values{1, 2, 3, 0, 5, 6}));
  EXPECT_EQ(trilu(1, 1), (Values{0, 2, 3, 0, 0, 6}));
  EXPECT_EQ(trilu(0, 0), (Values{1, 0, 0, 4, 5, 0}));
  EXPECT_EQ(trilu(0, -1), (Values{0, 0, 0, 4, 0, 0}));
  EXPECT_NE(errorOf(oneNodeTaskOfShapes("Trilu", {}, {iota({3})}, {{3}}))
                .find("needs at least two dimensions"),
            std::string::npos);
}

TEST(TopiLayout, DepthToSpaceAndBack) {
  // [1, 8, 1, 1] with blocksize 2: DCR puts channels c, c + 2, c + 4, c + 6 in one 2x2 block.
  const TensorData x = iota({1, 8, 1, 1});
  EXPECT_EQ(
      runOne("DepthToSpace", {x}, {{"blocksize", std::int64_t{2}}, {"mode", "DCR"}}, {1, 2, 2, 2})
          .values,
      (Values{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(
      runOne("DepthToSpace", {x}, {{"blocksize", std::int64_t{2}}, {"mode", "CRD"}}, {1, 2, 2, 2})
          .values,
      (Values{0, 1, 2, 3, 4, 5, 6, 7}));
  // SpaceToDepth inverts DCR.
  const TensorData space = tensorOf({1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
  EXPECT_EQ(runOne("SpaceToDepth", {space}, {{"blocksize", std::int64_t{2}}}, {1, 8, 1, 1}).values,
            (Values{0, 1, 2, 3, 4, 5, 6, 7}));
  const TensorData wide = iota({1, 1, 2, 4});
  EXPECT_EQ(runOne("SpaceToDepth", {wide}, {{"blocksize", std::int64_t{2}}}, {1, 4, 1, 2}).values,
            (Values{0, 2, 1, 3, 4, 6, 5, 7}));
}

TEST(TopiLayout, OneHotInsertsTheDepthAxis) {
  const TensorData indices = tensorOf({3}, {0, -1, 5}, DataType::Int64);
  const TensorData values = tensorOf({2}, {-1, 9});
  // The output has the values' dtype.
  auto oneHot = [&](std::int64_t axis) {
    const auto outputs = run(oneNodeTask("OneHot", {{"depth", std::int64_t{3}}, {"axis", axis}},
                                         {indices, values}, {{{3, 3}, DataType::Float32}}),
                             {indices, values});
    return valuesOf(outputs.at(0));
  };
  // depth 3 along a new last axis; -1 is the last class, 5 is out of range (all off).
  EXPECT_EQ(oneHot(1), (Values{9, -1, -1, -1, -1, 9, -1, -1, -1}));
  EXPECT_EQ(oneHot(0), (Values{9, -1, -1, -1, -1, -1, -1, 9, -1}));
}

TEST(TopiLayout, ResizeNearestAndLinear) {
  const TensorData x = tensorOf({1, 1, 1, 2}, {0, 4});
  auto resize = [&](graph::Attributes attributes) {
    attributes["scales"] = std::vector<double>{1, 1, 1, 2};
    return runOne("Resize", {x}, std::move(attributes), {1, 1, 1, 4}).values;
  };
  // half_pixel: the input coordinates are -0.25, 0.25, 0.75 and 1.25.
  EXPECT_EQ(resize({{"mode", "linear"}}), (Values{0, 1, 3, 4}));
  EXPECT_EQ(resize({{"mode", "nearest"}}), (Values{0, 0, 4, 4}));
  // asymmetric: 0, 0.5, 1 and 1.5; ties go down or up as nearest_mode says.
  EXPECT_EQ(resize({{"mode", "nearest"},
                    {"coordinate_transformation_mode", "asymmetric"},
                    {"nearest_mode", "round_prefer_floor"}}),
            (Values{0, 0, 4, 4}));
  EXPECT_EQ(resize({{"mode", "nearest"},
                    {"coordinate_transformation_mode", "asymmetric"},
                    {"nearest_mode", "round_prefer_ceil"}}),
            (Values{0, 4, 4, 4}));
  // align_corners: 0, 1/3, 2/3, 1.
  const Values aligned =
      resize({{"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}});
  ASSERT_EQ(aligned.size(), 4u);
  EXPECT_NEAR(aligned[1], 4.0 / 3, 1e-6);
  EXPECT_NEAR(aligned[2], 8.0 / 3, 1e-6);
  EXPECT_EQ(aligned[3], 4);
  // Cubic weights sum to 1: a ramp stays a ramp inside, and exclude_outside renormalises.
  const Values cubic = resize({{"mode", "cubic"}, {"cubic_coeff_a", -0.75}});
  ASSERT_EQ(cubic.size(), 4u);
  EXPECT_NEAR(cubic[1] + cubic[2], 4, 1e-5); // symmetric about the middle
  const Values excluded = resize({{"mode", "cubic"}, {"exclude_outside", std::int64_t{1}}});
  // At -0.25 only the taps at 0 (weight 0.87890625) and 1 (-0.10546875) are inside.
  EXPECT_NEAR(excluded[0], -0.10546875 * 4 / (0.87890625 - 0.10546875), 1e-5);
  const std::string error = errorOf(oneNodeTaskOfShapes(
      "Resize", {{"mode", "bicubic"}, {"scales", std::vector<double>{1, 1, 1, 2}}}, {x},
      {{1, 1, 1, 4}}));
  EXPECT_NE(error.find("mode 'bicubic' is not nearest, linear or cubic"), std::string::npos)
      << error;
}

TEST(TopiLayout, EyeLikeFillsTheKthDiagonal) {
  const TensorData x = iota({2, 3}, DataType::Int32);
  auto eye = [&](std::int64_t k) {
    const auto outputs =
        run(oneNodeTask("EyeLike", {{"k", k}}, {x}, {{{2, 3}, DataType::Float64}}), {x});
    EXPECT_EQ(outputs.at(0).dtype(), DataType::Float64);
    return valuesOf(outputs.at(0));
  };
  EXPECT_EQ(eye(0), (Values{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(eye(1), (Values{0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(eye(-1), (Values{0, 0, 0, 1, 0, 0}));
}

TEST(TopiLayout, GatherNDAddressesLeadingAxes) {
  const TensorData data = iota({2, 2, 2});
  // Whole rows: indices [[1], [0]] pick data[1] and data[0].
  EXPECT_EQ(runOne("GatherND", {data, tensorOf({2, 1}, {1, 0}, DataType::Int64)},
                   {{"batch_dims", std::int64_t{0}}}, {2, 2, 2})
                .values,
            (Values{4, 5, 6, 7, 0, 1, 2, 3}));
  // Single elements, -1 counting from the end.
  EXPECT_EQ(runOne("GatherND", {data, tensorOf({2, 3}, {0, 1, 1, 1, -1, 0}, DataType::Int64)},
                   {{"batch_dims", std::int64_t{0}}}, {2})
                .values,
            (Values{3, 6}));
  // One batch axis: data[b, indices[b, 0]].
  EXPECT_EQ(runOne("GatherND", {data, tensorOf({2, 1}, {1, 0}, DataType::Int64)},
                   {{"batch_dims", std::int64_t{1}}}, {2, 2})
                .values,
            (Values{2, 3, 4, 5}));
}

TEST(TopiLayout, ScatterElementsReplacesAddsOrMultiplies) {
  const TensorData data = tensorOf({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorData indices = tensorOf({2, 2}, {2, 2, -3, 1}, DataType::Int64);
  const TensorData updates = tensorOf({2, 2}, {10, 20, 30, 40});
  auto scatter = [&](const char* reduction) {
    return runOne("ScatterElements", {data, indices, updates},
                  {{"axis", std::int64_t{1}}, {"reduction", reduction}}, {2, 3})
        .values;
  };
  // Row 0 gets 10 and 20 at column 2; row 1 gets 30 at column 0 and 40 at column 1.
  EXPECT_EQ(scatter("none"), (Values{1, 2, 20, 30, 40, 6}));
  EXPECT_EQ(scatter("add"), (Values{1, 2, 33, 34, 45, 6}));
  EXPECT_EQ(scatter("mul"), (Values{1, 2, 600, 120, 200, 6}));
  // Along axis 0 with fewer index columns than data columns.
  EXPECT_EQ(runOne("ScatterElements",
                   {data, tensorOf({1, 2}, {1, 0}, DataType::Int64), tensorOf({1, 2}, {7, 8})},
                   {{"axis", std::int64_t{0}}, {"reduction", "none"}}, {2, 3})
                .values,
            (Values{1, 8, 3, 7, 5, 6}));
}

TEST(TopiLayout, ScatterNDReplacesAddsOrMultipliesSlices) {
  const TensorData data = tensorOf({3, 2}, {1, 2, 3, 4, 5, 6});
  // Rows 2 and 0 (-3), then row 2 again.
  const TensorData indices = tensorOf({3, 1}, {2, -3, 2}, DataType::Int64);
  const TensorData updates = tensorOf({3, 2}, {10, 20, 30, 40, 50, 60});
  auto scatter = [&](const char* reduction) {
    return runOne("ScatterND", {data, indices, updates}, {{"reduction", reduction}}, {3, 2}).values;
  };
  EXPECT_EQ(scatter("none"), (Values{30, 40, 3, 4, 50, 60}));
  EXPECT_EQ(scatter("add"), (Values{31, 42, 3, 4, 65, 86}));
  EXPECT_EQ(scatter("mul"), (Values{30, 80, 3, 4, 2500, 7200}));
  // Single elements: indices of depth 2.
  EXPECT_EQ(runOne("ScatterND",
                   {data, tensorOf({2, 2}, {0, 1, 2, 0}, DataType::Int64), tensorOf({2}, {7, 8})},
                   {{"reduction", "none"}}, {3, 2})
                .values,
            (Values{1, 7, 3, 4, 8, 6}));
}

TEST(TopiLayout, ReverseSequenceReversesEachPrefix) {
  const TensorData x = iota({3, 4}); // batch on axis 0, time on axis 1
  const TensorData lengths = tensorOf({3}, {4, 2, 0}, DataType::Int64);
  EXPECT_EQ(runOne("ReverseSequence", {x, lengths},
                   {{"batch_axis", std::int64_t{0}}, {"time_axis", std::int64_t{1}}}, {3, 4})
                .values,
            (Values{3, 2, 1, 0, 5, 4, 6, 7, 8, 9, 10, 11}));
}

} // namespace
