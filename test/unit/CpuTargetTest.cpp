// CPU target descriptions: the shipped configs load, the host is detected, and every kind of bad
// description is an Error that names the file and the field.
#include "codegen/cpu/CpuTarget.h"

#include "support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace clustune;
using codegen::CpuTarget;
using codegen::loadCpuTarget;

namespace {

std::string writeTemporary(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("clustune-cputarget-" + name);
  std::ofstream(path) << text;
  return path.string();
}

// The message of the Error that loading `text` raises.
std::string loadError(const std::string& name, const std::string& text) {
  const std::string path = writeTemporary(name, text);
  try {
    loadCpuTarget(path);
  } catch (const Error& error) {
    std::filesystem::remove(path);
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
    return error.what();
  }
  std::filesystem::remove(path);
  return "no error";
}

const char* const kValid = R"({"kind":"cpu","triple":"x86_64-pc-linux-gnu","mcpu":"haswell",
  "features":"+avx2","vector_bits":256,"cores":4})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

} // namespace

TEST(CpuTarget, ShippedConfigsLoad) {
  const CpuTarget avx512 =
      loadCpuTarget(std::string(CLUSTUNE_SOURCE_DIR) + "/configs/targets/x86_64-avx512.json");
  EXPECT_EQ(avx512.triple, "x86_64-pc-linux-gnu");
  EXPECT_EQ(avx512.cpu, "skylake-avx512");
  EXPECT_EQ(avx512.vectorBits, 512);
  EXPECT_NE(avx512.features.find("+avx512f"), std::string::npos);
  const CpuTarget avx2 =
      loadCpuTarget(std::string(CLUSTUNE_SOURCE_DIR) + "/configs/targets/x86_64-avx2.json");
  EXPECT_EQ(avx2.cpu, "haswell");
  EXPECT_EQ(avx2.vectorBits, 256);
  EXPECT_GE(avx2.cores, 1);
}

TEST(CpuTarget, HostIsDetected) {
  const CpuTarget host = codegen::hostCpuTarget();
  EXPECT_EQ(host.triple.rfind("x86_64", 0), 0u) << host.triple;
  EXPECT_FALSE(host.cpu.empty());
  const bool avx512 = host.features.find("+avx512f") != std::string::npos;
  const bool avx = host.features.find("+avx,") != std::string::npos;
  EXPECT_EQ(host.vectorBits, avx512 ? 512 : avx ? 256 : 128);
  EXPECT_GE(host.cores, 1);
  EXPECT_EQ(codegen::hostCpuTarget().features, host.features); // deterministic order
}

TEST(CpuTarget, VectorWidthOfNamedCpus) {
  EXPECT_EQ(codegen::vectorBitsOfCpu("znver5"), 512);
  EXPECT_EQ(codegen::vectorBitsOfCpu("skylake-avx512"), 512);
  EXPECT_EQ(codegen::vectorBitsOfCpu("znver3"), 256);
  EXPECT_EQ(codegen::vectorBitsOfCpu("haswell"), 256);
  EXPECT_EQ(codegen::vectorBitsOfCpu("x86-64"), 128);
  EXPECT_EQ(codegen::vectorBitsOfCpu("no-such-cpu"), 0);
  const CpuTarget host = codegen::hostCpuTarget();
  EXPECT_EQ(codegen::vectorBitsOfCpu(host.cpu), host.vectorBits) << host.cpu;
}

TEST(CpuTarget, ValidDescriptionRoundTrips) {
  const std::string path = writeTemporary("valid", kValid);
  const CpuTarget target = loadCpuTarget(path);
  std::filesystem::remove(path);
  EXPECT_EQ(target.triple, "x86_64-pc-linux-gnu");
  EXPECT_EQ(target.cpu, "haswell");
  EXPECT_EQ(target.features, "+avx2");
  EXPECT_EQ(target.vectorBits, 256);
  EXPECT_EQ(target.cores, 4);
}

TEST(CpuTarget, BadDescriptionsNameTheFileAndField) {
  EXPECT_NE(loadError("json", "{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(loadError("array", "[1, 2]").find("JSON object"), std::string::npos);
  EXPECT_NE(loadError("kind", replaced(kValid, "\"cpu\"", "\"cuda\"")).find("'kind'"),
            std::string::npos);
  EXPECT_NE(loadError("missing", replaced(kValid, "\"mcpu\"", "\"cpu\"")).find("'mcpu'"),
            std::string::npos);
  EXPECT_NE(loadError("type", replaced(kValid, "256", "\"wide\"")).find("'vector_bits'"),
            std::string::npos);
  EXPECT_NE(loadError("fraction", replaced(kValid, "256", "256.5")).find("'vector_bits'"),
            std::string::npos);
  EXPECT_NE(loadError("width", replaced(kValid, "256", "384")).find("'vector_bits'"),
            std::string::npos);
  EXPECT_NE(loadError("cores", replaced(kValid, "\"cores\":4", "\"cores\":0")).find("'cores'"),
            std::string::npos);
  EXPECT_NE(loadError("triple", replaced(kValid, "x86_64-pc-linux-gnu", "")).find("'triple'"),
            std::string::npos);
  EXPECT_THROW(loadCpuTarget("/nonexistent/target.json"), Error);
}
