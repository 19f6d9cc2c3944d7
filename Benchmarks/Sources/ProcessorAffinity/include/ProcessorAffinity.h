// The processors a benchmark may run on and pinning a thread to one of them, which Swift's Glibc
// module does not declare (they need _GNU_SOURCE). Linux only; elsewhere they report nothing.
#ifndef PROCESSOR_AFFINITY_H
#define PROCESSOR_AFFINITY_H

/// Writes the numbers of up to `capacity` processors the process may run on, lowest first, to
/// `processors`, and returns how many it wrote; 0 where the platform does not tell.
int affinity_allowed_processors(int *_Nonnull processors, int capacity);

/// Pins the calling thread to `processor`; returns 0, or an error number (always ENOSYS where
/// the platform cannot).
int affinity_pin_current_thread(int processor);

#endif
