# Issue 35 (hardening, third pass): the inference group's cases, each a test that fails on 0312b28.

# D2, D3, D4, D15, D16: bad checkpoints and configs are refused before any point runs, exit 2.
# transformers' own tiny checkpoints (a folder beside the checkout) are checked too where present.
set(ROOFTOP_HF_FIXTURES "${PROJECT_SOURCE_DIR}/../shared/fixtures/hf-tiny-llama3" CACHE PATH
    "transformers' tiny Llama checkpoints (hf-tiny-llama3), checked by cli.inference_checkpoints where present")
# outputs_first: an unwritable --out is said before the checkpoint is read whole.
# One thread: OpenMP spinning on a loaded 2-core machine took 10 s a run.
foreach(cause d2 d3 d4 d15 d16 outputs_first)
  add_test(NAME cli.inference_checkpoints_${cause}
    COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/inference_checkpoints.py $<TARGET_FILE:rooftop>
            ${CMAKE_CURRENT_BINARY_DIR}/inference-checkpoints ${cause} --fixtures ${ROOFTOP_HF_FIXTURES})
  set_tests_properties(cli.inference_checkpoints_${cause} PROPERTIES LABELS "unit;cli"
    ENVIRONMENT "ROOFTOP_HOME=${ROOFTOP_TEST_HOME};OMP_NUM_THREADS=1")
endforeach()

# The rope scaling (llama3) and the tied head read as transformers reads them: the unit test
# "transformers' checkpoints: ..." compares the reference decoder's logits with theirs.
target_compile_definitions(rooftop_unit_tests PRIVATE ROOFTOP_TEST_HF_FIXTURES="${ROOFTOP_HF_FIXTURES}"
  ROOFTOP_TEST_HF_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/hf")

# Issue 37: --prompt gives transformers' prompt; the results' outputs are its greedy tokens and
# top logits, equal to transformers' on every checkpoint of tests/data/hf.
add_test(NAME cli.prompt_tokens_equal_transformers
  COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/prompt_tokens_cli.py $<TARGET_FILE:rooftop>
          ${CMAKE_CURRENT_BINARY_DIR}/prompt-tokens)
set_tests_properties(cli.prompt_tokens_equal_transformers PROPERTIES LABELS "unit;cli"
  ENVIRONMENT "ROOFTOP_HOME=${ROOFTOP_TEST_HOME};OMP_NUM_THREADS=1")
