#!/usr/bin/env bash
# One-time set-up, idempotent and fast when everything is present:
#  - the simulators, yosys and z3 (make formal) from Debian (apt-get when missing and running as root,
#    otherwise a message naming the packages and a non-zero exit);
#  - .venv with the pinned requirements and GA-2 itself installed editable (pip install -e .,
#    the `ga2` console script), brought up to date when requirements.txt or pyproject.toml change;
#  - with the argument `fpga` (make fpga), also nextpnr-ice40 and fpga-icestorm (icepack,
#    icetime) from Debian, the same way: only that target needs them;
#  - the venv's byte-code, compiled once: pip writes none when PYTHONDONTWRITEBYTECODE is
#    set, and then every Python process (each pytest worker, each cocotb simulator
#    process, each CLI call) compiles cocotb, pytest, numpy... from source again.
set -euo pipefail
cd "$(dirname "$0")/../.."

need=()
command -v iverilog >/dev/null 2>&1 || need+=(iverilog)
command -v verilator >/dev/null 2>&1 || need+=(verilator)
command -v yosys >/dev/null 2>&1 || need+=(yosys)
# make formal: yosys-smtbmc (in Debian's yosys package) drives z3; ABC is yosys-abc
command -v z3 >/dev/null 2>&1 || need+=(z3)
if [ "${1:-}" = fpga ]; then
  command -v nextpnr-ice40 >/dev/null 2>&1 || need+=(nextpnr-ice40)
  command -v icetime >/dev/null 2>&1 || need+=(fpga-icestorm)
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "setup: missing ${need[*]}; install them as root: apt-get install ${need[*]}" >&2
    exit 1
  fi
fi

PY=${PYTHON:-python3}
stamp=.venv/.requirements.stamp
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  rm -rf .venv
  "$PY" -m venv .venv || {
    echo "setup: '$PY -m venv' failed; on Debian install python3-venv (apt-get install python3-venv)" >&2
    exit 1
  }
fi
if ! cmp -s requirements.txt "$stamp"; then
  # pins only ever move forward in one .venv: pip installs what the file names, in place;
  # without its byte-code (pip compiles on one core), which the step below compiles on
  # every core (measured: pip 24.3 s of CPU on one core, against 11.9 s, then 14.7 s
  # of compileall shared by the cores)
  echo "setup: installing the pinned requirements.txt into .venv"
  .venv/bin/pip install -q --no-compile --disable-pip-version-check -r requirements.txt
  cp requirements.txt "$stamp"
  rm -f .venv/.pyproject.stamp
fi
if ! cmp -s pyproject.toml .venv/.pyproject.stamp; then
  echo "setup: installing GA-2 into .venv (pip install -e .)"
  .venv/bin/pip install -q --disable-pip-version-check --no-deps -e . >/dev/null
  cp pyproject.toml .venv/.pyproject.stamp
fi
if ! cmp -s requirements.txt .venv/.bytecode.stamp; then
  echo "setup: compiling the byte-code of .venv"
  .venv/bin/python -m compileall -q -j 0 .venv/lib >/dev/null || true
  cp requirements.txt .venv/.bytecode.stamp
fi
