// The main loop of GA-2's cocotb builds on Verilator (tb/sim/build.py passes it to
// cocotb's runner in place of cocotb's own share/lib/verilator/verilator.cpp).
//
// It is cocotb 2.1.0's verilator.cpp (Copyright cocotb contributors, Revised BSD
// License, SPDX-License-Identifier: BSD-3-Clause) with the same order of regions and
// callbacks in every time step, minus the calls that provably cannot do anything, and
// without its command-line options (a waves build always writes dump.vcd, as GA-2's
// builds did before). A quiet stretch -- no callback called for two time steps --
// skips the one-shot reasons' calls (ReadWrite, ReadOnly, NextSimTime) and the
// timers' before their deadline (the loop says why), and a group of callbacks of
// which none was called, with no write applied after it, is not followed by its
// value-change settle: a settle loops until no value-change callback fires, so when
// nothing was called or written since the previous settle no watched value can have
// moved and the next settle would find nothing. The settle after every evaluation of
// the design stays, and so do the inertial writes after the ReadWrite region (the
// writes Python queued in any callback of the step, a value-change one included).
// The clock is generated in Verilog (two time steps per cycle), so those VPI calls
// were most of the cost of a cycle (docs/measurements.md, bench_sim).
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
using verilated_trace_t = VerilatedFstC;
static const char* const trace_file = "dump.fst";
#else
#include <verilated_vcd_c.h>
using verilated_trace_t = VerilatedVcdC;
static const char* const trace_file = "dump.vcd";
#endif
static verilated_trace_t* tfp;
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

static void wrap_up() {
    VerilatedVpi::callCbs(cbEndOfSimulation);

#if VM_TRACE
    if (tfp) {
        // We don't delete the trace object to avoid deadlock in verilator sims.
        tfp->close();
    }
#endif

    // VM_COVERAGE is a define which is set if Verilator is
    // instructed to collect coverage (when compiling the simulation)
#if VM_COVERAGE
    VerilatedCov::write();  // +verilator+coverage+file+<filename>, default coverage.dat
#endif
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

#if VM_TRACE
    Verilated::traceEverOn(true);
    tfp = new verilated_trace_t;
    top->trace(tfp, 99);
    tfp->open(trace_file);
#endif

    vlog_startup_routines_bootstrap();
    Verilated::addExitCb([](void*) { wrap_up(); }, nullptr);
    VerilatedVpi::callCbs(cbStartOfSimulation);
    settle_value_callbacks();

    // Quiet time steps. Python (cocotb) runs only inside a callback, so only a callback
    // can register one. The one-shot reasons (ReadWrite, ReadOnly, NextSimTime) fire in
    // the time step they are registered in or the next one. So after two time steps in
    // which no callback at all was called, none of them can be pending, and their calls
    // are skipped; so is the AfterDelay call before the earliest timer's deadline
    // (cbNextDeadline, read before the time moved on). Value-change callbacks (cocotb's
    // value_change, on signals the design moves) are still tested after every
    // evaluation. A callback called in a step makes the next two steps full again.
    unsigned quiet = 0;       // time steps since a callback was last called
    vluint64_t deadline = 0;  // the earliest timed callback's time
    while (!Verilated::gotFinish()) {
        const bool full = quiet < 2;
        bool any = false;  // a callback was called in this time step
        do {
            // We must evaluate whole design until we process all 'events' for
            // this time step
            do {
                top->eval_step();
                VerilatedVpi::clearEvalNeeded();
                VerilatedVpi::doInertialPuts();
                any |= settle_value_callbacks();
            } while (VerilatedVpi::evalNeeded());

            // Run ReadWrite callback as we are done processing this eval step
            const bool rw = (full || any) && VerilatedVpi::callCbs(cbReadWriteSynch);
            any |= rw;
            // the writes queued by this step's callbacks (value-change ones included)
            VerilatedVpi::doInertialPuts();
            if (rw || VerilatedVpi::evalNeeded()) settle_value_callbacks();
        } while (VerilatedVpi::evalNeeded());

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
        if ((full || any) && VerilatedVpi::callCbs(cbNextSimTime)) {
            any = true;
            settle_value_callbacks();
        }

        // Call registered timed callbacks (e.g. clock timer)
        // These are called at the beginning of the time step
        // before the iterative regions (IEEE 1800-2012 4.4.1)
        // (VerilatedVpi::callTimedCbs() is callCbs(cbAfterDelay); this form says
        // whether one was called)
        if ((full || any || main_time >= deadline) && VerilatedVpi::callCbs(cbAfterDelay)) {
            any = true;
            settle_value_callbacks();
        }
        quiet = any ? 0 : quiet + 1;
    }

    top->final();

    wrap_up();

#if VM_TRACE
    delete tfp;
    tfp = nullptr;
#endif

    // Fail the sim if any assertion/error fired during the run.
    if (Verilated::threadContextp()->errorCount() > 0) {
        return 1;
    }

    return 0;
}
