# The docs say what the last device run verified in the harness's own words: each DOC's block between
# "<!-- device-status" and "<!-- /device-status -->" must be the cuda backend status that
# `harness run systems/local_cuda.yaml --dry-run` prints (made from bench/results/gpu.json's newest run).
# After a device run is recorded there: BERT_UPDATE_GOLDEN=1 ctest --test-dir build -R harness_gpu_status_docs
execute_process(COMMAND ${HARNESS} run systems/local_cuda.yaml --dry-run --set "topology.synthetic=pack:1 numa:1 core:2 pu:1"
                        --set "topology.gpu_numa_map=[0]"
                WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dry-run failed (${rc}): ${err}")
endif()
if(NOT out MATCHES "\ntrainer +[^\n]*trainer-cuda \\((cuda backend: [^\n]*)\\)\n")
  message(FATAL_ERROR "no cuda backend status in the dry-run:\n${out}")
endif()
set(status "${CMAKE_MATCH_1}")
string(REPLACE "|" ";" docs "${DOCS}")
set(stale "")
foreach(doc ${docs})
  file(READ ${SRC}/${doc} text)
  if(NOT text MATCHES "(<!-- device-status[^\n]*-->\n)([^<]*)(<!-- /device-status -->)")
    message(FATAL_ERROR "${doc}: no <!-- device-status ... --> block")
  endif()
  if(NOT CMAKE_MATCH_2 STREQUAL "${status}\n")
    if("$ENV{BERT_UPDATE_GOLDEN}" STREQUAL "1")
      string(REPLACE "${CMAKE_MATCH_0}" "${CMAKE_MATCH_1}${status}\n${CMAKE_MATCH_3}" text "${text}")
      file(WRITE ${SRC}/${doc} "${text}")
      message(STATUS "updated ${doc}")
    else()
      list(APPEND stale ${doc})
    endif()
  endif()
endforeach()
if(stale)
  message(FATAL_ERROR "the device-status block of ${stale} is not the dry-run's status:\n${status}\n"
                      "(BERT_UPDATE_GOLDEN=1 ctest --test-dir build -R harness_gpu_status_docs)")
endif()
