#if defined(__linux__)
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#endif
#include <errno.h>

#include "ProcessorAffinity.h"

int affinity_allowed_processors(int *_Nonnull processors, int capacity) {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    int count = 0;
    for (int processor = 0; processor < CPU_SETSIZE && count < capacity; processor++) {
        if (CPU_ISSET(processor, &set)) processors[count++] = processor;
    }
    return count;
#else
    (void)processors;
    (void)capacity;
    return 0;
#endif
}

int affinity_pin_current_thread(int processor) {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(processor, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
    (void)processor;
    return ENOSYS;
#endif
}
