# tests/mpi.cmake - mmtb-gen-mpi against mmtb-gen (tests/mpi_test.sh: 1, 2
# and 3 local ranks, byte for byte, a killed rank, a resumed run), included
# from tests/CMakeLists.txt; only when the build has mmtb-gen-mpi (MPI found).
if(NOT TARGET mmtb-gen-mpi)
  return()
endif()
add_test(NAME mpi_gen
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi_test.sh $<TARGET_FILE:mmtb-gen>
          $<TARGET_FILE:mmtb-gen-mpi> ${MPIEXEC_EXECUTABLE} $<BOOL:${MMTB_SANITIZE}>)
set_tests_properties(mpi_gen PROPERTIES LABELS slow TIMEOUT 600)
