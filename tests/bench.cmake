# tests/bench.cmake: benchmark programs, built with the tests but not run by ctest
# (scripts/bench-rank runs bench_rank).
add_executable(bench_rank ${CMAKE_CURRENT_SOURCE_DIR}/bench_rank.c)
target_link_libraries(bench_rank PRIVATE mmtb_format m)
