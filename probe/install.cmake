# probe/install.cmake - libmmtb as an installed C library: the shared library
# (versioned soname, only the functions of the public headers exported), a
# self-contained static archive, the public headers, mmtb.pc, the CMake
# package (mmtb::mmtb), the two programs and the built-in variant files.
# Included from the top-level CMakeLists.txt after gen/ (it installs mmtb-gen).
# Links no OpenMP: the library is probe/lib plus format/, nothing from gen/.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The header's MMTB_VERSION_* must be the project version.
file(STRINGS ${PROJECT_SOURCE_DIR}/probe/include/mmtb.h mmtb_version_lines
     REGEX "^#define MMTB_VERSION_(MAJOR|MINOR|PATCH) ")
set(mmtb_header_version "")
foreach(part MAJOR MINOR PATCH)
  string(REGEX MATCH "MMTB_VERSION_${part} ([0-9]+)" _ "${mmtb_version_lines}")
  list(APPEND mmtb_header_version "${CMAKE_MATCH_1}")
endforeach()
string(REPLACE ";" "." mmtb_header_version "${mmtb_header_version}")
if(NOT mmtb_header_version STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "probe/include/mmtb.h says version ${mmtb_header_version}, "
                      "the project ${PROJECT_VERSION}: change both together")
endif()

# The ABI may change with every minor version while the major is 0.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(MMTB_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(MMTB_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()

# Both libraries are made of the objects the in-tree archives already build
# (mmtb_format is PIC; the probe objects are made PIC here).
set_target_properties(mmtb PROPERTIES POSITION_INDEPENDENT_CODE ON)
set(mmtb_lib_objects $<TARGET_OBJECTS:mmtb> $<TARGET_OBJECTS:mmtb_format>)
set(mmtb_public_includes
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/probe/include>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/format>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# The public headers: every header of probe/include (mmtb.h and the API
# headers next to it), and mmtb_common.h and mmtb_rules.h, the part of
# format/ that libmmtb's users share with the project.  Only their
# functions are exported.
file(GLOB mmtb_public_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/probe/include/*.h)
list(APPEND mmtb_public_headers ${PROJECT_SOURCE_DIR}/format/mmtb_common.h
     ${PROJECT_SOURCE_DIR}/format/mmtb_rules.h)
set(mmtb_map ${CMAKE_CURRENT_BINARY_DIR}/libmmtb.map)
add_custom_command(OUTPUT ${mmtb_map}
  COMMAND ${CMAKE_COMMAND} -DOUT=${mmtb_map} "-DHEADERS=${mmtb_public_headers}"
          -P ${PROJECT_SOURCE_DIR}/probe/pkg/export_map.cmake
  DEPENDS ${mmtb_public_headers} ${PROJECT_SOURCE_DIR}/probe/pkg/export_map.cmake
  COMMENT "Listing libmmtb's exported symbols" VERBATIM)
add_custom_target(mmtb_export_map DEPENDS ${mmtb_map})

add_library(mmtb_shared SHARED ${mmtb_lib_objects})
set_target_properties(mmtb_shared PROPERTIES
  OUTPUT_NAME mmtb EXPORT_NAME mmtb LINKER_LANGUAGE C
  VERSION ${PROJECT_VERSION} SOVERSION ${MMTB_SOVERSION}
  LINK_DEPENDS ${mmtb_map})
target_link_options(mmtb_shared PRIVATE -Wl,--version-script=${mmtb_map} -Wl,--no-undefined)
add_dependencies(mmtb_shared mmtb_export_map)
target_link_libraries(mmtb_shared PRIVATE PkgConfig::ZSTD Threads::Threads)
target_include_directories(mmtb_shared INTERFACE ${mmtb_public_includes})

# The static archive a consumer links: libmmtb.a with the format objects in
# it (the in-tree archive `mmtb` has only probe/lib).  Its own directory
# keeps the two libmmtb.a apart.
add_library(mmtb_static STATIC ${mmtb_lib_objects})
set_target_properties(mmtb_static PROPERTIES
  OUTPUT_NAME mmtb EXPORT_NAME mmtb_static LINKER_LANGUAGE C
  ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/probe/static)
target_link_libraries(mmtb_static INTERFACE
  $<BUILD_INTERFACE:PkgConfig::ZSTD> $<INSTALL_INTERFACE:zstd> Threads::Threads)
target_include_directories(mmtb_static INTERFACE ${mmtb_public_includes})

install(TARGETS mmtb_shared mmtb_static EXPORT mmtbTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${mmtb_public_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mmtb-probe mmtb-gen RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/variants/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/mmtb/variants FILES_MATCHING PATTERN "*.txt")

# pkg-config: relocatable (prefix found from the .pc file's own place), so
# `cmake --install --prefix P` needs no reconfiguration.
file(RELATIVE_PATH mmtb_pc_to_prefix /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/probe/pkg/mmtb.pc.in ${CMAKE_CURRENT_BINARY_DIR}/mmtb.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mmtb.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# CMake package: find_package(mmtb) -> mmtb::mmtb (shared), mmtb::mmtb_static.
set(mmtb_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/mmtb)
install(EXPORT mmtbTargets NAMESPACE mmtb:: DESTINATION ${mmtb_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/probe/pkg/mmtbConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/mmtbConfig.cmake INSTALL_DESTINATION ${mmtb_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mmtbConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mmtbConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/mmtbConfigVersion.cmake DESTINATION ${mmtb_cmake_dir})
