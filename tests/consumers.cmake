# tests/consumers.cmake - libmmtb as its users see it, included from
# tests/CMakeLists.txt: install_consumers (tests/install_test.sh: install the
# build tree, build probe/examples against it with pkg-config and with
# find_package) and python_mmtb (the unittest suite of probe/python against
# libmmtb.so of this build and tables made by this build's mmtb-gen) and
# python_pip (tests/python_pip_test.sh: pip install of probe/python, offline).
add_test(NAME install_consumers
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh ${PROJECT_BINARY_DIR}
          ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION} ${CMAKE_C_COMPILER} $<BOOL:${MMTB_SANITIZE}>)
set_tests_properties(install_consumers PROPERTIES LABELS quick TIMEOUT 300)

find_program(MMTB_PYTHON3 NAMES python3)
if(NOT MMTB_PYTHON3)
  message(WARNING "python3 not found: the Python module's tests are not run (scripts/setup installs it)")
  return()
endif()
set(mmtb_python_env
  PYTHONPATH=${PROJECT_SOURCE_DIR}/probe/python
  MMTB_LIBRARY=$<TARGET_FILE:mmtb_shared>
  MMTB_GEN=$<TARGET_FILE:mmtb-gen>
  MMTB_VERSION=${PROJECT_VERSION}
  PYTHONDONTWRITEBYTECODE=1)
if(MMTB_SANITIZE)
  # A sanitized libmmtb.so in an uninstrumented python3: the ASan runtime
  # must be loaded first, so it is preloaded (libubsan comes in as the
  # library's dependency).  The interpreter does not free everything at
  # exit, so leak detection is off here; every other check stays on and
  # covers the library's side of each ctypes call.
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE mmtb_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(APPEND mmtb_python_env LD_PRELOAD=${mmtb_libasan}
       ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
       UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
endif()
add_test(NAME python_mmtb
  COMMAND ${MMTB_PYTHON3} -m unittest discover -v -s ${PROJECT_SOURCE_DIR}/probe/python/tests)
set_tests_properties(python_mmtb PROPERTIES LABELS slow TIMEOUT 1500
  ENVIRONMENT "${mmtb_python_env}")

# pip install of probe/python, offline, and the installed package at work
# (skipped, exit 77, when python3 has no pip/setuptools/wheel).
add_test(NAME python_pip
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/python_pip_test.sh ${PROJECT_SOURCE_DIR}
          $<TARGET_FILE:mmtb_shared> $<TARGET_FILE:mmtb-gen> "${mmtb_libasan}")
set_tests_properties(python_pip PROPERTIES LABELS quick TIMEOUT 300 SKIP_RETURN_CODE 77)
