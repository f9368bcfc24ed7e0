/*
 * smallmm.h - the engine's product for small matrices (internal to the
 * engine): gemm_rm's contract (forward.h's gemm_fn), for the trainer's
 * shapes; larger ones and CPUs without AVX-512 fall through to gemm_rm.
 */
#ifndef SMALLMM_H
#define SMALLMM_H

#include "forward.h"

gemm_fn small_gemm;

#endif
