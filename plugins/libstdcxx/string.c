/* libstdc++ readers: string.  */
#include <config.h>
#include "libstdcxx.h"
