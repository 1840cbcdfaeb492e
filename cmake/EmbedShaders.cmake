# Embeds every file of a shader folder into the binary as a name -> source table, so the installed
# program needs no source tree. Regenerated whenever a shader changes.
#
#   ss_embed_shaders(OUTPUT_VAR <folder>)  -> sets OUTPUT_VAR to the generated .cpp path
#
# The generated file defines `const std::map<std::string, std::string>& ss::embedded_shaders()`.
set(SS_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_shaders_script.cmake)

function(ss_embed_shaders out_var folder)
  file(GLOB shader_files CONFIGURE_DEPENDS ${folder}/*.glsl ${folder}/*.vert ${folder}/*.frag ${folder}/*.comp)
  set(output ${PROJECT_BINARY_DIR}/generated/embedded_shaders.cpp)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DSHADER_DIR=${folder} -DOUTPUT=${output} -P ${SS_EMBED_SCRIPT}
    DEPENDS ${shader_files} ${SS_EMBED_SCRIPT}
    COMMENT "Embedding shaders from ${folder}")
  set(${out_var} ${output} PARENT_SCOPE)
endfunction()
