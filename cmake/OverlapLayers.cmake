# Each layer's target exposes only its own headers (docs/architecture.md): a target gets an
# include directory that holds one entry, a link named after its folder, so "measure/x.hpp"
# resolves for a target that links overlap::measure and for no other. A layer can then
# include only the layers it links (directly or through them); scripts/check-layers checks
# the finer rule of docs/architecture.md on top.
function(overlap_layer target layer)
  set(dir ${PROJECT_BINARY_DIR}/layers/${layer})
  file(MAKE_DIRECTORY ${dir})
  if(NOT EXISTS ${dir}/${layer})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer} ${dir}/${layer} SYMBOLIC)
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    target_include_directories(${target} PRIVATE $<BUILD_INTERFACE:${dir}>)
  else()
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${dir}>)
  endif()
endfunction()
