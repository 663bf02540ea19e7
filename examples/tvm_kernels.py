# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def three(A: T.Buffer((250,), "float32"), B: T.Buffer((250,), "float32")):
        T.func_attr({"tir.noalias": True})
        x = T.alloc_buffer((250,))
        y = T.alloc_buffer((250,))
        z = T.alloc_buffer((240,))
        for i in range(250):
            x[i] = A[i] * T.float32(2.0)
        for i in range(250):
            y[i] = x[i] + T.float32(1.0)
        for i in range(240):
            z[i] = y[i] * x[i]
        for i in range(250):
            B[i] = y[i] + T.if_then_else(i < 240, z[T.min(i, 239)], T.float32(0.0))
