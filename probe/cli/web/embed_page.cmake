# Writes a C file holding one file's bytes as `const char NAME[]` (with a
# terminating NUL) and its length as `const size_t NAME_len`: the board page
# of `mmtb-probe serve`, shipped inside the binary.  Run by the build
# (cmake -P) with -DIN=<file> -DOUT=<C file to write> -DNAME=<C identifier>.
if(NOT IN OR NOT OUT OR NOT NAME)
  message(FATAL_ERROR "embed_page.cmake: run with -DIN=FILE -DOUT=FILE -DNAME=IDENTIFIER")
endif()
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" nhex)
math(EXPR nbytes "${nhex} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
get_filename_component(base ${IN} NAME)
file(WRITE ${OUT}.new "/* Generated from ${base} by embed_page.cmake; do not edit. */\n#include <stddef.h>\nextern const char ${NAME}[];\nextern const size_t ${NAME}_len;\nconst char ${NAME}[] = {${hex}0};\nconst size_t ${NAME}_len = ${nbytes};\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.new ${OUT})
