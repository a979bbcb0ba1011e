// GA-2 RTL filelist: every module of the chip, one file a line, leaves first, top last.
// Paths are relative to this file's folder; include files (ga2_isa.vh, ga2_cfg.vh) live
// beside it (+incdir+ this folder). Every tool reads this list through
// tb/sim/files.py (simulators, lint, synthesis, mutation); tests/flow/test_filelist.py
// checks it names every rtl/*.v exactly once.
exp_lut.v
sram.v
pe.v
systolic.v
mm_ctrl.v
dma.v
requant.v
vec_rq.v
divu.v
softmax.v
ga2_decode.v
ga2_seq.v
ga2_hazard.v
ga2_perf.v
ga2_sp_xbar.v
ga2_top.v
