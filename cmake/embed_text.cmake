# embed_text.cmake — turns a text file into a C source defining one
# NUL-terminated char array (used for the viewer's page script and stylesheet,
# kept as real .js/.css files so that they read and diff as such).
# cmake -DINPUT=f.js -DOUTPUT=f.c -DNAME=symbol -DHEADER=vw_internal.h -P embed_text.cmake
file(READ "${INPUT}" _hex HEX)
string(LENGTH "${_hex}" _len)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
# break the initializer into lines of 16 bytes
string(REGEX REPLACE "((0x..,){16})" "\\1\n" _bytes "${_bytes}")
get_filename_component(_in "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "/* generated from ${_in} by cmake/embed_text.cmake: do not edit */\n"
  "#include \"${HEADER}\"\n"
  "const char ${NAME}[] = {\n${_bytes}\n0x00};\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
