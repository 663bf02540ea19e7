func.func @cf_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^bb1(%c0 : index)
^bb1(%i: index):
  %cond = arith.cmpi slt, %i, %n : index
  cf.cond_br %cond, ^bb2, ^bb3
^bb2:
  %a = memref.alloca() : memref<256xi32>
  %next = arith.addi %i, %c1 : index
  cf.br ^bb1(%next : index)
^bb3:
  return
}
func.func @cf_diamond(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %a = memref.alloca() : memref<16xi32>
  cf.br ^bb2
^bb2:
  return
}
func.func @nested_in_scf_in_cf_loop(%n: index, %c: i1) {
  cf.br ^bb1
^bb1:
  scf.if %c {
    %a = memref.alloca() : memref<8xi32>
  }
  cf.cond_br %c, ^bb1, ^bb2
^bb2:
  return
}
