module {
  func.func @fits_50688() {
    %alloc = memref.alloc() : memref<128x66xf32, #gpu.address_space<workgroup>>
    %alloc_0 = memref.alloc() : memref<64x66xf32, #gpu.address_space<workgroup>>
    return
  }
}

// -----

module {
  func.func @over_873872() {
    %alloc = memref.alloc() : memref<218468xf32, #gpu.address_space<workgroup>>
    return
  }
}

// -----

module {
  func.func @dynamic_shared(%arg0: index) {
    %alloc = memref.alloc(%arg0) : memref<?xf32, #gpu.address_space<workgroup>>
    return
  }
}

// -----

module {
  func.func @private_big() {
    %alloc = memref.alloc() : memref<218468xf32, #gpu.address_space<private>>
    %alloc_0 = memref.alloc() : memref<218468xf32>
    return
  }
}
