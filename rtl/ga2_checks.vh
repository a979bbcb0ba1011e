// ga2_checks.vh: checks shared by the modules, hand-written (the sizes themselves come
// from model/config.py through ga2_cfg.vh; the address width from model/isa.py).
// `GA2_CHECK_SP_WORDS(n); is one statement of an initial block: n, the module's
// SP_WORDS parameter, must lie in 2..2^GA2_ADDR_W = 2..65536 (model/config.py: a
// scratchpad address is ADDR_W bits), else $error naming the module instance (%m), then
// $finish. `GA2_CHECK_EXT_WORDS(n); likewise for an EXT_WORDS parameter: 1..2^GA2_EXT_ADDR_W
// (an external address is xhi * 2^16 + a 16-bit field, 29 bits). The `;` at the use ends
// the macro's last statement.
`ifndef GA2_CHECKS_VH
`define GA2_CHECKS_VH
`include "ga2_isa.vh"

`define GA2_SP_WORDS_BAD(n) ((n) < 2 || (n) > (1 << `GA2_ADDR_W))
`define GA2_CHECK_SP_WORDS(n) \
  if (`GA2_SP_WORDS_BAD(n)) $error("%m: SP_WORDS=%0d outside 2..%0d", (n), 1 << `GA2_ADDR_W); \
  if (`GA2_SP_WORDS_BAD(n)) $finish

`define GA2_EXT_WORDS_BAD(n) ((n) < 1 || (n) > (1 << `GA2_EXT_ADDR_W))
`define GA2_CHECK_EXT_WORDS(n) \
  if (`GA2_EXT_WORDS_BAD(n)) $error("%m: EXT_WORDS=%0d outside 1..%0d", (n), 1 << `GA2_EXT_ADDR_W); \
  if (`GA2_EXT_WORDS_BAD(n)) $finish

`endif
