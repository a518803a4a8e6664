/* libstdc++ readers: hashtable.  */
#include <config.h>
#include "libstdcxx.h"
