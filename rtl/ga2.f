// GA-2 RTL filelist: every module of the chip, one file a line, leaves first, top last.
// Paths are relative to this file's folder; include files (ga2_isa.vh, ga2_cfg.vh,
// ga2_checks.vh) live beside it (+incdir+ this folder). Every tool reads this list through
// tb/sim/files.py (simulators, lint, synthesis, mutation); tests/flow/test_filelist.py
// checks it names every rtl/*.v exactly once.
ga2_exp_lut.v
ga2_exp2_lut.v
ga2_sram.v
ga2_pe.v
ga2_systolic.v
ga2_mm_ctrl.v
ga2_dma.v
ga2_requant.v
ga2_unit_ctl.v
ga2_vec_rq.v
ga2_divu.v
ga2_softmax.v
ga2_vec_add.v
ga2_argmax.v
ga2_norm.v
ga2_pack4.v
ga2_qnt.v
ga2_rqc.v
ga2_smw.v
ga2_sig_lut.v
ga2_swiglu.v
ga2_rope.v
ga2_decode.v
ga2_seq.v
ga2_hazard.v
ga2_perf.v
ga2_sp_xbar.v
ga2_top.v
