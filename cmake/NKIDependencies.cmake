# Every dependency comes from a Debian package listed in third_party/.

find_package(MLIR REQUIRED CONFIG
             HINTS /usr/lib/llvm-22/lib/cmake/mlir)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "nki needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "Using MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

find_package(absl REQUIRED CONFIG)
find_package(Protobuf REQUIRED)

# LLVM/MLIR headers are not ours: keep their warnings quiet.
include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})
