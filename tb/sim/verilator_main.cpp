// The main loop of GA-2's cocotb builds on Verilator (tb/sim/build.py passes it to
// cocotb's runner in place of cocotb's own share/lib/verilator/verilator.cpp).
//
// It is cocotb 1.8.1's verilator.cpp (Copyright cocotb contributors, Revised BSD
// License, SPDX-License-Identifier: BSD-3-Clause) with the same order of regions and
// callbacks in every time step, minus the calls that provably cannot do anything: a
// value-change settle right after a group of callbacks of which none was called. A
// settle loops until no value-change callback fires, so when nothing was called since
// the previous settle no watched value can have moved and the next settle would find
// nothing. cocotb's loop settles 5 times per time step; with no callback called this
// one settles once (after eval_step, where the design moves). And in a quiet stretch
// (no callback called for two time steps) it skips the one-shot reasons' calls and the
// timers' before their deadline (the loop says why). The clock is generated
// in Verilog (two time steps per cycle), so those VPI calls were most of the cost of
// a cycle (docs/measurements.md, bench_sim).
#include <memory>

#include "Vtop.h"
#include "verilated.h"
#include "verilated_vpi.h"

#ifndef VM_TRACE_FST
// emulate new verilator behavior for legacy versions
#define VM_TRACE_FST 0
#endif

#if VM_TRACE
#if VM_TRACE_FST
#include <verilated_fst_c.h>
#else
#include <verilated_vcd_c.h>
#endif
#endif

static vluint64_t main_time = 0;  // Current simulation time

double sc_time_stamp() {  // Called by $time in Verilog
    return main_time;     // converts to double, to match
                          // what SystemC does
}

extern "C" {
void vlog_startup_routines_bootstrap(void);
}

static inline bool settle_value_callbacks() {
    bool cbs_called, again;

    // Call Value Change callbacks
    // These can modify signal values so we loop
    // until there are no more changes
    cbs_called = again = VerilatedVpi::callValueCbs();
    while (again) {
        again = VerilatedVpi::callValueCbs();
    }

    return cbs_called;
}

int main(int argc, char** argv) {
    Verilated::commandArgs(argc, argv);
#ifdef VERILATOR_SIM_DEBUG
    Verilated::debug(99);
#endif
    std::unique_ptr<Vtop> top(new Vtop(""));
    Verilated::fatalOnVpiError(false);  // otherwise it will fail on systemtf

#ifdef VERILATOR_SIM_DEBUG
    Verilated::internalsDump();
#endif

    vlog_startup_routines_bootstrap();
    VerilatedVpi::callCbs(cbStartOfSimulation);

#if VM_TRACE
    Verilated::traceEverOn(true);
#if VM_TRACE_FST
    std::unique_ptr<VerilatedFstC> tfp(new VerilatedFstC);
    top->trace(tfp.get(), 99);
    tfp->open("dump.fst");
#else
    std::unique_ptr<VerilatedVcdC> tfp(new VerilatedVcdC);
    top->trace(tfp.get(), 99);
    tfp->open("dump.vcd");
#endif
#endif

    // the first time step settles unconditionally, as cocotb's loop does (values set
    // by cbStartOfSimulation callbacks)
    bool pending = true;
    // Quiet time steps. Python (cocotb) runs only inside a callback, so only a callback
    // can register one. The one-shot reasons (ReadWrite, ReadOnly, NextSimTime) fire in
    // the time step they are registered in or the next one. So after two time steps in
    // which no callback at all was called, none of them can be pending, and their calls
    // are skipped; so is the AfterDelay call before the earliest timer's deadline
    // (cbNextDeadline, read at the end of the previous step). Value-change callbacks
    // (cocotb's Edge, on signals the design moves) are still tested after every
    // evaluation. A callback called in a step makes the next two steps full again.
    unsigned quiet = 0;                      // time steps since a callback was last called
    vluint64_t deadline = 0;                 // the earliest timed callback's time
    while (!Verilated::gotFinish()) {
        const bool full = quiet < 2;
        bool any = false;                    // a callback was called in this time step
        // Call registered timed callbacks (e.g. clock timer)
        // These are called at the beginning of the time step
        // before the iterative regions (IEEE 1800-2012 4.4.1)
        // (VerilatedVpi::callTimedCbs() is callCbs(cbAfterDelay); this form says
        // whether one was called)
        if (full || main_time >= deadline) any |= VerilatedVpi::callCbs(cbAfterDelay);
        pending |= any;

        // Call Value Change callbacks triggered by Timer callbacks
        // These can modify signal values
        if (pending) any |= settle_value_callbacks();

        // We must evaluate whole design until we process all 'events'
        bool again = true;
        while (again) {
            // Evaluate design
            top->eval_step();

            // Call Value Change callbacks triggered by eval()
            // These can modify signal values
            again = settle_value_callbacks();
            any |= again;

            // Call registered ReadWrite callbacks
            const bool rw = (full || any) && VerilatedVpi::callCbs(cbReadWriteSynch);
            again |= rw;

            // Call Value Change callbacks triggered by ReadWrite callbacks
            // These can modify signal values
            if (rw) again |= settle_value_callbacks();
            any |= again;
        }
        top->eval_end_step();

        // Call ReadOnly callbacks
        if (full || any) any |= VerilatedVpi::callCbs(cbReadOnlySynch);

#if VM_TRACE
        tfp->dump(main_time);
#endif
        // cocotb controls the clock inputs using cbAfterDelay so
        // skip ahead to the next registered callback
        const vluint64_t NO_TOP_EVENTS_PENDING = static_cast<vluint64_t>(~0ULL);
        vluint64_t next_time_cocotb = VerilatedVpi::cbNextDeadline();
        deadline = next_time_cocotb;
        vluint64_t next_time_timing =
            top->eventsPending() ? top->nextTimeSlot() : NO_TOP_EVENTS_PENDING;
        vluint64_t next_time = std::min(next_time_cocotb, next_time_timing);

        // If there are no more cbAfterDelay callbacks,
        // the next deadline is max value, so end the simulation now
        if (next_time == NO_TOP_EVENTS_PENDING) {
            break;
        } else {
            main_time = next_time;
        }

        // Call registered NextSimTime
        // It should be called in simulation cycle before everything else
        // but not on first cycle
        pending = (full || any) && VerilatedVpi::callCbs(cbNextSimTime);
        any |= pending;

        // Call Value Change callbacks triggered by NextTimeStep callbacks
        // These can modify signal values
        if (pending) {
            settle_value_callbacks();
            pending = false;
        }
        quiet = any ? 0 : quiet + 1;
    }

    VerilatedVpi::callCbs(cbEndOfSimulation);

    top->final();

#if VM_TRACE
    tfp->close();
#endif

// VM_COVERAGE is a define which is set if Verilator is
// instructed to collect coverage (when compiling the simulation)
#if VM_COVERAGE
    VerilatedCov::write("coverage.dat");
#endif

    return 0;
}
