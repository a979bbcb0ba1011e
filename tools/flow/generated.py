"""Write a generated file, or check that the committed one is current: the one routine
of the generators of tools/flow (headers, exp_lut, sig_lut, isa_doc, core), so each says
"wrote", "is up to date" and "is stale: run ..." the same way; and the text of a table
module (case_table), the one layout of the generated tables."""


def case_table(head, index, arms, default):
    """The text of a generated table module (tools/flow/exp_lut.py, sig_lut.py): the file's
    directives, the lines head (its comment, module line and port list through `);`), then
    one combinational always block of `case (index)` over the lines arms and the arm
    `default:` default."""
    return "\n".join(["`resetall", "`timescale 1ns/1ps", "`default_nettype none", *head,
                      "  always @* begin", f"    case ({index})", *arms, f"      default: {default}",
                      "    endcase", "  end", "endmodule", "`resetall", ""])


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
