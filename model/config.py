"""The one place for GA-2's sizes and options: a frozen Config.

Everything that depends on how big the chip is -- the reference Machine, the builders,
the fault checks, the hardware runner, the RTL parameter defaults (rtl/ga2_cfg.vh,
generated from DEFAULT by tools/flow/headers.py) and every test bench -- takes its sizes
from a Config, never from a literal. The encoding (field widths, opcodes) is the ISA's
business and lives in model/isa.py; a Config only says how much of what the encoding
can address this chip has.

    DEFAULT   the chip as synthesised: 4096 words of external memory
    CH09      chapter 9's chip: the same with 8192 words of external memory
    CH09_OVERLAP  chapter 9's chip in the overlap timing mode

Config(...) checks every value and raises ValueError naming the field; cfg.replace(...)
gives a checked copy with some fields changed.
"""
import dataclasses
from dataclasses import dataclass

from .ops import ADDR_W, XHI_W  # the ISA's address fields (model/ops)

EXT_ADDR_W = ADDR_W + XHI_W       # an external address: xhi (13 bits) above a 16-bit field
SM_LEN_LIMIT = 1024    # the longest softmax a build may have (Config.sm_max_len)
PC_W = 21              # the program counter, error_pc, retire_pc and imem_addr (rtl/ga2_isa.vh
                       # GA2_PC_W): an instruction memory of up to 2^21 - 1 words (SmolLM2's
                       # decode step at B = 16, T = 1,024 is 1,202,620 instructions)
IMEM_MAX = (1 << PC_W) - 1   # the deepest instruction memory (pc reaches imem_depth: code 5)

MODES = ("inorder", "overlap")   # timing modes (docs/isa.md "Timing modes")


@dataclass(frozen=True)
class Config:
    """GA-2's sizes and options (see the module docstring)."""

    array: int = 4            # the systolic array is array x array
    sp_words: int = 4096      # scratchpad words
    ext_words: int = 4096     # external memory words, 1..2^29
    imem_depth: int = 1024    # instruction memory depth (instructions), 1..2^21 - 1
    sm_max_len: int = 64      # longest softmax vector (the unit's exp buffer), 1..1024
    issue_cycles: int = 2     # FETCH + DECODE before a unit starts
    mode: str = "inorder"     # timing mode (MODES): "inorder" one instruction at a time,
                              # "overlap" the units run concurrently (hazards by range hulls)

    def __post_init__(self):
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.type in ("int", int) and (isinstance(v, bool) or not isinstance(v, int)):
                raise ValueError(f"Config: {f.name} must be an int, got {v!r}")
        if self.array != 4:
            raise ValueError(f"Config: array={self.array}: the matrix unit is built for 4 x 4")
        if not 2 <= self.sp_words <= 1 << ADDR_W:
            raise ValueError(f"Config: sp_words={self.sp_words} outside 2..{1 << ADDR_W} "
                             f"(addresses are {ADDR_W} bits)")
        if not 1 <= self.ext_words <= 1 << EXT_ADDR_W:
            raise ValueError(f"Config: ext_words={self.ext_words} outside 1..{1 << EXT_ADDR_W} "
                             f"(external addresses are {EXT_ADDR_W} bits)")
        if not 1 <= self.imem_depth <= IMEM_MAX:
            raise ValueError(f"Config: imem_depth={self.imem_depth} outside 1..{IMEM_MAX} "
                             f"(pc is {PC_W} bits)")
        if not 1 <= self.sm_max_len <= SM_LEN_LIMIT:
            raise ValueError(f"Config: sm_max_len={self.sm_max_len} outside 1..{SM_LEN_LIMIT} "
                             "(the softmax unit's exp buffer; sums stay below 2^27)")
        if self.issue_cycles != 2:
            raise ValueError(f"Config: issue_cycles={self.issue_cycles}: the sequencer fetches "
                             "and decodes in exactly 2 cycles")
        if self.mode not in MODES:
            raise ValueError(f"Config: mode={self.mode!r} not one of {', '.join(MODES)}")

    @property
    def mm_fill(self):
        """Matrix-unit fill: the array's skew 2*(array-1) plus one cycle of read latency."""
        return 2 * (self.array - 1) + 1

    @property
    def sm_div_cycles(self):
        """Softmax cycles per element after the two passes: load the divider, 32 divide
        steps, write (a property of the unit's serial divider, not a free option)."""
        return 34

    @property
    def peak_macs(self):
        """MACs per cycle at the matrix unit's peak: one per PE of the array x array array
        (the compute roof of the roofline)."""
        return self.array * self.array

    @property
    def dma_words_per_cycle(self):
        """Words the DMA moves per cycle (LD and ST are busy len + 1 cycles: one word a
        cycle; the memory roof of the roofline)."""
        return 1

    @property
    def ext_max(self):
        """The largest external memory the addresses can reach: xhi * 65536 + a 16-bit
        field (model/isa.py), 2^29 words."""
        return 1 << EXT_ADDR_W

    def for_program(self, n):
        """This Config when a program of n instructions fits its instruction memory;
        otherwise a copy whose imem_depth is the smallest power of two holding n (at most
        2^PC_W - 1), so that programs of similar length share one build. What lies past
        a program is zero words (an illegal opcode), as on every build. ValueError when n
        exceeds 2^PC_W - 1 instructions."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"a program length must be an int >= 0, got {n!r}")
        if n > IMEM_MAX:
            raise ValueError(f"program of {n} instructions exceeds the largest instruction "
                             f"memory ({IMEM_MAX}: pc is {PC_W} bits)")
        if n <= self.imem_depth:
            return self
        return self.replace(imem_depth=min(1 << (n - 1).bit_length(), IMEM_MAX))

    def replace(self, **changes):
        """A checked copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def name(self):
        """A short name for build directories: the fields that differ from DEFAULT."""
        diff = [f"{f.name}{getattr(self, f.name)}" for f in dataclasses.fields(self)
                if getattr(self, f.name) != getattr(DEFAULT, f.name)]
        return "-".join(diff) or "default"


DEFAULT = Config()
CH09 = Config(ext_words=8192)
CH09_OVERLAP = CH09.replace(mode="overlap")


def parse_ext(text):
    """A Config with ext_words from a command-line string (--ext 8192 or 0x2000)."""
    try:
        n = int(str(text), 0)
    except ValueError:
        raise ValueError(f"--ext {text!r} is not an integer") from None
    return DEFAULT.replace(ext_words=n)


def resolve(cfg=None):
    """cfg, or DEFAULT when None; ValueError for anything that is not a Config."""
    cfg = DEFAULT if cfg is None else cfg
    if not isinstance(cfg, Config):
        raise ValueError(f"expected a model.config.Config, got {type(cfg).__name__}: {cfg!r}")
    return cfg
