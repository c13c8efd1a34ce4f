# tests/stress.cmake: the concurrency stress test of libmmtb (stress_probe.c;
# 8 threads and 3 processes probing one table set).  In every test build;
# scripts/stress runs it in a ThreadSanitizer build (build-tsan/).
add_executable(stress_probe ${CMAKE_CURRENT_SOURCE_DIR}/stress_probe.c)
target_link_libraries(stress_probe PRIVATE mmtb mmtb_format Threads::Threads)
target_compile_definitions(stress_probe PRIVATE MMTB_GEN="$<TARGET_FILE:mmtb-gen>")
add_dependencies(stress_probe mmtb-gen)
add_test(NAME stress_probe COMMAND stress_probe 3)
set_tests_properties(stress_probe PROPERTIES LABELS quick TIMEOUT 300)
