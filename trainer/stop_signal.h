// SIGTERM (Slurm's time limit) and SIGINT ask the trainer to finish its step and stop: the flag
// stop_requested() reads, which the training loop shares with the other ranks after every step.
#pragma once

namespace bert::trainer {

// Call first thing in main(), before any thread exists. Blocks SIGTERM and SIGINT in the calling
// thread, so in every thread created after it (OpenMP's, oneDNN's, the loader's), and starts one
// thread that takes them with sigwait() and sets the stop flag. Why not a plain handler: the kernel
// writes a signal frame (~3 KiB with AVX-512 state) below the interrupted thread's stack pointer, and
// oneDNN's JIT GEMM kernels (before oneDNN 3.11; Debian 12 ships 2.6) point rsp into a heap buffer of
// theirs while they run, so a signal landing then overwrote the heap (oneDNN issue #4845; here an abort
// at exit, "double free or corruption"). Threads that existed before main() (a BLAS pool started by a
// library constructor) keep a handler that only sets the flag.
void start_stop_signal_thread();

// Whether SIGTERM or SIGINT has arrived.
bool stop_requested();

}  // namespace bert::trainer
