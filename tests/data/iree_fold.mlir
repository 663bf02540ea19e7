// Transient allocations one region fills and a later region reads, folded into that
// region's pack (src/memplan/runtimes/iree/fold.py); tests/test_iree_fold.py folds each
// split and matches the CHECK lines. Copies and fills stand in for dispatches.

// The 256 B transient becomes slice 2 of the pack, alive [0, 1]: its last reader is the
// region's second command, the step slice 0 ([1, 2]) and the third command ([2, 3]) allow.
// CHECK-LABEL: util.func public @folded
// CHECK:       %[[PACK:.+]]:4 = stream.resource.pack
// CHECK-NEXT:    [1, 2] =
// CHECK-NEXT:    [2, 3] =
// CHECK-NEXT:    [0, 1] = %[[SIZE:.+]]
// CHECK:       %[[ARENA:.+]], %[[READY:.+]] = stream.resource.alloca uninitialized on({{.+}}) await(%arg1) => !stream.resource<transient>{%[[PACK]]#0}
// CHECK-NEXT:  %[[VIEW:.+]] = stream.resource.subview %[[ARENA]][%[[PACK]]#3] : !stream.resource<transient>{%[[PACK]]#0} -> !stream.resource<transient>{%[[SIZE]]}
// CHECK-NEXT:  %[[WAIT:.+]] = stream.timepoint.join max(%arg1, %[[READY]])
// CHECK-NEXT:  %[[FILLED:.+]] = stream.cmd.execute {{.+}} await(%[[WAIT]]) => with(%[[VIEW]] as
// CHECK-NOT:   stream.resource.alloca
// CHECK:       stream.timepoint.join max(%[[READY]], %[[FILLED]])
// CHECK:       stream.cmd.execute {{.+}} with(%[[VIEW]] as %{{.+}}, %[[ARENA]] as
// CHECK:       stream.resource.dealloca {{.+}} => %[[ARENA]]
util.func public @folded(%ext: !stream.resource<external>, %t0: !stream.timepoint) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c7_i32 = arith.constant 7 : i32
  %b, %bt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%t0) => !stream.resource<transient>{%c256} => !stream.timepoint
  %j0 = stream.timepoint.join max(%t0, %bt) => !stream.timepoint
  %r0 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j0) => with(%b as %arg0: !stream.resource<transient>{%c256}) {
    stream.cmd.fill %c7_i32, %arg0[%c0 for %c256] : i32 -> !stream.resource<transient>{%c256}
  } => !stream.timepoint
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev>) slices({
    [1, 2] = %c128,
    [2, 3] = %c128
  }) : index
  %a, %at = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%r0) => !stream.resource<transient>{%p#0} => !stream.timepoint
  %j1 = stream.timepoint.join max(%r0, %at) => !stream.timepoint
  %r1 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j1) => with(%b as %arg0: !stream.resource<transient>{%c256}, %a as %arg1: !stream.resource<transient>{%p#0}, %ext as %arg2: !stream.resource<external>{%c128}) {
    stream.cmd.copy %arg2[%c0], %arg0[%c0], %c128 : !stream.resource<external>{%c128} -> !stream.resource<transient>{%c256}
    stream.cmd.copy %arg0[%c0], %arg1[%p#1], %c128 : !stream.resource<transient>{%c256} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#1], %arg1[%p#2], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#2], %arg2[%c0], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev>) await(%r1) => %a : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j2 = stream.timepoint.join max(%d, %r1) => !stream.timepoint
  util.return %j2 : !stream.timepoint
}

// -----

// A region after the pack's reads it: it outlives the arena, nothing is folded.
// CHECK-LABEL: util.func public @read_after_the_pack
// CHECK:       stream.resource.alloca {{.+}} !stream.resource<transient>{%c256}
// CHECK:       stream.resource.pack
// CHECK-NEXT:    [1, 2] =
// CHECK-NEXT:    [2, 3] =
// CHECK-NEXT:  }) : index
util.func public @read_after_the_pack(%ext: !stream.resource<external>, %t0: !stream.timepoint) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c7_i32 = arith.constant 7 : i32
  %b, %bt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%t0) => !stream.resource<transient>{%c256} => !stream.timepoint
  %j0 = stream.timepoint.join max(%t0, %bt) => !stream.timepoint
  %r0 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j0) => with(%b as %arg0: !stream.resource<transient>{%c256}) {
    stream.cmd.fill %c7_i32, %arg0[%c0 for %c256] : i32 -> !stream.resource<transient>{%c256}
  } => !stream.timepoint
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev>) slices({
    [1, 2] = %c128,
    [2, 3] = %c128
  }) : index
  %a, %at = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%r0) => !stream.resource<transient>{%p#0} => !stream.timepoint
  %j1 = stream.timepoint.join max(%r0, %at) => !stream.timepoint
  %r1 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j1) => with(%b as %arg0: !stream.resource<transient>{%c256}, %a as %arg1: !stream.resource<transient>{%p#0}, %ext as %arg2: !stream.resource<external>{%c128}) {
    stream.cmd.copy %arg2[%c0], %arg0[%c0], %c128 : !stream.resource<external>{%c128} -> !stream.resource<transient>{%c256}
    stream.cmd.copy %arg0[%c0], %arg1[%p#1], %c128 : !stream.resource<transient>{%c256} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#1], %arg1[%p#2], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#2], %arg2[%c0], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %r2 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%r1) => with(%b as %arg0: !stream.resource<transient>{%c256}, %ext as %arg2: !stream.resource<external>{%c128}) {
    stream.cmd.copy %arg0[%c0], %arg2[%c0], %c128 : !stream.resource<transient>{%c256} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev>) await(%r1) => %a : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j2 = stream.timepoint.join max(%d, %r2) => !stream.timepoint
  util.return %j2 : !stream.timepoint
}

// -----

// Another transient is allocated between the two: the arena held from the first would
// sit beside it, so nothing is folded.
// CHECK-LABEL: util.func public @another_between
// CHECK:       stream.resource.alloca {{.+}} !stream.resource<transient>{%c256}
// CHECK:       stream.resource.pack
// CHECK-NEXT:    [1, 2] =
// CHECK-NEXT:    [2, 3] =
// CHECK-NEXT:  }) : index
util.func public @another_between(%ext: !stream.resource<external>, %t0: !stream.timepoint) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c7_i32 = arith.constant 7 : i32
  %b, %bt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%t0) => !stream.resource<transient>{%c256} => !stream.timepoint
  %j0 = stream.timepoint.join max(%t0, %bt) => !stream.timepoint
  %r0 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j0) => with(%b as %arg0: !stream.resource<transient>{%c256}) {
    stream.cmd.fill %c7_i32, %arg0[%c0 for %c256] : i32 -> !stream.resource<transient>{%c256}
  } => !stream.timepoint
  %o, %ot = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%r0) => !stream.resource<transient>{%c128} => !stream.timepoint
  %od = stream.resource.dealloca on(#hal.device.affinity<@dev>) await(%ot) => %o : !stream.resource<transient>{%c128} => !stream.timepoint
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev>) slices({
    [1, 2] = %c128,
    [2, 3] = %c128
  }) : index
  %a, %at = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%r0) => !stream.resource<transient>{%p#0} => !stream.timepoint
  %j1 = stream.timepoint.join max(%r0, %at) => !stream.timepoint
  %r1 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j1) => with(%b as %arg0: !stream.resource<transient>{%c256}, %a as %arg1: !stream.resource<transient>{%p#0}, %ext as %arg2: !stream.resource<external>{%c128}) {
    stream.cmd.copy %arg2[%c0], %arg0[%c0], %c128 : !stream.resource<external>{%c128} -> !stream.resource<transient>{%c256}
    stream.cmd.copy %arg0[%c0], %arg1[%p#1], %c128 : !stream.resource<transient>{%c256} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#1], %arg1[%p#2], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#2], %arg2[%c0], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev>) await(%r1) => %a : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j2 = stream.timepoint.join max(%d, %r1) => !stream.timepoint
  util.return %j2 : !stream.timepoint
}

// -----

// The function returns it: its life is not within the invocation, nothing is folded.
// CHECK-LABEL: util.func public @escapes
// CHECK:       stream.resource.alloca {{.+}} !stream.resource<transient>{%c256}
// CHECK:       stream.resource.pack
// CHECK-NEXT:    [1, 2] =
// CHECK-NEXT:    [2, 3] =
// CHECK-NEXT:  }) : index
util.func public @escapes(%ext: !stream.resource<external>, %t0: !stream.timepoint) -> (!stream.timepoint, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c7_i32 = arith.constant 7 : i32
  %b, %bt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%t0) => !stream.resource<transient>{%c256} => !stream.timepoint
  %j0 = stream.timepoint.join max(%t0, %bt) => !stream.timepoint
  %r0 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j0) => with(%b as %arg0: !stream.resource<transient>{%c256}) {
    stream.cmd.fill %c7_i32, %arg0[%c0 for %c256] : i32 -> !stream.resource<transient>{%c256}
  } => !stream.timepoint
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev>) slices({
    [1, 2] = %c128,
    [2, 3] = %c128
  }) : index
  %a, %at = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%r0) => !stream.resource<transient>{%p#0} => !stream.timepoint
  %j1 = stream.timepoint.join max(%r0, %at) => !stream.timepoint
  %r1 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j1) => with(%b as %arg0: !stream.resource<transient>{%c256}, %a as %arg1: !stream.resource<transient>{%p#0}, %ext as %arg2: !stream.resource<external>{%c128}) {
    stream.cmd.copy %arg2[%c0], %arg0[%c0], %c128 : !stream.resource<external>{%c128} -> !stream.resource<transient>{%c256}
    stream.cmd.copy %arg0[%c0], %arg1[%p#1], %c128 : !stream.resource<transient>{%c256} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#1], %arg1[%p#2], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#2], %arg2[%c0], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev>) await(%r1) => %a : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j2 = stream.timepoint.join max(%d, %r1) => !stream.timepoint
  util.return %j2, %b : !stream.timepoint, !stream.resource<transient>
}

// -----

// Its own dealloca goes; what waited for it waits for what it waited for (the region).
// CHECK-LABEL: util.func public @freed_on_its_own
// CHECK:       stream.resource.pack
// CHECK-NEXT:    [1, 2] =
// CHECK-NEXT:    [2, 3] =
// CHECK-NEXT:    [0, 1] =
// CHECK:       stream.cmd.execute
// CHECK:       %[[LAST:.+]] = stream.cmd.execute
// CHECK:       %[[FREED:.+]] = stream.resource.dealloca
// CHECK-NOT:   stream.resource.dealloca
// CHECK:       stream.timepoint.join max(%[[FREED]], %[[LAST]])
util.func public @freed_on_its_own(%ext: !stream.resource<external>, %t0: !stream.timepoint) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c7_i32 = arith.constant 7 : i32
  %b, %bt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%t0) => !stream.resource<transient>{%c256} => !stream.timepoint
  %j0 = stream.timepoint.join max(%t0, %bt) => !stream.timepoint
  %r0 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j0) => with(%b as %arg0: !stream.resource<transient>{%c256}) {
    stream.cmd.fill %c7_i32, %arg0[%c0 for %c256] : i32 -> !stream.resource<transient>{%c256}
  } => !stream.timepoint
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev>) slices({
    [1, 2] = %c128,
    [2, 3] = %c128
  }) : index
  %a, %at = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%r0) => !stream.resource<transient>{%p#0} => !stream.timepoint
  %j1 = stream.timepoint.join max(%r0, %at) => !stream.timepoint
  %r1 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j1) => with(%b as %arg0: !stream.resource<transient>{%c256}, %a as %arg1: !stream.resource<transient>{%p#0}, %ext as %arg2: !stream.resource<external>{%c128}) {
    stream.cmd.copy %arg2[%c0], %arg0[%c0], %c128 : !stream.resource<external>{%c128} -> !stream.resource<transient>{%c256}
    stream.cmd.copy %arg0[%c0], %arg1[%p#1], %c128 : !stream.resource<transient>{%c256} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#1], %arg1[%p#2], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#2], %arg2[%c0], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev>) await(%r1) => %a : !stream.resource<transient>{%p#0} => !stream.timepoint
  %bd = stream.resource.dealloca on(#hal.device.affinity<@dev>) await(%r1) => %b : !stream.resource<transient>{%c256} => !stream.timepoint
  %j2 = stream.timepoint.join max(%d, %bd) => !stream.timepoint
  util.return %j2 : !stream.timepoint
}

// -----

// The pack's intervals leave no step for the region's second and third commands in
// turn (both at step 0): the numbering the fold relies on does not hold, nothing folded.
// CHECK-LABEL: util.func public @no_numbering
// CHECK:       stream.resource.alloca {{.+}} !stream.resource<transient>{%c256}
// CHECK:       stream.resource.pack
// CHECK-NEXT:    [0, 0] =
// CHECK-NEXT:    [0, 0] =
// CHECK-NEXT:  }) : index
util.func public @no_numbering(%ext: !stream.resource<external>, %t0: !stream.timepoint) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c7_i32 = arith.constant 7 : i32
  %b, %bt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%t0) => !stream.resource<transient>{%c256} => !stream.timepoint
  %j0 = stream.timepoint.join max(%t0, %bt) => !stream.timepoint
  %r0 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j0) => with(%b as %arg0: !stream.resource<transient>{%c256}) {
    stream.cmd.fill %c7_i32, %arg0[%c0 for %c256] : i32 -> !stream.resource<transient>{%c256}
  } => !stream.timepoint
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev>) slices({
    [0, 0] = %c128,
    [0, 0] = %c128
  }) : index
  %a, %at = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) await(%r0) => !stream.resource<transient>{%p#0} => !stream.timepoint
  %j1 = stream.timepoint.join max(%r0, %at) => !stream.timepoint
  %r1 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%j1) => with(%b as %arg0: !stream.resource<transient>{%c256}, %a as %arg1: !stream.resource<transient>{%p#0}, %ext as %arg2: !stream.resource<external>{%c128}) {
    stream.cmd.copy %arg2[%c0], %arg0[%c0], %c128 : !stream.resource<external>{%c128} -> !stream.resource<transient>{%c256}
    stream.cmd.copy %arg0[%c0], %arg1[%p#1], %c128 : !stream.resource<transient>{%c256} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#1], %arg1[%p#2], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %arg1[%p#2], %arg2[%c0], %c128 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev>) await(%r1) => %a : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j2 = stream.timepoint.join max(%d, %r1) => !stream.timepoint
  util.return %j2 : !stream.timepoint
}
