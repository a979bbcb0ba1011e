; C = requant(A @ B): A is 8 x 16 int8, B is 16 x 8 int8, C is 8 x 8 int8.
; The 4 x 4 array makes one 4 x 4 output tile per MM, so C takes 4 tiles.
; docs/programming.md walks through it; tests/tools/test_docs_examples.py runs it.
.equ A_EXT   0          ; A in external memory, row-major (lda 16)
.equ B_EXT   128        ; B in external memory, row-major (ldb 8)
.equ C_EXT   256        ; where C goes
.equ A       0          ; scratchpad
.equ B       128
.equ C32     256        ; int32 results, row-major 8 x 8 (ldc 8)
.equ C8      320        ; requantized int8 results

        LD   dst=A src=A_EXT len=128
        LD   dst=B src=B_EXT len=128
        ; tile (i, j) = rows 4i.. of A times columns 4j.. of B
tiles:  MM   dst=C32     A=A    B=B   M=4 K=16 N=4 tb=0 lda=16 ldb=8 ldc=8
        MM   dst=C32+4   A=A    B=B+4 M=4 K=16 N=4 tb=0 lda=16 ldb=8 ldc=8
        MM   dst=C32+32  A=A+64 B=B   M=4 K=16 N=4 tb=0 lda=16 ldb=8 ldc=8
        MM   dst=C32+36  A=A+64 B=B+4 M=4 K=16 N=4 tb=0 lda=16 ldb=8 ldc=8
        ; int32 -> int8: multiply by m / 2^s = 16384 / 2^23 = 1/512, round, saturate
        RQ   dst=C8 src=C32 len=64 m=16384 s=23
        ST   src=C8 dst=C_EXT len=64
        HALT
