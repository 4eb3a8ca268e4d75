/* Test quant plugin claiming Q2_K with ggml's geometry (256 / 84). */
#include "quant_common.h"

ORCD_TEST_QUANT_PLUGIN("test-quant", ORCD_TYPE_Q2_K, "Q2_K", 256, 84)
