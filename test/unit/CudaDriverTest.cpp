// The CUDA driver loader (runtime/cuda/CudaDriver.h) where there is no GPU: each way CUDA can
// be unavailable is one clear error, and a machine with a driver lists its devices.
#include "runtime/cuda/CudaDriver.h"

#include "support/Error.h"

#include <filesystem>
#include <gtest/gtest.h>

using clustune::Error;
using clustune::runtime::cuda::CudaDriver;

namespace {

std::string refusal(const std::string& library) {
  try {
    CudaDriver::open(library);
  } catch (const Error& error) {
    return error.what();
  }
  return "(opened)";
}

} // namespace

TEST(CudaDriver, TheMachinesDriverListsItsDevicesOrIsUnavailableInOneMessage) {
  std::unique_ptr<CudaDriver> driver;
  try {
    driver = CudaDriver::open();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()).rfind("CUDA is unavailable", 0), 0u) << error.what();
    return;
  }
  EXPECT_GE(driver->driverVersion(), 1000);
  for (const auto& device : driver->devices()) {
    EXPECT_FALSE(device.name.empty());
    EXPECT_GE(device.computeCapabilityMajor, 3);
    EXPECT_GE(device.maxThreadsPerBlock, 32);
  }
}

TEST(CudaDriver, AMissingLibraryOrAnotherLibraryIsRefused) {
  EXPECT_EQ(
      refusal("/nonexistent/libcuda.so.1")
          .rfind("CUDA is unavailable on this machine: cannot load /nonexistent/libcuda.so.1, the "
                 "NVIDIA driver's library (",
                 0),
      0u);
  EXPECT_EQ(refusal("libm.so.6"),
            "CUDA is unavailable: libm.so.6 has no cuInit, so it is not NVIDIA's driver library");
}

TEST(CudaDriver, TheToolkitsStubLibraryIsNotADriver) {
  const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::filesystem::exists(stub))
    GTEST_SKIP() << "no CUDA toolkit stub at " << stub;
  EXPECT_EQ(refusal(stub), "CUDA is unavailable: " + stub +
                               " is the CUDA toolkit's stub library, which serves linking, not an "
                               "NVIDIA driver");
}
