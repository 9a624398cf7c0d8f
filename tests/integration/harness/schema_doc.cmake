# systems/README.md carries the key table `harness schema` prints; this fails when they drift apart.
execute_process(COMMAND ${HARNESS} schema RESULT_VARIABLE rc OUTPUT_VARIABLE table)
file(READ ${README} doc)
string(FIND "${doc}" "${table}" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "systems/README.md does not hold the current `harness schema` table; paste its output under '## Keys'")
endif()
