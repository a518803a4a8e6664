/* libstdc++ readers: utility.  */
#include <config.h>
#include "libstdcxx.h"
