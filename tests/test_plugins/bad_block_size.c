/* Test quant plugin claiming Q4_K with a block size ggml does not use. */
#include "quant_common.h"

ORCD_TEST_QUANT_PLUGIN("test-bad-blocks", ORCD_TYPE_Q4_K, "Q4_K", 256, 140)
