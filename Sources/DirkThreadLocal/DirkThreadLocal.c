#include "DirkThreadLocal.h"

__thread void *_Nullable dirk_thread_context = 0;
