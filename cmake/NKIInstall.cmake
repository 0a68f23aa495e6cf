# cmake --install: headers, libraries, tools and an exported NKIConfig.cmake so
# that a downstream project can find_package(NKI) and link NKI::<library>.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

get_property(nki_libs GLOBAL PROPERTY NKI_EXPORTED_LIBS)
get_property(nki_tools GLOBAL PROPERTY NKI_TOOLS)

install(TARGETS ${nki_libs} EXPORT NKITargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ${nki_tools} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/nki DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.td")
install(DIRECTORY ${CMAKE_BINARY_DIR}/include/nki
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.inc")

set(NKI_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nki)
install(EXPORT NKITargets NAMESPACE NKI:: DESTINATION ${NKI_CMAKE_DIR})
configure_package_config_file(cmake/NKIConfig.cmake.in
  ${CMAKE_BINARY_DIR}/NKIConfig.cmake INSTALL_DESTINATION ${NKI_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/NKIConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/NKIConfig.cmake
              ${CMAKE_BINARY_DIR}/NKIConfigVersion.cmake
        DESTINATION ${NKI_CMAKE_DIR})
