/* Test quant plugin built as against ABI 1.0: minor 0, and CPU functions
 * without 1.1's matvec_q8. A 1.1 host must accept it and never read past
 * its struct. */
#include "quant_common.h"

ORCD_TEST_QUANT_PLUGIN_AT("test-quant-abi-1.0", ORCD_TYPE_Q2_K, "Q2_K", 256, 84, 0, &kCpuAbi10)
