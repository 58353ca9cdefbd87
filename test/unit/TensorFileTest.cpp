// Reading ONNX TensorProto files: the backend node-test data of Debian's libonnx-testdata, and
// bad files made here.
#include "onnx/TensorFile.h"

#include "support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace clustune;

namespace {
const std::string kNodeTests = "/usr/share/libonnx-testdata/data/node/";
}

TEST(TensorFile, ReadsFloatTensorFromBackendTestData) {
  const auto tensor = onnx_import::readTensorFile(
      kNodeTests + "test_conv_with_strides_padding/test_data_set_0/input_0.pb");
  EXPECT_EQ(tensor.name, "x");
  EXPECT_EQ(tensor.data.dtype(), graph::DataType::Float32);
  EXPECT_EQ(tensor.data.shape(), (graph::Shape{1, 1, 7, 5}));
  for (std::int64_t i = 0; i < 35; ++i)
    EXPECT_EQ(tensor.data.get(i), static_cast<double>(i)); // the test's x is arange(35)
}

TEST(TensorFile, ReadsInt64Tensor) {
  const auto tensor =
      onnx_import::readTensorFile(kNodeTests + "test_gather_0/test_data_set_0/input_1.pb");
  EXPECT_EQ(tensor.data.dtype(), graph::DataType::Int64);
  ASSERT_EQ(tensor.data.elements(), 3);
  EXPECT_EQ(tensor.data.get(0), 0.0);
  EXPECT_EQ(tensor.data.get(1), 1.0);
  EXPECT_EQ(tensor.data.get(2), 3.0);
}

TEST(TensorFile, RejectsGarbageNamingTheFile) {
  const auto path = (std::filesystem::temp_directory_path() / "clustune-bad-tensor.pb").string();
  std::ofstream(path, std::ios::binary) << std::string("\xff\xff\xff\xff garbage", 12);
  try {
    onnx_import::readTensorFile(path);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.context().file, path);
  }
}
