// RUN: nki-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// Syntax errors in operands name what was expected.

nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{unknown ALU op 'plus'; expected one of: bypass add sub mul div max min pow eq ne lt le gt ge and or xor}}
    nisa.tensor_tensor plus sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)]
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{unknown dtype 'f64'; expected one of: f32 bf16 f16 f8e4m3 f8e5m2 i32 i8 u8}}
    nisa.memset sbuf[0:128, 0, f64][(1,64)], 0.0
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{unknown memory 'dram'; expected one of: hbm sbuf psum}}
    nisa.memset dram[0:128, 0, f32][(1,64)], 0.0
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{expected the partition range START:END of the sbuf access pattern}}
    nisa.memset sbuf[0, f32][(1,64)], 0.0
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @act {
    // expected-error @+1 {{unknown activation function 'swish'}}
    nisa.activation swish sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)] scale 1.0 bias 0.0
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{expected a semaphore 's<N>'}}
    nisa.memset sbuf[0:128, 0, f32][(1,64)], 0.0 wait(sem0 >= 1)
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @pool {
    // expected-error @+1 {{expected 'p' or a free index 'i0'..'i3'}}
    nisa.iota sbuf[0:128, 0, f32][(1,64)], (0 + 1 * i4)
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  // expected-error @+1 {{unknown tensor kind 'weights'; expected one of: input output const scratch}}
  nisa.tensor @w weights f32 [2] at 0
}

// -----

// expected-error @+1 {{access pattern has 6 dimensions; at most 5 are representable}}
"test.op"() {ap = #nisa.ap<hbm[0, f32][(1,1),(1,1),(1,1),(1,1),(1,1),(1,1)]>} : () -> ()

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{partition range 0:9223372036854775807 is not representable}}
    nisa.memset sbuf[0:9223372036854775807, 0, f32][(1,64)], 0.0
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{partition range -9223372036854775808:9223372036854775807 is not representable}}
    nisa.memset sbuf[-9223372036854775808:9223372036854775807, 0, f32][(1,64)], 0.0
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @pool {
    // expected-error @+1 {{'p' appears twice}}
    nisa.iota sbuf[0:128, 0, f32][(1,64)], (0 + 9223372036854775807 * p + 9223372036854775807 * p)
  }
}
