// restart_codes.vh: the codes the restart check's table, jobs and top share (included
// inside restart_chk, restart_scn and restart_jobs): the units under test (U_*, the
// fail_unit output), the jobs (J_*) and the number of hand-written scenarios (N_HAND;
// the vector units' follow them, restart_vec's n_scn). One list, so the
// scenario table, the job table and the names in the top cannot disagree.
// Each includer uses a part of the list:
/* verilator lint_off UNUSEDPARAM */
// U_VEC: a vector unit's scenario (tb/restart.py, restart_vec names the unit).
localparam [3:0] U_DMA = 4'd0, U_MM = 4'd2, U_DIV = 4'd5, U_VEC = 4'd15;
localparam [9:0] N_HAND = 10'd60;
localparam [4:0] J_LD6 = 5'd0, J_ST6 = 5'd1, J_LD5 = 5'd2, J_ST7 = 5'd3,
                 J_MMA = 5'd7, J_MMB = 5'd8, J_MMC = 5'd9, J_MMD = 5'd10,
                 J_DV1 = 5'd15, J_DV2 = 5'd16,
                 J_LX1 = 5'd17, J_LX2 = 5'd18;
/* verilator lint_on UNUSEDPARAM */
