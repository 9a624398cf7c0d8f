# Runs `harness run <SYSTEM> --dry-run [ARGS]` from the source dir with the override variables cleared,
# then checks it. Modes:
#   MODE=golden  exit 0 and stdout equal to GOLDEN after normalization (binary dir -> @BIN@, random seeds
#                -> @SEEDS@). Regenerate the goldens with BERT_UPDATE_GOLDEN=1 in the environment:
#                  BERT_UPDATE_GOLDEN=1 ctest --test-dir build -R harness_dryrun_
#   MODE=error   exit 2, nothing on stdout, exactly one line on stderr matching EXPECT (a regex).
#   MODE=ok      exit 0 and stdout matching EXPECT.
#   MODE=json    exit 0 and stdout a JSON Plan whose world_size equals EXPECT.
#   MODE=bind    the JSON Plan written to PLAN_OUT, then `BIND --plan PLAN_OUT --print BIND_ARGS` must exit 0
#                and print EXPECT (the contract with binding/'s `bind`).
#   MODE=resume  the JSON Plan written to PLAN_OUT/plan.json; `harness run --resume PLAN_OUT --dry-run` (no
#                system file, no Config) must print exactly what the dry-run of the system printed.
foreach(var NEXP DATADIR EVALDIR CHECKPOINTDIR CONT LOGDIR WALLTIME SLURM_MPI_TYPE SLURM_JOB_ID SLURM_JOB_NODELIST
            MLPERF_SLURM_FIRSTNODE)
  set(ENV{${var}} "")
endforeach()
if(DEFINED SETENV)  # NAME=VALUE: the one override under test
  string(REGEX MATCH "^[^=]+" name "${SETENV}")
  string(REGEX REPLACE "^[^=]+=" "" value "${SETENV}")
  set(ENV{${name}} "${value}")
endif()
string(REPLACE "|" ";" extra "${ARGS}")
execute_process(COMMAND ${HARNESS} run ${SYSTEM} --dry-run ${extra}
                WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

if(MODE STREQUAL "error")
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "expected exit 2, got ${rc}\nstdout: ${out}\nstderr: ${err}")
  endif()
  if(NOT out STREQUAL "")
    message(FATAL_ERROR "a failed dry-run printed a result:\n${out}")
  endif()
  string(REGEX REPLACE "\n$" "" line "${err}")
  if(line MATCHES "\n")
    message(FATAL_ERROR "expected one line on stderr, got:\n${err}")
  endif()
  if(NOT line MATCHES "${EXPECT}")
    message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
  endif()
  return()
endif()

if(NOT rc EQUAL 0)
  message(FATAL_ERROR "expected exit 0, got ${rc}\nstderr: ${err}")
endif()
if(MODE STREQUAL "ok")
  if(NOT out MATCHES "${EXPECT}")
    message(FATAL_ERROR "stdout does not match '${EXPECT}':\n${out}")
  endif()
  return()
endif()
if(MODE STREQUAL "bind")
  file(WRITE ${PLAN_OUT} "${out}")
  string(REPLACE "|" ";" bind_args "${BIND_ARGS}")
  execute_process(COMMAND ${BIND} --plan ${PLAN_OUT} --print ${bind_args} RESULT_VARIABLE brc OUTPUT_VARIABLE bout ERROR_VARIABLE berr)
  if(NOT brc EQUAL 0 OR NOT bout MATCHES "${EXPECT}")
    message(FATAL_ERROR "bind --print (exit ${brc}) does not show '${EXPECT}':\n${bout}${berr}")
  endif()
  return()
endif()
if(MODE STREQUAL "resume")
  execute_process(COMMAND ${HARNESS} run ${SYSTEM} --dry-run --json ${extra}
                  WORKING_DIRECTORY ${SRC} RESULT_VARIABLE jrc OUTPUT_VARIABLE plan_json ERROR_VARIABLE jerr)
  file(MAKE_DIRECTORY ${PLAN_OUT})
  file(WRITE ${PLAN_OUT}/plan.json "${plan_json}")
  execute_process(COMMAND ${HARNESS} run --resume ${PLAN_OUT} --dry-run
                  WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rrc OUTPUT_VARIABLE resumed ERROR_VARIABLE rerr)
  if(NOT jrc EQUAL 0 OR NOT rrc EQUAL 0 OR NOT resumed STREQUAL out)
    message(FATAL_ERROR "--resume --dry-run (exit ${rrc}) differs from the dry-run:\n${resumed}${rerr}\n--- dry-run:\n${out}")
  endif()
  return()
endif()
if(MODE STREQUAL "json")
  string(JSON ws ERROR_VARIABLE jerr GET "${out}" world_size)
  if(jerr OR NOT ws EQUAL "${EXPECT}")
    message(FATAL_ERROR "not a plan with world_size ${EXPECT}: ${jerr}\n${out}")
  endif()
  return()
endif()

# The tools sit next to the harness binary, in bin/ below it, or one level up when it is in build/bin/.
get_filename_component(bindir ${HARNESS} DIRECTORY)
get_filename_component(updir ${bindir} DIRECTORY)
string(REPLACE "${bindir}/bin/" "@BIN@/" out "${out}")
string(REPLACE "${bindir}/" "@BIN@/" out "${out}")
if(bindir MATCHES "/bin$")
  string(REPLACE "${updir}/" "@BIN@/" out "${out}")
endif()
# Container mounts name the (relative) output directory absolutely: below the source tree the test runs in.
string(REPLACE "${SRC}/" "<src>/" out "${out}")
string(REGEX REPLACE "(seeds +random: )[0-9,]+" "\\1@SEEDS@" out "${out}")
if("$ENV{BERT_UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE ${GOLDEN} "${out}")
  message(STATUS "updated ${GOLDEN}")
  return()
endif()
if(NOT EXISTS ${GOLDEN})
  message(FATAL_ERROR "no golden file ${GOLDEN}; create it with BERT_UPDATE_GOLDEN=1")
endif()
file(READ ${GOLDEN} want)
if(NOT out STREQUAL want)
  file(WRITE ${GOLDEN}.actual "${out}")
  execute_process(COMMAND diff -u ${GOLDEN} ${GOLDEN}.actual OUTPUT_VARIABLE d)
  file(REMOVE ${GOLDEN}.actual)
  message(FATAL_ERROR "dry-run output differs from ${GOLDEN}:\n${d}")
endif()
