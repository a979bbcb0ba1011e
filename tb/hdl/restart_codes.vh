// restart_codes.vh: the codes the restart check's table, jobs and top share (included
// inside restart_chk, restart_scn and restart_jobs): the units under test (U_*, the
// fail_unit output), the jobs (J_*) and the number of scenarios (N_SCN). One list, so the
// scenario table, the job table and the names in the top cannot disagree.
// Each includer uses a part of the list:
/* verilator lint_off UNUSEDPARAM */
localparam [3:0] U_DMA = 4'd0, U_RQ = 4'd1, U_MM = 4'd2, U_SM0 = 4'd3, U_SM1 = 4'd4,
                 U_DIV = 4'd5, U_ADD = 4'd6, U_AMX = 4'd7, U_NRM = 4'd8, U_PK = 4'd9;
localparam [7:0] N_SCN = 8'd138;
localparam [4:0] J_LD6 = 5'd0, J_ST6 = 5'd1, J_LD5 = 5'd2, J_ST7 = 5'd3,
                 J_RQ6 = 5'd4, J_RQ5 = 5'd5, J_RQ6B = 5'd6,
                 J_MMA = 5'd7, J_MMB = 5'd8, J_MMC = 5'd9, J_MMD = 5'd10,
                 J_SM7 = 5'd11, J_SM5 = 5'd12, J_SM8 = 5'd13, J_SM6 = 5'd14,
                 J_DV1 = 5'd15, J_DV2 = 5'd16,
                 J_LX1 = 5'd17, J_LX2 = 5'd18, J_AD4 = 5'd19, J_AD3 = 5'd20,
                 J_AM6 = 5'd21, J_AM4 = 5'd22, J_NM5 = 5'd23, J_NM3 = 5'd24,
                 J_PK4 = 5'd25, J_UP3 = 5'd26;
/* verilator lint_on UNUSEDPARAM */
