"""GA-2 Python side: ISA, numerics, bit- and cycle-exact reference, program builders."""
