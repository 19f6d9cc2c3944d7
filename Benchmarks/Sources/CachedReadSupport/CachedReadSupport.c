#include "CachedReadSupport.h"

__thread void *_Nullable cachedread_thread_variable = 0;
