# tests/serve.cmake - mmtb-probe's pictures and `serve`, included from
# tests/CMakeLists.txt when python3 is there: serve_tables (fixture:
# three-diag --start, six --start, nine --max-stones 3 solved once into the
# build tree), svg_pictures (tests/svg_test.py: board/probe/stats --svg);
# when the server is built (libmicrohttpd found) serve_api
# (tests/serve_test.py: the HTTP API over loopback) and serve_browser
# (tests/browser_test.py: the page in headless Chromium; skipped, exit 77,
# when Chromium is absent).
find_program(MMTB_PYTHON3_SERVE NAMES python3)
if(NOT MMTB_PYTHON3_SERVE)
  message(STATUS "picture and serve tests left out (need python3)")
  return()
endif()
set(mmtb_serve_tables ${PROJECT_BINARY_DIR}/serve-tables)
set(mmtb_serve_env
  MMTB_PROBE=$<TARGET_FILE:mmtb-probe>
  MMTB_SERVE_TABLES=${mmtb_serve_tables}
  PYTHONDONTWRITEBYTECODE=1)
add_test(NAME serve_tables
  COMMAND ${MMTB_PYTHON3_SERVE} ${CMAKE_CURRENT_SOURCE_DIR}/serve_util.py
          $<TARGET_FILE:mmtb-gen> ${mmtb_serve_tables})
set_tests_properties(serve_tables PROPERTIES FIXTURES_SETUP serve_tables LABELS slow TIMEOUT 1500)
add_test(NAME svg_pictures
  COMMAND ${MMTB_PYTHON3_SERVE} -m unittest -v svg_test
  WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(svg_pictures PROPERTIES FIXTURES_REQUIRED serve_tables LABELS quick
  TIMEOUT 600 ENVIRONMENT "${mmtb_serve_env}")

get_property(mmtb_have_serve GLOBAL PROPERTY MMTB_HAVE_SERVE)
if(NOT mmtb_have_serve)
  message(STATUS "serve tests left out (mmtb-probe serve needs libmicrohttpd)")
  return()
endif()
add_test(NAME serve_api
  COMMAND ${MMTB_PYTHON3_SERVE} -m unittest -v serve_test
  WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(serve_api PROPERTIES FIXTURES_REQUIRED serve_tables LABELS quick
  TIMEOUT 600 ENVIRONMENT "${mmtb_serve_env}")
add_test(NAME serve_browser
  COMMAND ${MMTB_PYTHON3_SERVE} ${CMAKE_CURRENT_SOURCE_DIR}/browser_test.py
  WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(serve_browser PROPERTIES FIXTURES_REQUIRED serve_tables LABELS quick
  TIMEOUT 600 SKIP_RETURN_CODE 77
  ENVIRONMENT "${mmtb_serve_env};MMTB_SCREENSHOT_DIR=${PROJECT_BINARY_DIR}/serve-screenshots")
