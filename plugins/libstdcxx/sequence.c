/* libstdc++ readers: sequence.  */
#include <config.h>
#include "libstdcxx.h"
