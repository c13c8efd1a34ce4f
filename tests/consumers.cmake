# tests/consumers.cmake - libmmtb as its users see it, included from
# tests/CMakeLists.txt: install_consumers (tests/install_test.sh: install the
# build tree, build probe/examples against it with pkg-config and with
# find_package).
add_test(NAME install_consumers
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh ${PROJECT_BINARY_DIR}
          ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION} ${CMAKE_C_COMPILER} $<BOOL:${MMTB_SANITIZE}>)
set_tests_properties(install_consumers PROPERTIES LABELS quick TIMEOUT 300)

