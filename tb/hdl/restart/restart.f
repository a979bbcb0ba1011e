// The restart check's parts (tb/sim/files.py restart_files: these, then tb/hdl/restart_chk.v,
// the top, after the vector units' pairs generated from the op records: tb/restart.py);
// their shared codes are tb/hdl/restart_codes.vh, the unit pairs' shared ports
// tb/hdl/restart_ports.vh (both on every bench's include path).
restart_rd.v
restart_cmp1.v
restart_jobs.v
restart_scn.v
restart_dma.v
restart_mm.v
restart_divu.v
