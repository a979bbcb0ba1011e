"""A pytest that is not there: first on the path of a simulator process that runs a
cocotb driver without bare asserts (tb/sim/build.py NO_PYTEST), so that cocotb 1.8.1
skips its assertion rewriting instead of importing pytest, about half of the process's
start-up. cocotb treats this as pytest not installed."""
raise ModuleNotFoundError("pytest is left out of this simulator process (tb/sim/build.py NO_PYTEST)",
                          name="pytest")
