# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"), w1: R.Tensor((32, 16), dtype="float32"),
             b1: R.Tensor((32,), dtype="float32"), w2: R.Tensor((16, 32), dtype="float32"),
             b2: R.Tensor((16,), dtype="float32")) -> R.Tuple(R.Tensor((4, 16), dtype="float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((16, 32), dtype="float32") = R.permute_dims(w1, axes=[1, 0])
            lv1: R.Tensor((4, 32), dtype="float32") = R.matmul(x, lv, out_dtype="float32")
            lv2: R.Tensor((4, 32), dtype="float32") = R.add(b1, lv1)
            lv3: R.Tensor((4, 32), dtype="float32") = R.nn.relu(lv2)
            lv4: R.Tensor((32, 16), dtype="float32") = R.permute_dims(w2, axes=[1, 0])
            lv5: R.Tensor((4, 16), dtype="float32") = R.matmul(lv3, lv4, out_dtype="float32")
            lv6: R.Tensor((4, 16), dtype="float32") = R.add(b2, lv5)
            lv7: R.Tensor((4, 16), dtype="float32") = R.add(lv6, x)
            gv: R.Tuple(R.Tensor((4, 16), dtype="float32")) = (lv7,)
            R.output(gv)
        return gv
