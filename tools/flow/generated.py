"""Write a generated file, or check that the committed one is current: the one routine
of the generators of tools/flow (headers, exp_lut, sig_lut, isa_doc, core), so each says
"wrote", "is up to date" and "is stale: run ..." the same way."""


def write_or_check(path, text, check, cmd, shown=None):
    """Write text to path (0), or with check compare it: 0 when path holds text, 1 when it
    is missing or stale. Prints one line naming the file as `shown` (default path) and,
    when stale, the command `cmd` that writes it."""
    shown = path if shown is None else shown
    if check:
        if not path.exists() or path.read_text() != text:
            print(f"{shown} is stale: run {cmd}")
            return 1
        print(f"{shown} is up to date")
        return 0
    path.write_text(text)
    print(f"wrote {shown}")
    return 0
